// A Hugging Face config.json of an MoE model, as published on the model's page, into a Workload.
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

constexpr const char* kSupported = "mixtral, deepseek_v3, qwen3_moe, olmoe, gpt_oss";

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
                                            "experts_per_token"};

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
  if (j.contains("model_type") && j["model_type"].is_string()) return j["model_type"].get<std::string>();
  static const std::map<std::string, std::string> classes = {{"MixtralForCausalLM", "mixtral"},
                                                             {"DeepseekV3ForCausalLM", "deepseek_v3"},
                                                             {"Qwen3MoeForCausalLM", "qwen3_moe"},
                                                             {"OlmoeForCausalLM", "olmoe"},
                                                             {"GptOssForCausalLM", "gpt_oss"}};
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

}  // namespace

WorkloadFile from_huggingface(const json& j, const std::string& where) {
  const std::string family = family_of(j, where);
  WorkloadFile f;
  Workload& w = f.workload;
  Reader r(j, where, family);
  f.format = "Hugging Face config.json (" + family + ")";
  if (j.contains("_name_or_path") && j["_name_or_path"].is_string()) w.name = j["_name_or_path"].get<std::string>();

  if (family == "mixtral" || family == "gpt_oss" || family == "olmoe") {
    // Every layer is an MoE layer; intermediate_size is the width of one expert.
    const Common c = read_common(r, w);
    f.attention = gqa(c, w);
    const bool local = family != "olmoe";
    w.experts = r.need(local ? "num_local_experts" : "num_experts", "experts per MoE layer");
    w.top_k = r.need("num_experts_per_tok", "experts per token");
    if (family == "gpt_oss" && r.optional("experts_per_token", w.top_k) != w.top_k) {
      r.bad("experts_per_token", "differs from num_experts_per_tok; the published file has them equal");
    }
    w.ffn_hidden = r.need("intermediate_size", "width of one expert");
    w.moe_layers = -1;
  } else if (family == "qwen3_moe") {
    const Common c = read_common(r, w);
    f.attention = gqa(c, w);
    w.experts = r.need("num_experts", "experts per MoE layer");
    w.top_k = r.need("num_experts_per_tok", "experts per token");
    w.moe_ffn_hidden = r.need("moe_intermediate_size", "width of one expert");
    w.ffn_hidden = r.need("intermediate_size", "width of the dense MLP of mlp_only_layers");
    // transformers' Qwen3-MoE: layer i is sparse unless listed in mlp_only_layers, and only
    // every decoder_sparse_step-th layer ((i+1) % step == 0) is.
    const int step = r.optional("decoder_sparse_step", 1, 1);
    const auto dense_only = r.int_list("mlp_only_layers");
    int moe = 0;
    for (int i = 0; i < c.layers; ++i) {
      if (std::find(dense_only.begin(), dense_only.end(), i) == dense_only.end() && (i + 1) % step == 0) ++moe;
    }
    w.moe_layers = moe;
  } else if (family == "deepseek_v3") {
    const Common c = read_common(r, w);
    f.attention = mla(r, c, w);
    w.experts = r.need("n_routed_experts", "routed experts per MoE layer");
    w.top_k = r.need("num_experts_per_tok", "routed experts per token");
    w.moe_ffn_hidden = r.need("moe_intermediate_size", "width of one expert");
    w.ffn_hidden = r.need("intermediate_size", "width of the dense first layers' MLP");
    // Shared experts: n_shared_experts MLPs of moe_intermediate_size each, run on every token;
    // Megatron's --moe-shared-expert-intermediate-size is their total width.
    w.shared_expert_ffn_hidden = r.need("n_shared_experts", "shared experts per MoE layer", 0) * w.moe_ffn_hidden;
    // DeepSeek's modelling code: layer i is MoE when i >= first_k_dense_replace and
    // i % moe_layer_freq == 0; the first layers keep a dense MLP of intermediate_size.
    const int first_dense = r.need("first_k_dense_replace", "dense layers before the MoE layers", 0);
    const int freq = r.optional("moe_layer_freq", 1, 1);
    int moe = 0;
    for (int i = first_dense; i < c.layers; ++i) moe += (i % freq == 0) ? 1 : 0;
    w.moe_layers = moe;
    const int mtp = r.optional("num_nextn_predict_layers", 0);
    if (mtp > 0) {
      w.mtp_layers = mtp;
      f.notes.push_back("num_nextn_predict_layers " + std::to_string(mtp) +
                        ": the multi-token-prediction module is counted in explore's memory only (not in traffic)");
    }
  } else {
    throw InputError("Hugging Face config " + where + ": model type '" + family + "' is not one meshbench reads; supported: " + kSupported +
                     " (or write a meshbench workload file, docs/mapping.md)");
  }
  w.dtype = r.dtype(f.notes);
  f.ignored = r.leftovers();
  if (j.contains("quantization_config")) f.notes.push_back("quantization_config describes stored weights; traffic uses " + w.dtype);
  check_top_k(w, where);
  return f;
}

}  // namespace meshbench::mapping::detail
