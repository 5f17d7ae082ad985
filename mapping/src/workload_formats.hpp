#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "mapping/workload_file.hpp"

namespace meshbench::mapping::detail {

// meshbench's keys from a JSON object into `workload` (every key, or only the training keys);
// InputError on an unknown key, a wrong type or value.
void apply_workload_keys(Workload& workload, const nlohmann::json& keys, const std::string& where, bool training_only);
// top_k at most the number of experts, one MoE pattern entry per layer, full-attention layers within the layers.
void check_model_shape(const Workload& workload, const std::string& where);

// The attention's parameters per layer and K/V width (Workload::attention_params, kv_hidden)
// from its heads; each returns the attention in words. `w.hidden` must be set.
std::string set_gqa_attention(Workload& w, int heads, int kv_heads, int head_dim);
struct MlaShape {
  int heads, q_lora, kv_lora, nope, rope, v;  // q_lora 0: no Q compression
};
std::string set_mla_attention(Workload& w, const MlaShape& shape);

// A Hugging Face config.json (already parsed) of a supported MoE model.
WorkloadFile from_huggingface(const nlohmann::json& config, const std::string& where);

// A Megatron-LM launch script or argument list, as text.
WorkloadFile from_megatron(const std::string& text, const std::string& where);

// YAML text as JSON; InputError with the line of a syntax error.
nlohmann::json yaml_to_json(const std::string& text, const std::string& where);

}  // namespace meshbench::mapping::detail
