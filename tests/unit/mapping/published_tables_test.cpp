// The cost model held against nccl-tests tables that others published (tests/data/published,
// each file with its source): per table, the median |predicted − published| / published busbw
// at sizes ≥ 32 MiB and in [1 MiB, 32 MiB); and the shapes the physics must reproduce whatever
// the table: two-node all_reduce above the ring bound, the multi-node plateau, all_to_all busbw
// falling with the node count as the share of traffic leaving a node predicts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "mapping/cost_model.hpp"
#include "mapping/mapping.hpp"
#include "synthetic_nodes.hpp"
#include "topology/catalog.hpp"
#include "topology/machine.hpp"

namespace meshbench::mapping {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

struct Row {
  double bytes = 0, busbw_gbps = 0;
};

struct Table {
  std::map<std::string, std::string> header;
  std::vector<Row> rows;
};

Table read_table(const std::string& name) {
  const std::string path = std::string(MESHBENCH_TEST_DATA) + "/published/" + name;
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  Table t;
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("# ")) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) t.header[line.substr(2, colon - 2)] = line.substr(colon + 2);
      continue;
    }
    if (line.empty() || line.starts_with("bytes")) continue;
    std::istringstream row(line);
    std::string bytes, time, algbw, busbw;
    row >> bytes >> time >> algbw >> busbw;
    t.rows.push_back({std::stod(bytes), std::stod(busbw)});
  }
  return t;
}

topology::NodeTopology catalog_node(const std::string& type) {
  return topology::build_gpu_node(topology::machine_from_node_type(topology::find_node_type(type)));
}

// The hardware each table ran on, as the model is told it.
topology::NodeTopology node_for(const Table& t) {
  const std::string& type = t.header.at("node_type");
  if (type == "p5.48xlarge" || type == "dgx-h100" || type == "p4de.24xlarge") return catalog_node(type);
  // SURF Snellius gpu_h100: 4 H100 SXM, one 200 Gb/s InfiniBand NIC each.
  if (type.find("Snellius") != std::string::npos)
    return testing::make_node({.gpus = 4, .nics = 4, .nic_gbps = 25, .nvl_gbps = 370.8, .numa = 2, .nvlink = true});
  // 8 H100 with NVSwitch and one 400 Gb/s InfiniBand NIC per GPU, as a DGX H100.
  return catalog_node("dgx-h100");
}

// busbw the model predicts for every GPU of `nodes` nodes in one group (as nccl-tests runs).
double predicted_busbw(const topology::NodeTopology& node, int nodes, Op op, double bytes) {
  const auto topo = topology::ClusterTopology::replicate(node, nodes);
  const CostModel model(topo, default_cost_params(topo));
  const int world = topo.slot_count();
  const Layout layout{.world = world, .tp = 1};
  std::vector<int> identity(static_cast<std::size_t>(world));
  for (int i = 0; i < world; ++i) identity[static_cast<std::size_t>(i)] = i;
  const auto shape = model.score(layout, flat_rank_groups(layout), identity).of(Dim::dp);
  const double us = model.op_time_us(shape, op, static_cast<std::uint64_t>(bytes), true);
  return bytes / us / 1e3 * busbw_factor(op, world);
}

struct BandErrors {
  double large = -1, medium = -1;  // median |relative error| at ≥ 32 MiB and in [1, 32) MiB; -1: no row
};

double median(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

BandErrors errors(const std::string& name) {
  const Table t = read_table(name);
  const auto node = node_for(t);
  const int nodes = std::stoi(t.header.at("nodes"));
  const Op op = *parse_op(t.header.at("op"));
  std::vector<double> large, medium;
  for (const Row& r : t.rows) {
    if (r.bytes < kMiB || r.busbw_gbps <= 0) continue;
    const double err = std::abs(predicted_busbw(node, nodes, op, r.bytes) - r.busbw_gbps) / r.busbw_gbps;
    (r.bytes >= 32 * kMiB ? large : medium).push_back(err);
  }
  return {median(large), median(medium)};
}

// The tables the model is held to: 8×H100 in one node, and H100 across 2-10 nodes, on EFA,
// InfiniBand and RoCE (tests/data/published/SOURCES.md). Left out, each for its reason there:
// the p5 EKS excerpt (NCCL 2.18.5 with aws-ofi-nccl 1.7.3, a stack its own source calls tens of
// percent slower), the GCP tables (TCPXO, not RDMA; one of unverified hardware), the 4-GPU
// Snellius node alone (direct NVLink without NVSwitch, which the topology does not describe).
const std::vector<std::string> kHeld = {"aws-p5-1node-allreduce-batch.tsv",     "nvidia-dgxh100-1node-allreduce.tsv",
                                        "aws-p5-2node-allreduce.tsv",           "oci-h100-2node-allreduce.tsv",
                                        "voltagepark-h100-4node-allreduce.tsv", "xxrjun-h100-10node-allreduce.tsv",
                                        "xxrjun-h100-1node-alltoall.tsv",       "xxrjun-h100-10node-alltoall.tsv",
                                        "snellius-h100-2node-alltoall.tsv",     "snellius-h100-4node-alltoall.tsv"};

}  // namespace

TEST(PublishedTables, MedianErrorWithinBoundsPerTable) {
  for (const auto& name : kHeld) {
    const BandErrors e = errors(name);
    std::printf("%-40s median |error| >= 32 MiB %5.1f%%, [1, 32) MiB %5.1f%%\n", name.c_str(), e.large * 100, e.medium * 100);
    ASSERT_TRUE(e.large >= 0 || e.medium >= 0) << name << ": no row of 1 MiB or more";
    if (e.large >= 0) {
      EXPECT_LE(e.large, 0.15) << name << " at >= 32 MiB";
    }
    if (e.medium >= 0) {
      EXPECT_LE(e.medium, 0.35) << name << " in [1, 32) MiB";
    }
  }
}

TEST(PublishedTables, TwoNodeAllReduceExceedsTheRingBound) {
  // A ring over the network carries at most one NIC's speed per channel, one channel per NIC:
  // 8 × 50 GB/s on p5. NCCL's trees on two nodes go above it, as published (487 GB/s).
  const auto p5 = catalog_node("p5.48xlarge");
  const double ring_bound = p5.nic_bandwidth_gbps();
  EXPECT_GT(predicted_busbw(p5, 2, Op::all_reduce, 8.0 * 1024 * kMiB), ring_bound);
  EXPECT_LT(predicted_busbw(p5, 4, Op::all_reduce, 8.0 * 1024 * kMiB), ring_bound);
}

TEST(PublishedTables, MultiNodeAllReducePlateaus) {
  const auto p5 = catalog_node("p5.48xlarge");
  const double at4 = predicted_busbw(p5, 4, Op::all_reduce, 8.0 * 1024 * kMiB);
  for (int nodes : {8, 16, 32}) EXPECT_NEAR(predicted_busbw(p5, nodes, Op::all_reduce, 8.0 * 1024 * kMiB) / at4, 1.0, 0.10) << nodes;
}

TEST(PublishedTables, AllToAllFallsWithTheShareLeavingANode) {
  // Each GPU sends (n − g)/n of its buffer off its node of g GPUs; busbw counts (n − 1)/n, so at
  // the network's speed busbw ∝ (n − 1)/(n − g): 15/8 of it on two 8-GPU nodes, 79/72 on ten.
  const auto p5 = catalog_node("p5.48xlarge");
  const double bytes = 4.0 * 1024 * kMiB;
  double previous = predicted_busbw(p5, 1, Op::all_to_all, bytes);
  const double net = predicted_busbw(p5, 2, Op::all_to_all, bytes) * 8.0 / 15.0;
  for (int nodes : {2, 4, 8, 16}) {
    const double n = 8.0 * nodes;
    const double busbw = predicted_busbw(p5, nodes, Op::all_to_all, bytes);
    EXPECT_LT(busbw, previous) << nodes;
    EXPECT_NEAR(busbw / (net * (n - 1) / (n - 8)), 1.0, 0.02) << nodes;
    previous = busbw;
  }
}

}  // namespace meshbench::mapping
