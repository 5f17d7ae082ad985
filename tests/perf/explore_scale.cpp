// Scale benchmark (not a test): `explore` of DeepSeek-V3 (671B) on 256 p5 nodes (2,048 GPUs),
// every layout, the planner's search for the best five, printing the wall and CPU time of the
// whole search and the peak resident memory. The target: under 10 s and 2 GiB.
//   build/perf/perf_explore_scale [nodes] [plan_top]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "mapping/explore.hpp"
#include "mapping/workload_file.hpp"
#include "topology/gpu_specs.hpp"
#include "topology/options.hpp"

namespace {

using Clock = std::chrono::steady_clock;

long max_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

double cpu_s() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace meshbench;
  const int nodes = argc > 1 ? std::atoi(argv[1]) : 256;
  const int plan_top = argc > 2 ? std::atoi(argv[2]) : 5;
  const auto start = Clock::now();
  const double cpu0 = cpu_s();
  topology::TopologyOptions o;
  o.node_type = "p5.48xlarge";
  o.nodes = nodes;
  const auto topo = topology::load_offline_topology(o, true);
  mapping::Workload w = mapping::read_workload_file(std::string(MESHBENCH_TEST_DATA) + "/model-configs/deepseek-v3/config.json").workload;
  mapping::TrainingSettings s;
  s.global_batch = 15360;
  s.precision_aware_optimizer = true;
  w.global_batch = s.global_batch;
  const auto spec = topology::find_gpu_spec("H100 80GB HBM3");
  const mapping::ExploreHardware hw{"H100", spec->memory_gib, spec->bf16_tflops, spec->fp8_tflops, spec->hbm_tbps, 8};
  const mapping::CostModel model(topo, mapping::default_cost_params(topo), w);
  const auto result = mapping::explore(w, s, {}, hw, topo, model, plan_top);
  const double wall = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("explore DeepSeek-V3 on %d GPUs: %d size combinations, %zu fit, %zu too big; %.2f s wall, %.2f s CPU, peak RSS %.0f MiB\n",
              topo.slot_count(), result.candidates, result.ranked.size(), result.too_big.size(), wall, cpu_s() - cpu0,
              static_cast<double>(max_rss_kib()) / 1024.0);
  const auto& best = result.ranked.front().layout.layout;
  std::printf("best: TP%d CP%d PP%d VPP%d EP%d ETP%d, step %.0f ms\n", best.tp, best.cp, best.pp, result.ranked.front().layout.vpp, best.ep,
              best.expert_tp(), result.ranked.front().step_us / 1000.0);
  return 0;
}
