// A workload file (--workload FILE, docs/mapping.md). The first byte picks the reader, so that
// one target covers them all: '{' or '[' meshbench JSON or a Hugging Face config.json, '-' a
// Megatron-LM argument list, anything else YAML.
#include "mapping/workload.hpp"
#include "tests/fuzz/entries.hpp"

namespace meshbench::fuzz {

void workload_json(std::string_view input) {
  const char first = input.empty() ? '{' : input.front();
  const char* name = first == '{' || first == '[' ? "workload.json" : first == '-' ? "workload.args" : "workload.yaml";
  (void)mapping::load_workload(input_file(input, name));
}

}  // namespace meshbench::fuzz
