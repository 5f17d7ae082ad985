// Writes the seeds that only meshbench itself can make (digests, HDF5) into a corpus folder:
// results_h5/small-run.h5 (the smallest complete results file: two nodes of two CPU slots, two
// mappings, one point each), topology_json/ (that topology, and two p4d nodes, compact as the
// results file keeps them) and plan_json/ (a plan for the CPU nodes, one for a p4d node with a workload, and a plan file of
// two layouts for it), so each target
// starts from files the reader accepts. Usage: fuzz_seeds tests/fuzz/corpus
// The writer's chunks make the results file 670 KB; the corpus keeps it repacked small, in both
// layouts the reader meets (what `h5repack -l CONTI -M 128` and `-l CHUNK=2 -M 128 -L` make of
// it: small-run-contiguous.h5, small-run-chunked-latest.h5).
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <optional>

#include "mapping/candidates.hpp"
#include "mapping/cost_model.hpp"
#include "mapping/plan.hpp"
#include "mapping/plan_set.hpp"
#include "results/writer.hpp"
#include "tests/unit/two_cpu_node.hpp"
#include "topology/json.hpp"
#include "topology/options.hpp"

namespace {

meshbench::results::PointRecord point(const std::string& mapping, double median) {
  meshbench::results::PointRecord p;
  p.row.point.mapping = mapping;
  p.row.point.dim = "tp";
  p.row.point.op = "all_reduce";
  p.row.backend = "mpi";
  p.row.dtype = "float32";
  p.row.point.bytes = 1024;
  p.row.groups = 2;
  p.row.group_size = 2;
  p.row.iters = 5;
  p.row.point.timing = "per_iteration";
  p.row.point.concurrency = "concurrent";
  p.row.t_median_us = median;
  p.row.busbw_gbps = 1024 / median / 1e3;
  p.groups = {{p.row.point, 0, median, median * 1.1, 1.0}};
  p.samples = {{p.row.point, 0, median}};
  return p;
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

meshbench::mapping::Plan plan_of(const meshbench::topology::ClusterTopology& topo, meshbench::mapping::Layout layout,
                                 const std::optional<meshbench::mapping::Workload>& workload) {
  using namespace meshbench::mapping;
  layout.world = topo.slot_count();
  const CostModel model(topo, default_cost_params(topo), workload);
  auto ranked = generate_candidates(layout, topo, model, {.random_seed = 1, .search = false, .with_groups = false});
  return make_plan(layout, model, topo, std::move(ranked));
}

void write_plan(const meshbench::topology::ClusterTopology& topo, meshbench::mapping::Layout layout,
                const std::optional<meshbench::mapping::Workload>& workload, const std::filesystem::path& path) {
  std::filesystem::remove(path);
  meshbench::mapping::write_plan(plan_of(topo, layout, workload), path.string(), true);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_seeds CORPUS_DIR\n");
    return 2;
  }
  try {
    using namespace meshbench;
    const std::filesystem::path dir = argv[1];
    const auto topo = topology::ClusterTopology::replicate(test_support::two_cpu_node("hostA"), 2);
    results::RunHeader h;
    h.run = {"0.1.0",
             "meshbench run --out run.h5",
             "2026-12-01T09:00:00Z",
             "",
             "running",
             "mpi",
             4,
             {"hostA-0", "hostA-0", "hostA-1", "hostA-1"}};
    h.provenance.versions = {{"mpi", "Open MPI 4.1.4"}};
    h.provenance.environment = {{"NCCL_PROTO", "LL128"}};
    h.layout = {4, 2, 1, 1, 1, 2, 2, 2, "tp-cp-ep-dp-pp", ""};
    h.mappings = {{"identity",
                   "order tp-cp-ep-dp-pp",
                   0x1234abcdULL,
                   {0, 1, 2, 3},
                   {{"tp", {{0, 1}, {2, 3}}}, {"dp", {{0, 2}, {1, 3}}}},
                   {{"tp", 1.5}}},
                  {"tp-across", "swap", 0x99ULL, {0, 2, 1, 3}, {{"tp", {{0, 2}, {1, 3}}}, {"dp", {{0, 1}, {2, 3}}}}, {{"tp", 9.0}}}};
    h.topology = &topo;
    h.topology_json = topology::to_json(topo, {.node_details = false}).dump();
    auto w = results::ResultsWriter::create((dir / "results_h5" / "small-run.h5").string(), h, true);
    w.append(point("identity", 10.0));
    w.append(point("tp-across", 40.0));
    w.record_transports({{"identity", "tp", "P2P", 4}});
    w.finish("complete", "2026-12-01T09:01:00Z");

    topology::TopologyOptions p4d;
    p4d.node_type = "p4d.24xlarge";
    p4d.nodes = 2;
    const auto gpus = topology::load_offline_topology(p4d, true);
    write_text(dir / "topology_json" / "two-cpu-nodes.json", h.topology_json);
    write_text(dir / "topology_json" / "p4d-2-nodes.json", topology::to_json(gpus, {.node_details = false}).dump());

    write_plan(topo, {.tp = 2}, std::nullopt, dir / "plan_json" / "two-cpu-nodes.json");
    mapping::Workload moe;
    moe.layers = 2;
    moe.hidden = 64;
    moe.ffn_hidden = 128;
    moe.kv_hidden = 16;
    moe.seq_len = 32;
    moe.experts = 4;
    p4d.nodes = 1;
    const auto p4d_node = topology::load_offline_topology(p4d, true);
    write_plan(p4d_node, {.tp = 2, .ep = 4, .etp = 1}, moe, dir / "plan_json" / "p4d-moe.json");
    // A plan file of two layouts, one with the explorer's estimate (run --plan reads both kinds).
    auto two =
        mapping::make_plan_set({plan_of(p4d_node, {.tp = 2}, std::nullopt), plan_of(p4d_node, {.tp = 2, .ep = 4, .etp = 1}, std::nullopt)},
                               {nlohmann::json{{"step_time_ms", 812.5}, {"memory_gib", {{"peak", 61.2}}}}, std::nullopt});
    for (auto& e : two.layouts) e.plan.mappings.resize(std::min<std::size_t>(e.plan.mappings.size(), 2));
    std::filesystem::remove(dir / "plan_json" / "p4d-two-layouts.json");
    mapping::write_plan_set(two, (dir / "plan_json" / "p4d-two-layouts.json").string(), true);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_seeds: %s\n", e.what());
    return 1;
  }
  return 0;
}
