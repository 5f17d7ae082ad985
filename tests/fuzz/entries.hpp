#pragma once
// The fuzz targets' entry functions: each feeds one input to one parser of outside input the
// way the command line does (same function, same file handling). libFuzzer's harness
// (libfuzzer_main.cpp) and the regression test (regressions_test.cpp) both call them through
// check_contract.
//
// The contract (docs/reliability.md, "Fuzzing"): an input is accepted, or refused with
// meshbench::InputError whose message is one non-empty line. Anything else is a finding: an
// exception of another type (main would print "failed:" and exit 1, the status that means "the
// check found a problem", not "your input is wrong"), a crash, a sanitizer report, a leak or a
// hang.
#include <string>
#include <string_view>
#include <vector>

namespace meshbench::fuzz {

using Entry = void (*)(std::string_view input);

void nccl_xml(std::string_view input);         // topo --topology FILE, an NCCL topology XML
void hwloc_xml(std::string_view input);        // topo --topology FILE, an hwloc XML (through hwloc)
void topology_json(std::string_view input);    // the topology JSON a results file keeps
void workload_json(std::string_view input);    // plan/run/report --workload FILE
void plan_json(std::string_view input);        // run --plan FILE
void cost_model_json(std::string_view input);  // plan --cost-model FILE
void env_file(std::string_view input);         // doctor --env-template FILE (slurm/env/*.env)
void nccl_log(std::string_view input);         // logs summary FILE (NCCL_DEBUG=INFO output)
void log_merge(std::string_view input);        // logs merge FILE (timestamps of any log)
void results_h5(std::string_view input);       // report/compare FILE.h5, damaged
void nccl_tests_log(std::string_view input);   // import nccl-tests LOG (text or -J JSON)
void osu_log(std::string_view input);          // import osu LOG
void nic_counters(std::string_view input);     // run --counter-root DIR (proc/net/dev, RDMA counter files)

struct Target {
  const char* name;
  Entry entry;
};
// Every target, by the name of its tests/fuzz/<name>.cpp and corpus/regressions folders.
const std::vector<Target>& targets();

// Runs `entry` on `input`: returns normally when the input was accepted or refused with a
// one-line InputError; throws ContractBroken for a refusal with a bad message, and lets any
// other exception through.
void check_contract(Entry entry, std::string_view input);

// Writes `input` to this process's temporary file for `name` (same path every call, so a
// target's messages stay alike) and returns its path: for the parsers that take a path.
std::string input_file(std::string_view input, const std::string& name);

}  // namespace meshbench::fuzz
