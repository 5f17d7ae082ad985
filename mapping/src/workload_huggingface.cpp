// A Hugging Face config.json of a dense or MoE model, as published on the model's page, into a Workload.
// The keys each family uses are those of its transformers configuration class; a key that
// would change the traffic but is not read for the family is refused, the rest are listed as
// ignored. Training settings (sequence length, batch, gradient dtype, sequence parallelism,
// distributed optimizer) are not in such a file: they keep the Workload defaults or come from
// an overlay (mapping/workload_file.hpp).
#include <algorithm>
#include <map>
#include <set>

#include "common/error.hpp"
#include "common/json_integer.hpp"
#include "common/strings.hpp"
#include "workload_formats.hpp"

namespace meshbench::mapping::detail {

namespace {

using nlohmann::json;

constexpr const char* kSupported =
    "llama, mistral, qwen2, qwen3 (dense); mixtral, deepseek_v3, kimi_k2, glm4_moe, qwen3_moe, qwen3_next, olmoe, gpt_oss, llama4, "
    "grok-1 (MoE)";

// Keys that change the traffic in one family or another: present in a file of a family that
// does not read them, they mean something meshbench would silently get wrong.
const std::set<std::string> kTrafficKeys = {"hidden_size",
                                            "num_hidden_layers",
                                            "num_attention_heads",
                                            "num_key_value_heads",
                                            "head_dim",
                                            "intermediate_size",
                                            "vocab_size",
                                            "tie_word_embeddings",
                                            "torch_dtype",
                                            "num_local_experts",
                                            "num_experts",
                                            "n_routed_experts",
                                            "n_shared_experts",
                                            "num_experts_per_tok",
                                            "moe_intermediate_size",
                                            "shared_expert_intermediate_size",
                                            "first_k_dense_replace",
                                            "moe_layer_freq",
                                            "decoder_sparse_step",
                                            "mlp_only_layers",
                                            "q_lora_rank",
                                            "kv_lora_rank",
                                            "qk_nope_head_dim",
                                            "qk_rope_head_dim",
                                            "v_head_dim",
                                            "num_nextn_predict_layers",
                                            "experts_per_token",
                                            "intermediate_size_mlp",
                                            "interleave_moe_layer_step",
                                            "moe_layers",
                                            "full_attention_interval",
                                            "linear_num_key_heads",
                                            "linear_num_value_heads",
                                            "linear_key_head_dim",
                                            "linear_value_head_dim",
                                            "linear_conv_kernel_dim",
                                            "text_config"};

class Reader {
 public:
  Reader(const json& config, std::string where, std::string family) : j_(config), where_(std::move(where)), family_(std::move(family)) {}

  // A key the traffic depends on and that has no default worth guessing.
  int need(const std::string& key, const std::string& meaning, int minimum = 1) {
    used_.insert(key);
    if (!j_.contains(key) || j_[key].is_null()) {
      throw InputError("Hugging Face config " + where_ + " (" + family_ + ") lacks '" + key + "' (" + meaning +
                       "), which sets the traffic; add it as the model's published config.json has it");
    }
    return as_int(key, minimum);
  }
  // A key with the default its transformers configuration class gives it.
  int optional(const std::string& key, int fallback, int minimum = 0) {
    used_.insert(key);
    if (!j_.contains(key) || j_[key].is_null()) return fallback;
    return as_int(key, minimum);
  }
  bool flag(const std::string& key, bool fallback) {
    used_.insert(key);
    if (!j_.contains(key) || j_[key].is_null()) return fallback;
    if (!j_[key].is_boolean()) bad(key, "must be true or false");
    return j_[key].get<bool>();
  }
  std::vector<int> int_list(const std::string& key) {
    used_.insert(key);
    std::vector<int> out;
    if (!j_.contains(key) || j_[key].is_null()) return out;
    if (!j_[key].is_array()) bad(key, "must be a list of layer numbers");
    for (const auto& v : j_[key]) {
      const auto layer = json_integer<int>(v);
      if (!layer) bad(key, "must be a list of layer numbers");
      out.push_back(*layer);
    }
    return out;
  }
  bool has(const std::string& key) const { return j_.contains(key) && !j_[key].is_null(); }
  std::vector<std::string> string_list(const std::string& key) {
    used_.insert(key);
    std::vector<std::string> out;
    if (!has(key)) return out;
    if (!j_[key].is_array()) bad(key, "must be a list of strings");
    for (const auto& v : j_[key]) {
      if (!v.is_string()) bad(key, "must be a list of strings");
      out.push_back(v.get<std::string>());
    }
    return out;
  }
  // A key read elsewhere (a nested object) or deliberately not modelled: not a leftover.
  void mark_used(const std::string& key) { used_.insert(key); }

  // torch_dtype (or dtype, its newer name) -> meshbench's activation dtype.
  std::string dtype(std::vector<std::string>& notes) {
    used_.insert("torch_dtype");
    used_.insert("dtype");
    const char* key = j_.contains("torch_dtype") ? "torch_dtype" : "dtype";
    if (!j_.contains(key) || j_[key].is_null()) {
      notes.push_back("no torch_dtype: activations taken as bf16");
      return "bf16";
    }
    if (!j_[key].is_string()) bad(key, "must be a string such as \"bfloat16\"");
    static const std::map<std::string, std::string> names = {
        {"bfloat16", "bf16"}, {"float16", "fp16"}, {"half", "fp16"}, {"float32", "fp32"}, {"float", "fp32"}};
    const auto it = names.find(j_[key].get<std::string>());
    if (it == names.end()) bad(key, "is '" + j_[key].get<std::string>() + "'; meshbench reads bfloat16, float16 or float32");
    return it->second;
  }
  [[noreturn]] void bad(const std::string& key, const std::string& problem) const {
    throw InputError("Hugging Face config " + where_ + ": '" + key + "' " + problem);
  }

  // Every key present but not read: a traffic key is refused, the rest are returned as ignored.
  std::vector<std::string> leftovers() const {
    std::vector<std::string> ignored;
    for (const auto& [key, value] : j_.items()) {
      if (used_.count(key) != 0) continue;
      if (kTrafficKeys.count(key) != 0) {
        throw InputError("Hugging Face config " + where_ + ": '" + key + "' changes the traffic but is not read for model type " + family_ +
                         "; remove it, or describe the model as a meshbench workload file (docs/mapping.md)");
      }
      ignored.push_back(key);
    }
    return ignored;
  }

 private:
  int as_int(const std::string& key, int minimum) const {
    const json& v = j_.at(key);
    if (!v.is_number_integer()) bad(key, "must be an integer");
    const auto i = json_integer<long long>(v);
    if (!i || *i < minimum || *i > 1'000'000'000)
      bad(key, "must be at least " + std::to_string(minimum) + " and at most 1000000000 (got " + v.dump() + ")");
    return static_cast<int>(*i);
  }

  const json& j_;
  std::string where_, family_;
  std::set<std::string> used_ = {"model_type", "architectures", "transformers_version"};
};

// The family from model_type, else from the first architecture's class name.
std::string family_of(const json& j, const std::string& where) {
  if (j.contains("model_type") && j["model_type"].is_string()) {
    // Grok-1's transformers port names its type "grok-1" or "grok1" by release: one family.
    const std::string type = j["model_type"].get<std::string>();
    return type == "grok1" ? "grok-1" : type;
  }
  static const std::map<std::string, std::string> classes = {{"MixtralForCausalLM", "mixtral"},
                                                             {"DeepseekV3ForCausalLM", "deepseek_v3"},
                                                             {"Qwen3MoeForCausalLM", "qwen3_moe"},
                                                             {"OlmoeForCausalLM", "olmoe"},
                                                             {"GptOssForCausalLM", "gpt_oss"},
                                                             {"Grok1ModelForCausalLM", "grok-1"},
                                                             {"LlamaForCausalLM", "llama"},
                                                             {"MistralForCausalLM", "mistral"},
                                                             {"Qwen2ForCausalLM", "qwen2"},
                                                             {"Qwen3ForCausalLM", "qwen3"},
                                                             {"Qwen3NextForCausalLM", "qwen3_next"},
                                                             {"Glm4MoeForCausalLM", "glm4_moe"},
                                                             {"Llama4ForConditionalGeneration", "llama4"}};
  if (j.contains("architectures") && j["architectures"].is_array() && !j["architectures"].empty() && j["architectures"][0].is_string()) {
    const std::string name = j["architectures"][0].get<std::string>();
    const auto it = classes.find(name);
    return it != classes.end() ? it->second : name;
  }
  throw InputError("Hugging Face config " + where +
                   " has neither a 'model_type' string nor an 'architectures' list; supported model types: " + kSupported);
}

// Shared by every family: the transformer's shape and GQA attention.
struct Common {
  int layers, hidden, heads, kv_heads, head_dim;
};

Common read_common(Reader& r, Workload& w) {
  Common c{};
  c.layers = r.need("num_hidden_layers", "transformer layers");
  c.hidden = r.need("hidden_size", "h");
  c.heads = r.need("num_attention_heads", "query heads");
  // transformers' classes default K/V heads to the query heads (no GQA) and the head width to h/heads.
  c.kv_heads = r.optional("num_key_value_heads", c.heads, 1);
  c.head_dim = r.optional("head_dim", c.hidden / c.heads, 1);
  w.layers = c.layers;
  w.hidden = c.hidden;
  w.vocab = r.need("vocab_size", "tokens in the vocabulary");
  w.tied_embeddings = r.flag("tie_word_embeddings", false);
  return c;
}

std::string gqa(const Common& c, Workload& w) { return set_gqa_attention(w, c.heads, c.kv_heads, c.head_dim); }

std::string mla(Reader& r, const Common& c, Workload& w) {
  MlaShape m{};
  m.heads = c.heads;
  m.nope = r.need("qk_nope_head_dim", "query/key width per head without rope");
  m.rope = r.need("qk_rope_head_dim", "query/key rope width per head");
  m.v = r.need("v_head_dim", "value width per head");
  m.kv_lora = r.need("kv_lora_rank", "K/V compression rank");
  m.q_lora = r.optional("q_lora_rank", 0, 1);  // null: Q without compression
  return set_mla_attention(w, m);
}

// Layer i's MoE flags from the layer numbers that are MoE, checked against the layer count.
std::vector<int> pattern_of(Reader& r, const std::string& key, const std::vector<int>& moe_layers, int layers) {
  std::vector<int> pattern(static_cast<std::size_t>(layers), 0);
  for (int i : moe_layers) {
    if (i < 0 || i >= layers) r.bad(key, "names layer " + std::to_string(i) + " of a model with " + std::to_string(layers) + " layers");
    pattern[static_cast<std::size_t>(i)] = 1;
  }
  return pattern;
}

void set_pattern(Workload& w, std::vector<int> pattern) {
  w.moe_layers = static_cast<int>(std::count(pattern.begin(), pattern.end(), 1));
  w.moe_layer_pattern = std::move(pattern);
}

// Dense decoders (Llama 2/3/3.1, Mistral, Qwen2, Qwen3): GQA attention and one SwiGLU MLP per
// layer; biases and norms are under 0.1% of the parameters and left out.
void read_dense(Reader& r, WorkloadFile& f) {
  Workload& w = f.workload;
  const Common c = read_common(r, w);
  f.attention = gqa(c, w);
  w.ffn_hidden = r.need("intermediate_size", "MLP width");
  w.experts = 1;
  w.top_k = 1;
  w.moe_layers = -1;
}

// Mixtral, gpt-oss, OLMoE and Grok-1: every layer an MoE layer, intermediate_size one expert's width.
void read_every_layer_moe(Reader& r, WorkloadFile& f, const std::string& family) {
  Workload& w = f.workload;
  const Common c = read_common(r, w);
  f.attention = gqa(c, w);
  const bool local = family == "mixtral" || family == "gpt_oss";
  w.experts = r.need(local ? "num_local_experts" : "num_experts", "experts per MoE layer");
  w.top_k = r.need("num_experts_per_tok", "experts per token");
  if (family == "gpt_oss" && r.optional("experts_per_token", w.top_k) != w.top_k) {
    r.bad("experts_per_token", "differs from num_experts_per_tok; the published file has them equal");
  }
  w.ffn_hidden = r.need("intermediate_size", "width of one expert");
  w.moe_layers = -1;
}

// Qwen3-MoE's and Qwen3-Next's rule (transformers): layer i is sparse unless listed in
// mlp_only_layers, and only every decoder_sparse_step-th layer ((i+1) % step == 0) is.
void read_qwen_sparse_layers(Reader& r, Workload& w) {
  w.experts = r.need("num_experts", "experts per MoE layer");
  w.top_k = r.need("num_experts_per_tok", "experts per token");
  w.moe_ffn_hidden = r.need("moe_intermediate_size", "width of one expert");
  const int step = r.optional("decoder_sparse_step", 1, 1);
  const auto dense_only = r.int_list("mlp_only_layers");
  std::vector<int> pattern(static_cast<std::size_t>(w.layers), 0);
  for (int i = 0; i < w.layers; ++i) {
    const bool dense = std::find(dense_only.begin(), dense_only.end(), i) != dense_only.end();
    pattern[static_cast<std::size_t>(i)] = !dense && (i + 1) % step == 0 ? 1 : 0;
  }
  set_pattern(w, std::move(pattern));
}

// DeepSeek-V3's MoE layers, also Kimi K2's and GLM-4.5's: routed and shared experts of
// moe_intermediate_size; layer i is MoE when i >= first_k_dense_replace and i % moe_layer_freq
// == 0, the first layers keeping a dense MLP of intermediate_size. Multi-token prediction layers
// are counted in explore's memory only.
void read_deepseek_moe(Reader& r, WorkloadFile& f) {
  Workload& w = f.workload;
  w.experts = r.need("n_routed_experts", "routed experts per MoE layer");
  w.top_k = r.need("num_experts_per_tok", "routed experts per token");
  w.moe_ffn_hidden = r.need("moe_intermediate_size", "width of one expert");
  w.ffn_hidden = r.need("intermediate_size", "width of the dense first layers' MLP");
  // Megatron's --moe-shared-expert-intermediate-size is the shared experts' total width.
  w.shared_expert_ffn_hidden = r.need("n_shared_experts", "shared experts per MoE layer", 0) * w.moe_ffn_hidden;
  const int first_dense = r.need("first_k_dense_replace", "dense layers before the MoE layers", 0);
  const int freq = r.optional("moe_layer_freq", 1, 1);
  std::vector<int> pattern(static_cast<std::size_t>(w.layers), 0);
  for (int i = first_dense; i < w.layers; ++i) pattern[static_cast<std::size_t>(i)] = i % freq == 0 ? 1 : 0;
  set_pattern(w, std::move(pattern));
  const int mtp = r.optional("num_nextn_predict_layers", 0);
  if (mtp > 0) {
    w.mtp_layers = mtp;
    f.notes.push_back("num_nextn_predict_layers " + std::to_string(mtp) +
                      ": the multi-token-prediction module is counted in explore's memory only (not in traffic)");
  }
}

// Qwen3-Next: full (gated) attention on every full_attention_interval-th layer, Gated DeltaNet
// linear attention on the rest (transformers' Qwen3NextConfig, or its layer_types list). The
// per-layer attention parameters are the mean over the two kinds, so the model's count is
// exact; K/V for a CP ring are the full-attention layers'.
void read_qwen3_next(Reader& r, WorkloadFile& f) {
  Workload& w = f.workload;
  const Common c = read_common(r, w);
  (void)gqa(c, w);
  auto types = r.string_list("layer_types");
  if (types.empty()) {
    const int interval = r.need("full_attention_interval", "every how many layers one has full attention");
    for (int i = 0; i < c.layers; ++i) types.emplace_back((i + 1) % interval == 0 ? "full_attention" : "linear_attention");
  } else {
    r.mark_used("full_attention_interval");
  }
  if (static_cast<int>(types.size()) != c.layers)
    r.bad("layer_types", "lists " + std::to_string(types.size()) + " layers, not num_hidden_layers");
  const int full = static_cast<int>(std::count(types.begin(), types.end(), "full_attention"));
  if (full + static_cast<int>(std::count(types.begin(), types.end(), "linear_attention")) != c.layers) {
    r.bad("layer_types", "must list only \"full_attention\" and \"linear_attention\"");
  }
  const double h = c.hidden;
  // Gated attention: Q's projection also produces the output gate (2 × heads·d).
  const double full_params = h * 2.0 * c.heads * c.head_dim + 2.0 * h * c.kv_heads * c.head_dim + h * c.heads * c.head_dim;
  const double key_heads = r.need("linear_num_key_heads", "linear attention key heads");
  const double value_heads = r.need("linear_num_value_heads", "linear attention value heads");
  const double key_dim = key_heads * r.need("linear_key_head_dim", "linear attention key width per head");
  const double value_dim = value_heads * r.need("linear_value_head_dim", "linear attention value width per head");
  const double conv = r.need("linear_conv_kernel_dim", "linear attention convolution width");
  // in_proj_qkvz, in_proj_ba, the causal convolution over Q, K and V, out_proj.
  const double linear_params =
      h * (2.0 * key_dim + 2.0 * value_dim) + h * 2.0 * value_heads + conv * (2.0 * key_dim + value_dim) + value_dim * h;
  w.attention_params = (full * full_params + (c.layers - full) * linear_params) / c.layers;
  w.full_attention_layers = full;
  f.attention = "hybrid: " + std::to_string(full) + " gated-attention layers (" + std::to_string(c.heads) + " heads, " +
                std::to_string(c.kv_heads) + " K/V heads of " + std::to_string(c.head_dim) + ") and " + std::to_string(c.layers - full) +
                " Gated DeltaNet linear-attention layers";
  read_qwen_sparse_layers(r, w);
  w.ffn_hidden = r.optional("intermediate_size", w.moe_ffn_hidden, 1);  // the dense MLP of mlp_only_layers, if any
  w.shared_expert_ffn_hidden = r.optional("shared_expert_intermediate_size", 0);
}

// Llama 4 (its text_config; the vision encoder is not trained by this step's traffic): routed
// experts of intermediate_size plus one shared expert of the same width on the MoE layers, which
// are every interleave_moe_layer_step-th layer (or the listed moe_layers); the other layers keep
// a dense MLP of intermediate_size_mlp.
void read_llama4_text(Reader& r, WorkloadFile& f) {
  Workload& w = f.workload;
  const Common c = read_common(r, w);
  f.attention = gqa(c, w);
  w.experts = r.need("num_local_experts", "experts per MoE layer");
  w.top_k = r.need("num_experts_per_tok", "experts per token");
  w.moe_ffn_hidden = r.need("intermediate_size", "width of one expert");
  w.shared_expert_ffn_hidden = w.moe_ffn_hidden;
  w.ffn_hidden = r.need("intermediate_size_mlp", "width of the dense layers' MLP");
  const int step = r.optional("interleave_moe_layer_step", 1, 1);
  auto listed = r.int_list("moe_layers");
  if (listed.empty()) {
    for (int i = step - 1; i < c.layers; i += step) listed.push_back(i);
  }
  set_pattern(w, pattern_of(r, "moe_layers", listed, c.layers));
}

}  // namespace

WorkloadFile from_huggingface(const json& j, const std::string& where) {
  const std::string family = family_of(j, where);
  WorkloadFile f;
  Workload& w = f.workload;
  Reader r(j, where, family);
  f.format = "Hugging Face config.json (" + family + ")";
  if (j.contains("_name_or_path") && j["_name_or_path"].is_string()) w.name = j["_name_or_path"].get<std::string>();

  if (family == "llama" || family == "mistral" || family == "qwen2" || family == "qwen3") {
    read_dense(r, f);
  } else if (family == "mixtral" || family == "gpt_oss" || family == "olmoe" || family == "grok-1") {
    read_every_layer_moe(r, f, family);
  } else if (family == "qwen3_moe") {
    const Common c = read_common(r, w);
    f.attention = gqa(c, w);
    read_qwen_sparse_layers(r, w);
    w.ffn_hidden = r.need("intermediate_size", "width of the dense MLP of mlp_only_layers");
  } else if (family == "qwen3_next") {
    read_qwen3_next(r, f);
  } else if (family == "deepseek_v3" || family == "kimi_k2") {
    const Common c = read_common(r, w);
    f.attention = mla(r, c, w);
    read_deepseek_moe(r, f);
  } else if (family == "glm4_moe") {
    const Common c = read_common(r, w);
    f.attention = gqa(c, w);
    read_deepseek_moe(r, f);
  } else if (family == "llama4") {
    if (!j.contains("text_config") || !j["text_config"].is_object())
      r.bad("text_config", "is missing: a Llama 4 config keeps its language model there");
    // The language model's sizes, dtype and embeddings are text_config's; the top level repeats some.
    for (const char* key : {"text_config", "vision_config", "tie_word_embeddings", "torch_dtype", "dtype"}) r.mark_used(key);
    Reader text(j["text_config"], where + " text_config", family);
    read_llama4_text(text, f);
    w.dtype = text.has("torch_dtype") || text.has("dtype") ? text.dtype(f.notes) : r.dtype(f.notes);
    for (auto& key : text.leftovers()) f.ignored.push_back("text_config." + key);
    if (j.contains("vision_config")) f.notes.push_back("vision_config: the vision encoder is not counted (a text pre-training step)");
  } else {
    throw InputError("Hugging Face config " + where + ": model type '" + family + "' is not one meshbench reads; supported: " + kSupported +
                     " (or write a meshbench workload file, docs/mapping.md)");
  }
  if (family != "llama4") w.dtype = r.dtype(f.notes);
  auto outer = r.leftovers();
  f.ignored.insert(f.ignored.begin(), outer.begin(), outer.end());
  if (j.contains("quantization_config")) f.notes.push_back("quantization_config describes stored weights; traffic uses " + w.dtype);
  check_model_shape(w, where);
  return f;
}

}  // namespace meshbench::mapping::detail
