// The table of every target, for the regression test (each libFuzzer executable links only its
// own entry function and the library it exercises).
#include "tests/fuzz/entries.hpp"

namespace meshbench::fuzz {

const std::vector<Target>& targets() {
  static const std::vector<Target> all = {
      {"nccl_xml", nccl_xml},
      {"hwloc_xml", hwloc_xml},
      {"topology_json", topology_json},
      {"workload_json", workload_json},
      {"plan_json", plan_json},
      {"cost_model_json", cost_model_json},
      {"env_file", env_file},
      {"nccl_log", nccl_log},
      {"log_merge", log_merge},
      {"results_h5", results_h5},
      {"nccl_tests_log", nccl_tests_log},
      {"osu_log", osu_log},
      {"nic_counters", nic_counters},
  };
  return all;
}

}  // namespace meshbench::fuzz
