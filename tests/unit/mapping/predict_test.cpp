// meshbench predict: the sweep nccl-tests takes, the op names, the group, and the table's
// columns (busbw = algbw x the op's bus factor), its JSON keys and its refusals.
#include "mapping/predict.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

#include "common/error.hpp"
#include "common/sizes.hpp"
#include "mapping/nccl_tuning.hpp"
#include "mapping/rank_groups.hpp"
#include "tests/unit/input_error_text.hpp"
#include "topology/options.hpp"

namespace meshbench::mapping {

namespace {

using test_support::error_of;

topology::ClusterTopology p5(int nodes) { return topology::load_offline_topology({"", "p5.48xlarge", nodes}, true); }

Prediction predict_on(const topology::ClusterTopology& topo, Op op, const std::vector<std::uint64_t>& sizes, int gpus_per_node = 0) {
  const CostModel model(topo, default_cost_params(topo));
  return predict(model, node_group(topo, gpus_per_node, op), op, sizes);
}

// The exit status and stdout+stderr of `meshbench ARGS`.
std::pair<int, std::string> meshbench(const std::string& args) {
  const std::string command = std::string(MESHBENCH_BINARY) + " " + args + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0;) out.append(buf.data(), n);
  const int raw = ::pclose(pipe);
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, out};
}

}  // namespace

TEST(Predict, SizesAsNcclTestsTakesThem) {
  EXPECT_EQ(predict_sizes(parse_bytes("8"), parse_bytes("8G"), 2).size(), 31U);
  EXPECT_EQ(predict_sizes(8, 8ULL << 30, 2).back(), 8ULL << 30);
  EXPECT_EQ(predict_sizes(parse_bytes("1K"), parse_bytes("1M"), 4),
            (std::vector<std::uint64_t>{1024, 4096, 16384, 65536, 262144, 1048576}));
  // One size: the factor is not used, as nccl-tests ignores it.
  EXPECT_EQ(predict_sizes(32 << 20, 32 << 20, 1), (std::vector<std::uint64_t>{32 << 20}));
  // A factor that does not reach -e stops below it.
  EXPECT_EQ(predict_sizes(8, 100, 3), (std::vector<std::uint64_t>{8, 24, 72}));
}

TEST(Predict, SizesRefusedSayWhy) {
  EXPECT_NE(error_of([] { predict_sizes(1024, 8, 2); }).find("give -b <= -e"), std::string::npos);
  EXPECT_NE(error_of([] { predict_sizes(8, 1024, 1); }).find("-f/--stepfactor must be at least 2"), std::string::npos);
  EXPECT_NE(error_of([] { predict_sizes(0, 1024, 2); }).find("-b/--minbytes"), std::string::npos);
}

TEST(Predict, OpNamesOfNcclTestsAndTheProject) {
  EXPECT_EQ(parse_predict_op("all_reduce"), Op::all_reduce);
  EXPECT_EQ(parse_predict_op("allreduce"), Op::all_reduce);
  EXPECT_EQ(parse_predict_op("all_reduce_perf"), Op::all_reduce);
  EXPECT_EQ(parse_predict_op("alltoall"), Op::all_to_all);
  EXPECT_EQ(parse_predict_op("sendrecv_perf"), Op::send_recv);
  EXPECT_EQ(parse_predict_op("Reduce_Scatter"), Op::reduce_scatter);
  const std::string e = error_of([] { parse_predict_op("broadcast"); });
  EXPECT_NE(e.find("unknown op 'broadcast'"), std::string::npos);
  EXPECT_NE(e.find("all_to_all"), std::string::npos);
}

TEST(Predict, GroupOfEveryGpuOrKPerNode) {
  const auto topo = p5(2);
  const auto all = node_group(topo, 0, Op::all_reduce);
  EXPECT_EQ(all.ranks, 16);
  const auto four = node_group(topo, 4, Op::all_reduce);
  EXPECT_EQ(four.ranks, 8);
  // Rank r of the first group: the first 4 slots of node 0, then of node 1.
  EXPECT_EQ(std::vector<int>(four.slot_of_rank.begin(), four.slot_of_rank.begin() + 8), (std::vector<int>{0, 1, 2, 3, 8, 9, 10, 11}));
  const auto p = predict_on(topo, Op::all_reduce, {1 << 20}, 4);
  EXPECT_EQ(p.ranks, 8);
  EXPECT_EQ(p.nodes, 2);
  // The all-to-alls are priced on ep groups, send_recv on pp groups (strided ranks): either way
  // the group holds the first 4 slots of each node.
  for (const Op op : {Op::all_to_all, Op::send_recv}) {
    const auto g = node_group(topo, 4, op);
    EXPECT_EQ(g.dim, op == Op::send_recv ? Dim::pp : Dim::ep);
    std::vector<int> slots;
    const auto groups = flat_rank_groups(g.layout);
    for (const int r : groups[g.dim].group(0)) slots.push_back(g.slot_of_rank[static_cast<std::size_t>(r)]);
    EXPECT_EQ(slots, (std::vector<int>{0, 1, 2, 3, 8, 9, 10, 11})) << to_string(op);
  }
  EXPECT_NE(error_of([&] { node_group(topo, 16, Op::all_reduce); }).find("more than a node has"), std::string::npos);
  EXPECT_NE(error_of([&] { node_group(topo, 3, Op::all_reduce); }).find("does not divide"), std::string::npos);
}

TEST(Predict, LayoutDimensionAtItsDefaultPlacement) {
  const auto topo = p5(2);
  Layout l;
  l.tp = 8;
  const auto g = layout_dim_group(topo, l, Dim::dp);
  EXPECT_EQ(g.ranks, 2);
  EXPECT_EQ(g.groups, 8);
  EXPECT_FALSE(g.isolated);
  const CostModel model(topo, default_cost_params(topo));
  EXPECT_EQ(predict(model, g, Op::all_reduce, {1 << 20}).nodes, 2);
  EXPECT_EQ(predict(model, layout_dim_group(topo, l, Dim::tp), Op::all_reduce, {1 << 20}).nodes, 1);
  EXPECT_NE(error_of([&] { layout_dim_group(topo, l, Dim::pp); }).find("groups of one rank"), std::string::npos);
  l.tp = 3;
  EXPECT_NE(error_of([&] { layout_dim_group(topo, l, Dim::tp); }), "");
}

TEST(Predict, BusbwIsAlgbwTimesTheBusFactor) {
  const auto topo = p5(2);
  for (const Op op : kAllOps) {
    const auto p = predict_on(topo, op, predict_sizes(8, 1ULL << 30, 4));
    ASSERT_EQ(p.rows.size(), 14U);  // 8 B x 4^k up to 512 MiB
    for (const auto& r : p.rows) {
      EXPECT_GT(r.time_us, 0);
      EXPECT_EQ(r.count, r.bytes / 4);
      EXPECT_DOUBLE_EQ(r.algbw_gbps, static_cast<double>(r.bytes) / r.time_us / 1e3);
      EXPECT_DOUBLE_EQ(r.busbw_gbps, r.algbw_gbps * busbw_factor(op, 16));
      EXPECT_FALSE(r.algorithm.empty());
    }
    EXPECT_GT(p.rows.back().busbw_gbps, p.rows.front().busbw_gbps);
  }
}

TEST(Predict, TextIsNcclTestsTableWithItsBasis) {
  const auto topo = p5(1);
  auto p = predict_on(topo, Op::all_reduce, predict_sizes(8, 1024, 2));
  p.hardware = hardware_line(topo);
  const std::string text = predict_text(p);
  EXPECT_NE(text.find("# group: 8 ranks on 1 node"), std::string::npos) << text;
  EXPECT_NE(text.find("# hardware: 1 node x 8 GPUs (p5.48xlarge)"), std::string::npos) << text;
  EXPECT_NE(text.find("# model: "), std::string::npos);
  EXPECT_NE(text.find("size         count      type     time   algbw   busbw   algorithm  protocol"), std::string::npos) << text;
  EXPECT_NE(text.find("\n           8             2     float"), std::string::npos) << text;
  EXPECT_NE(text.find("\n        1024           256     float"), std::string::npos) << text;
}

TEST(Predict, JsonRowsHaveTheProjectsKeys) {
  const auto topo = p5(2);
  const auto j = predict_json(predict_on(topo, Op::all_to_all, {8, 1 << 20}));
  EXPECT_EQ(j["schema"], "meshbench.predict");
  for (const char* k : {"op", "ranks", "nodes", "group", "hardware", "model"}) EXPECT_TRUE(j["header"].contains(k)) << k;
  ASSERT_EQ(j["rows"].size(), 2U);
  std::vector<std::string> keys;
  for (const auto& [k, v] : j["rows"][0].items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"bytes", "count", "time_us", "algbw_gbps", "busbw_gbps", "algorithm", "protocol"}));
  EXPECT_EQ(j["rows"][1]["bytes"], 1 << 20);
}

TEST(Predict, BasisSaysWhichModelPriced) {
  EXPECT_EQ(estimate_basis("alpha-beta"), "alpha-beta");
  EXPECT_EQ(estimate_basis("calibrated"), "calibrated");
  EXPECT_EQ(estimate_basis("ring"), "NCCL " + std::string(kNcclTuningVersion) + " tuning model");
}

TEST(Predict, BadInputIsOneLineAndExitTwo) {
  const std::string p5x2 = "predict --node-type p5.48xlarge --nodes 2 ";
  for (const auto& [args, words] : std::vector<std::pair<std::string, std::string>>{
           {p5x2 + "--op broadcast", "unknown op 'broadcast'"},
           {p5x2 + "--gpus-per-node 3", "does not divide"},
           {p5x2 + "--gpus-per-node 16", "more than a node has"},
           {p5x2 + "-b 1M -e 1K", "give -b <= -e"},
           {p5x2 + "-b 8 -e 1K -f 1", "-f/--stepfactor must be at least 2"},
           {p5x2 + "--tp 8", "add --dim"},
           {p5x2 + "--dim tp --tp 3", "TP"},
           {p5x2 + "--format csv", "csv"},
       }) {
    const auto [status, out] = meshbench(args);
    EXPECT_EQ(status, 2) << args << ": " << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << args << ": " << out;
    EXPECT_NE(out.find(words), std::string::npos) << args << ": " << out;
  }
}

}  // namespace meshbench::mapping
