#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "mapping/layout.hpp"
#include "mapping/workload.hpp"

namespace meshbench::mapping {

// The layout sizes a file fixes: a Megatron-LM launch script sets them, a model config none.
struct FileLayout {
  std::optional<int> tp, cp, pp, ep, etp;
  std::optional<int> world;  // torchrun's --nproc_per_node × --nnodes, when both are numbers
  std::optional<std::string> order;
  bool empty() const { return !tp && !cp && !pp && !ep && !etp && !world && !order; }
};

// A workload file as understood: the workload, how the file was read, and what in it was left
// out. `meshbench workload FILE` prints all of it; everywhere else only `workload` is used.
struct WorkloadFile {
  Workload workload;
  std::string format;     // "meshbench JSON", "Hugging Face config.json (mixtral)", "Megatron-LM arguments", ...
  std::string attention;  // the attention's shape in words ("GQA: 32 heads, 8 K/V heads of 128")
  FileLayout layout;
  std::vector<std::string> ignored;  // keys or arguments read and left out: they do not change the traffic
  std::vector<std::string> notes;    // assumptions made, and what the model has that is not modelled
};

// The formats, told apart by the file name's extension and then by the content:
// - meshbench's own keys (docs/mapping.md, "Workload files") as JSON or YAML;
// - a Hugging Face config.json (a `model_type` or `architectures` key): dense llama, mistral,
//   qwen2, qwen3; MoE mixtral, deepseek_v3, kimi_k2, glm4_moe, qwen3_moe, qwen3_next, olmoe,
//   gpt_oss, llama4, grok-1 (docs/mapping.md);
// - a Megatron-LM launch script or argument list (.sh, .args, .txt, or lines of --options);
// - an overlay: meshbench JSON or YAML with `model: PATH` (a model config or launch script,
//   relative to the overlay) and only the training keys beside it.
// One-line InputError for anything not understood that changes the traffic.
WorkloadFile read_workload_file(const std::string& path);

// Sets the training keys (seq_len, micro_batch, micro_batches, global_batch, dtype, grad_dtype,
// capacity_factor, sequence_parallel, distributed_optimizer, name) from a JSON object; any
// other key is an InputError naming `where`.
void apply_training_keys(Workload& workload, const nlohmann::json& keys, const std::string& where);

// A JSON or YAML file's content as JSON (YAML through yaml-cpp: plain scalars become numbers,
// booleans or null where they read as one, quoted ones stay strings).
nlohmann::json read_json_or_yaml_file(const std::string& path, const std::string& what);

}  // namespace meshbench::mapping
