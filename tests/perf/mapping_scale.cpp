// Scale benchmark (not a test): plan 8192 p5 nodes (65,536 GPUs) with TP8 PP8 EP8, printing the
// time of each phase, the candidate counts and the peak resident memory. The target:
// everything under 1 s and 2 GiB. Megatron's Python RankGenerator needs about 1 s just to list
// one layout's groups at this size. Then the price of every op at nccl-tests' sizes on each
// dimension of the best mapping, as `predict` and `report` price them.
//   build/perf/perf_mapping_scale [nodes] [tp pp ep]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/ops/op.hpp"
#include "mapping/candidates.hpp"
#include "mapping/cost_model.hpp"
#include "mapping/rank_groups.hpp"
#include "topology/cluster.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using meshbench::topology::LinkClass;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

long max_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

// User + system CPU seconds: on a shared machine wall time also counts other people's work.
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// A p5.48xlarge as the node-type catalog describes it: 8 H100 on NVSwitch, 32 EFA NICs of
// 100 Gb/s (4 per GPU, under the GPU's PCIe switch), 2 NUMA nodes. Built here so that the
// benchmark measures the mapping module alone.
meshbench::topology::NodeTopology p5_node() {
  meshbench::topology::NodeTopology n;
  n.hostname = "p5";
  n.node_type = "p5.48xlarge";
  n.numa_nodes = 2;
  for (int g = 0; g < 8; ++g) {
    meshbench::topology::Slot s;
    s.index = g;
    s.numa = g / 4;
    s.pci_switch = g;
    n.slots.push_back(s);
    n.rails.push_back({4 * g, 4 * g + 1, 4 * g + 2, 4 * g + 3});
  }
  for (int i = 0; i < 32; ++i) {
    meshbench::topology::Nic nic;
    nic.name = "rdmap" + std::to_string(i);
    nic.kind = meshbench::topology::NicKind::efa;
    nic.speed_gbps = 12.5;
    nic.pci_switch = i / 4;
    nic.numa = i / 16;
    n.nics.push_back(nic);
  }
  for (int a = 0; a < 8; ++a) {
    for (int b = 0; b < 8; ++b) {
      n.links.push_back(a == b ? LinkClass::LOC : LinkClass::NVL);
      n.bandwidth_gbps.push_back(a == b ? 0 : 370);
    }
  }
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace meshbench::mapping;
  const int nodes = argc > 1 ? std::atoi(argv[1]) : 8192;
  Layout layout;
  layout.tp = argc > 2 ? std::atoi(argv[2]) : 8;
  layout.pp = argc > 3 ? std::atoi(argv[3]) : 8;
  layout.ep = argc > 4 ? std::atoi(argv[4]) : 8;
  const long rss_start = max_rss_kib();

  auto t = Clock::now();
  const auto topo = meshbench::topology::ClusterTopology::replicate(p5_node(), nodes);
  layout.world = topo.slot_count();
  const double topo_s = since(t);

  t = Clock::now();
  const auto groups = flat_rank_groups(layout);
  const double groups_s = since(t);

  const double cpu_start = cpu_seconds();
  t = Clock::now();
  const CostModel model(topo, default_cost_params(topo));
  const double model_s = since(t);

  t = Clock::now();
  // As `meshbench plan` runs it: the Mapping objects carry slot_of_rank, not group lists.
  const auto r = generate_candidates(layout, topo, model, {.with_groups = false});
  const double plan_s = since(t);
  const double plan_cpu_s = cpu_seconds() - cpu_start;

  // What `predict` and `report` do with a scored mapping: price its dimensions at many sizes
  // (nccl-tests' 8 B to 8 GiB, every op), here 500 times over.
  t = Clock::now();
  const double price_cpu_start = cpu_seconds();
  const Score& best_score = r.ranked.front().score;
  int prices = 0;
  double priced_us = 0;
  for (int repeat = 0; repeat < 500; ++repeat) {
    for (Dim d : kAllDims) {
      for (Op op : meshbench::ops::kAllOps) {
        for (std::uint64_t bytes = 8; bytes <= (8ULL << 30); bytes *= 2) {
          priced_us += model.op_estimate(best_score.of(d), op, bytes).time_us;
          ++prices;
        }
      }
    }
  }
  const double price_s = since(t);
  const double price_cpu_s = cpu_seconds() - price_cpu_start;

  // What `run` adds per mapping it loads: Megatron's nested group lists.
  t = Clock::now();
  const auto nested = rank_groups(layout);
  const double nested_s = since(t);

  std::printf("mapping scale: %d p5 nodes, %d GPUs, TP%d PP%d EP%d (DP%d EDP%d)\n", nodes, layout.world, layout.tp, layout.pp, layout.ep,
              layout.dp(), layout.edp());
  std::printf("  topology (replicate)        %8.3f s\n", topo_s);
  std::printf("  one layout's groups (flat)  %8.3f s   (%zu ranks in tp groups)\n", groups_s, groups[Dim::tp].ranks.size());
  std::printf("  cost model set-up           %8.3f s\n", model_s);
  std::printf("  candidates: generate+score  %8.3f s\n", r.stats.generate_s);
  std::printf("              search          %8.3f s   (%d placements scored)\n", r.stats.search_s, r.stats.search_evaluations);
  std::printf("              deduplicate     %8.3f s\n", r.stats.dedup_s);
  std::printf("              build mappings  %8.3f s\n", r.stats.build_s);
  std::printf("  plan total (model + candidates) %8.3f s wall, %.3f s CPU   %d generated, %d distinct\n", model_s + plan_s, plan_cpu_s,
              r.stats.generated, r.stats.distinct);
  std::printf("  nested group lists of one mapping (for run, not plan) %.3f s\n", nested_s);
  std::printf("  best: %s  %.1f us (sweep)\n", r.ranked.front().mapping.name.c_str(), r.ranked.front().score.total_us);
  std::printf("  pricing the best mapping     %8.3f s wall, %.3f s CPU   %d op prices (%.2f us CPU each; sum %.6g us)\n", price_s,
              price_cpu_s, prices, price_cpu_s * 1e6 / prices, priced_us);
  std::printf("  peak memory (ru_maxrss)     %8.1f MiB (at start %.1f MiB)\n", static_cast<double>(max_rss_kib()) / 1024.0,
              static_cast<double>(rss_start) / 1024.0);
  const bool ok = plan_s + model_s < 1.0 && max_rss_kib() < 2L * 1024 * 1024;
  std::printf("  target (< 1 s, < 2 GiB): %s\n", ok ? "met" : "MISSED");
  return ok ? 0 : 1;
}
