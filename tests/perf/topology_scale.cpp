// Scale figures for the cluster topology (not a test): build a 1024- and an 8192-node p5
// cluster (65,536 GPUs) and answer the link class of random slot pairs without a slots x
// slots table. Each size runs in its own process so that its peak memory is its own.
//
//   build/perf/perf_topology_scale                 # 1024 and 8192 nodes, 10M queries each
//   build/perf/perf_topology_scale --nodes 8192 --queries 50000000
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "topology/catalog.hpp"
#include "topology/cluster.hpp"
#include "topology/json.hpp"
#include "topology/loaders.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using meshbench::topology::ClusterTopology;
using meshbench::topology::LinkClass;
using meshbench::topology::NodeTopology;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

// The p5 node as a user would describe it: AWS's file completed by the node type.
NodeTopology p5_node() {
  namespace topo = meshbench::topology;
  const std::string file = std::string(MESHBENCH_TEST_DATA) + "/nccl-topo/p5.48xl-topo.xml";
  topo::Machine m =
      std::filesystem::exists(file) ? topo::load_topology_file(file) : topo::machine_from_node_type(topo::find_node_type("p5.48xlarge"));
  if (m.count(topo::PciKind::gpu) == 0) topo::apply_node_type(m, topo::find_node_type("p5.48xlarge"));
  m.name = "p5";
  return topo::build_gpu_node(m);
}

struct QueryFigures {
  double seconds = 0;
  std::array<long long, meshbench::topology::kLinkClassCount> classes{};
  double bandwidth_sum = 0;
};

// Random pairs over the whole cluster (almost all NET), or pairs within one random node.
QueryFigures query(const ClusterTopology& c, long long count, bool same_node) {
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<int> slot(0, c.slot_count() - 1);
  // Draw the pairs first so the timed loop holds only the lookups.
  std::vector<std::pair<int, int>> pairs(static_cast<std::size_t>(std::min<long long>(count, 1 << 20)));
  for (auto& p : pairs) {
    p = {slot(rng), slot(rng)};
    if (same_node) {
      const int base = c.first_slot_of(c.node_of(p.first));
      p.second = base + p.second % c.node(c.node_of(p.first)).slot_count();
    }
  }
  QueryFigures f;
  const auto start = Clock::now();
  for (long long i = 0; i < count; ++i) {
    const auto& [a, b] = pairs[static_cast<std::size_t>(i) % pairs.size()];
    ++f.classes[static_cast<std::size_t>(c.link(a, b))];
    f.bandwidth_sum += c.bandwidth_gbps(a, b);
  }
  f.seconds = seconds_since(start);
  return f;
}

int run_one(int nodes, long long queries) {
  const double rss_before = peak_rss_mib();
  const auto start = Clock::now();
  const ClusterTopology cluster = ClusterTopology::replicate(p5_node(), nodes);
  const double build = seconds_since(start);
  const double rss_built = peak_rss_mib();

  const QueryFigures q = query(cluster, queries, false);
  const QueryFigures local = query(cluster, queries, true);

  // The live path: rank 0 assembles one description per node and shares equal layouts.
  const auto live_start = Clock::now();
  std::vector<NodeTopology> described(static_cast<std::size_t>(nodes), cluster.node(0));
  for (int n = 0; n < nodes; ++n) described[static_cast<std::size_t>(n)].hostname = "node" + std::to_string(n);
  const ClusterTopology live = ClusterTopology::from_nodes(std::move(described));
  const double live_build = seconds_since(live_start);

  // The compact JSON a plan file carries, and its parse-back.
  meshbench::topology::JsonOptions compact;
  compact.node_details = false;
  const auto json_start = Clock::now();
  const std::string text = meshbench::topology::to_json(live, compact).dump();
  const ClusterTopology parsed = meshbench::topology::cluster_from_json(nlohmann::json::parse(text));
  const double json_seconds = seconds_since(json_start);

  const NodeTopology& node = cluster.layout(0);
  const double table_bytes = static_cast<double>(node.links.size()) * (sizeof(LinkClass) + sizeof(double));
  std::printf("nodes %d: %d slots (%d per node), %d layout(s), per-layout tables %.0f bytes (a slots x slots table would be %.1f GiB)\n",
              nodes, cluster.slot_count(), node.slot_count(), cluster.layout_count(), table_bytes,
              static_cast<double>(cluster.slot_count()) * cluster.slot_count() * 9.0 / (1 << 30));
  std::printf("  build (file + node type, x%d):   %.3f ms\n", nodes, build * 1e3);
  std::printf("  queries: %lld random pairs in %.3f s = %.1f M link+bandwidth lookups/s\n", queries, q.seconds,
              static_cast<double>(queries) / q.seconds / 1e6);
  std::printf("  classes seen:");
  for (int k = 0; k < meshbench::topology::kLinkClassCount; ++k) {
    if (q.classes[static_cast<std::size_t>(k)] > 0)
      std::printf(" %s %lld", std::string(to_string(static_cast<LinkClass>(k))).c_str(), q.classes[static_cast<std::size_t>(k)]);
  }
  std::printf("  (mean bandwidth %.2f GB/s)\n", q.bandwidth_sum / static_cast<double>(queries));
  std::printf("  queries within one node: %.1f M lookups/s (NVL %lld, LOC %lld)\n", static_cast<double>(queries) / local.seconds / 1e6,
              local.classes[static_cast<std::size_t>(LinkClass::NVL)], local.classes[static_cast<std::size_t>(LinkClass::LOC)]);
  std::printf("  live-style assembly from %d node descriptions: %.3f ms, %d layout(s)\n", nodes, live_build * 1e3, live.layout_count());
  std::printf("  compact JSON: %.1f MiB, write + parse back %.3f ms (%d slots)\n", static_cast<double>(text.size()) / (1 << 20),
              json_seconds * 1e3, parsed.slot_count());
  std::printf("  peak RSS: %.1f MiB at start, %.1f MiB after build, %.1f MiB at end (this process only)\n", rss_before, rss_built,
              peak_rss_mib());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes;
  long long queries = 10'000'000;
  bool child = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--nodes" && i + 1 < argc) sizes.push_back(std::atoi(argv[++i]));
    if (arg == "--queries" && i + 1 < argc) queries = std::atoll(argv[++i]);
    if (arg == "--one") child = true;
  }
  if (child && sizes.size() == 1) return run_one(sizes[0], queries);
  if (sizes.empty()) sizes = {1024, 8192};
  // One process per size: ru_maxrss is a high-water mark, so sizes must not share a process.
  for (int nodes : sizes) {
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
      const std::string n = std::to_string(nodes), q = std::to_string(queries);
      execl("/proc/self/exe", argv[0], "--one", "--nodes", n.c_str(), "--queries", q.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;
  }
  return 0;
}
