#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "common/json_integer.hpp"
#include "common/strings.hpp"
#include "mapping/workload.hpp"
#include "workload_formats.hpp"

namespace meshbench::mapping {

namespace {

using nlohmann::json;

// One key of the file: reads it into the workload, or says what is wrong with it. Training keys
// are those a model's own config lacks, the ones an overlay may set.
struct Key {
  const char* name;
  void (*read)(Workload&, const json&, const std::string& where);
  json (*write)(const Workload&);
  bool training = false;
};

[[noreturn]] void bad(const std::string& where, const std::string& key, const std::string& problem) {
  throw InputError("workload " + where + ": '" + key + "' " + problem);
}

int positive_int(const json& v, const std::string& where, const std::string& key, int minimum) {
  if (!v.is_number_integer()) bad(where, key, "must be an integer");
  const auto i = json_integer<long long>(v);
  if (!i || *i < minimum || *i > 1'000'000'000)
    bad(where, key, "must be at least " + std::to_string(minimum) + " and at most 1000000000 (got " + v.dump() + ")");
  return static_cast<int>(*i);
}

double nonneg_number(const json& v, const std::string& where, const std::string& key) {
  if (!v.is_number()) bad(where, key, "must be a number");
  const double d = v.get<double>();
  if (!(d >= 0)) bad(where, key, "must not be negative");
  return d;
}

std::string dtype_name(const json& v, const std::string& where, const std::string& key) {
  if (!v.is_string()) bad(where, key, "must be a string");
  std::string s = v.get<std::string>();
  try {
    (void)dtype_bytes(s);
  } catch (const InputError&) {
    bad(where, key, "is '" + s + "'; use bf16, fp16, fp32 or fp8");
  }
  return s;
}

bool boolean(const json& v, const std::string& where, const std::string& key) {
  if (!v.is_boolean()) bad(where, key, "must be true or false");
  return v.get<bool>();
}

#define MESHBENCH_INT_KEY(field, minimum, training)                                                                                      \
  Key {                                                                                                                                  \
#field, [](Workload & w, const json& v,                                                                                              \
               const std::string&                                                                                                        \
                   where) { w.field = positive_int(v, where, #field, minimum); }, [](const Workload& w) { return json(w.field); },       \
                                                                                                                                training \
  }

const Key kKeys[] = {
    {"name",
     [](Workload& w, const json& v, const std::string& where) {
       if (!v.is_string()) bad(where, "name", "must be a string");
       w.name = v.get<std::string>();
     },
     [](const Workload& w) { return json(w.name); }, true},
    MESHBENCH_INT_KEY(layers, 1, false),
    MESHBENCH_INT_KEY(hidden, 1, false),
    MESHBENCH_INT_KEY(ffn_hidden, 1, false),
    MESHBENCH_INT_KEY(moe_ffn_hidden, 0, false),
    MESHBENCH_INT_KEY(shared_expert_ffn_hidden, 0, false),
    MESHBENCH_INT_KEY(kv_hidden, 1, false),
    MESHBENCH_INT_KEY(heads, 0, false),
    MESHBENCH_INT_KEY(kv_heads, 0, false),
    MESHBENCH_INT_KEY(mtp_layers, 0, false),
    MESHBENCH_INT_KEY(seq_len, 1, true),
    MESHBENCH_INT_KEY(micro_batch, 1, true),
    MESHBENCH_INT_KEY(micro_batches, 1, true),
    MESHBENCH_INT_KEY(global_batch, 0, true),
    MESHBENCH_INT_KEY(experts, 0, false),
    MESHBENCH_INT_KEY(top_k, 1, false),
    MESHBENCH_INT_KEY(vocab, 1, false),
    {"moe_layers",
     [](Workload& w, const json& v, const std::string& where) {
       w.moe_layers = json_integer<int>(v) == -1 ? -1 : positive_int(v, where, "moe_layers", 0);
     },
     [](const Workload& w) { return json(w.moe_layers); }},
    {"moe_layer_pattern",
     [](Workload& w, const json& v, const std::string& where) {
       if (!v.is_array()) bad(where, "moe_layer_pattern", "must be a list of 0 and 1, one per layer");
       w.moe_layer_pattern.clear();
       for (const auto& item : v) {
         const auto i = json_integer<int>(item);
         if (!i || (*i != 0 && *i != 1)) bad(where, "moe_layer_pattern", "must be a list of 0 and 1, one per layer");
         w.moe_layer_pattern.push_back(*i);
       }
     },
     [](const Workload& w) { return json(w.moe_layer_pattern); }},
    {"full_attention_layers",
     [](Workload& w, const json& v, const std::string& where) {
       w.full_attention_layers = json_integer<int>(v) == -1 ? -1 : positive_int(v, where, "full_attention_layers", 0);
     },
     [](const Workload& w) { return json(w.full_attention_layers); }},
    {"dtype", [](Workload& w, const json& v, const std::string& where) { w.dtype = dtype_name(v, where, "dtype"); },
     [](const Workload& w) { return json(w.dtype); }, true},
    {"grad_dtype", [](Workload& w, const json& v, const std::string& where) { w.grad_dtype = dtype_name(v, where, "grad_dtype"); },
     [](const Workload& w) { return json(w.grad_dtype); }, true},
    {"dense_params", [](Workload& w, const json& v, const std::string& where) { w.dense_params = nonneg_number(v, where, "dense_params"); },
     [](const Workload& w) { return json(w.dense_params); }},
    {"expert_params",
     [](Workload& w, const json& v, const std::string& where) { w.expert_params = nonneg_number(v, where, "expert_params"); },
     [](const Workload& w) { return json(w.expert_params); }},
    {"attention_params",
     [](Workload& w, const json& v, const std::string& where) { w.attention_params = nonneg_number(v, where, "attention_params"); },
     [](const Workload& w) { return json(w.attention_params); }},
    {"gated_mlp", [](Workload& w, const json& v, const std::string& where) { w.gated_mlp = boolean(v, where, "gated_mlp"); },
     [](const Workload& w) { return json(w.gated_mlp); }},
    {"tied_embeddings",
     [](Workload& w, const json& v, const std::string& where) { w.tied_embeddings = boolean(v, where, "tied_embeddings"); },
     [](const Workload& w) { return json(w.tied_embeddings); }},
    {"capacity_factor",
     [](Workload& w, const json& v, const std::string& where) {
       w.capacity_factor = nonneg_number(v, where, "capacity_factor");
       if (w.capacity_factor <= 0) bad(where, "capacity_factor", "must be above 0");
     },
     [](const Workload& w) { return json(w.capacity_factor); }, true},
    {"sequence_parallel",
     [](Workload& w, const json& v, const std::string& where) { w.sequence_parallel = boolean(v, where, "sequence_parallel"); },
     [](const Workload& w) { return json(w.sequence_parallel); }, true},
    {"distributed_optimizer",
     [](Workload& w, const json& v, const std::string& where) { w.distributed_optimizer = boolean(v, where, "distributed_optimizer"); },
     [](const Workload& w) { return json(w.distributed_optimizer); }, true},
};
#undef MESHBENCH_INT_KEY

std::string known_keys(bool training_only) {
  std::vector<std::string_view> names;
  for (const auto& k : kKeys) {
    if (k.training || !training_only) names.emplace_back(k.name);
  }
  return join(names, ", ");
}

}  // namespace

namespace detail {

void apply_workload_keys(Workload& w, const json& j, const std::string& where, bool training_only) {
  if (!j.is_object()) throw InputError("workload " + where + " must be an object of model sizes; see docs/mapping.md");
  for (const auto& [key, value] : j.items()) {
    const Key* found = nullptr;
    for (const auto& k : kKeys) {
      if (key == k.name) found = &k;
    }
    if (found == nullptr) throw InputError("workload " + where + ": unknown key '" + key + "'; known keys: " + known_keys(training_only));
    if (training_only && !found->training) {
      throw InputError("workload " + where + ": '" + key + "' describes the model, which comes from the 'model' file; set only " +
                       known_keys(true) + " beside it");
    }
    found->read(w, value, where);
  }
}

void check_model_shape(const Workload& w, const std::string& where) {
  if (w.top_k > std::max(w.experts, 1)) {
    throw InputError("workload " + where + ": top_k " + std::to_string(w.top_k) + " exceeds experts " + std::to_string(w.experts));
  }
  if (!w.moe_layer_pattern.empty() && w.moe_layer_pattern.size() != static_cast<std::size_t>(w.layers)) {
    throw InputError("workload " + where + ": moe_layer_pattern lists " + std::to_string(w.moe_layer_pattern.size()) + " layers for " +
                     std::to_string(w.layers) + " layers; give one 0 or 1 per layer");
  }
  if (w.full_attention_layers > w.layers) {
    throw InputError("workload " + where + ": full_attention_layers " + std::to_string(w.full_attention_layers) + " exceeds layers " +
                     std::to_string(w.layers));
  }
}

}  // namespace detail

Workload workload_from_json(const json& j, const std::string& where) {
  if (!j.is_object()) throw InputError("workload " + where + " must be a JSON object of model sizes; see docs/mapping.md");
  Workload w;
  detail::apply_workload_keys(w, j, where, false);
  detail::check_model_shape(w, where);
  return w;
}

nlohmann::json to_json(const Workload& w) {
  json j = json::object();
  for (const auto& k : kKeys) j[k.name] = k.write(w);
  return j;
}

}  // namespace meshbench::mapping
