#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "common/strings.hpp"
#include "json_file.hpp"
#include "mapping/workload.hpp"

namespace meshbench::mapping {

namespace {

using nlohmann::json;

// One key of the file: reads it into the workload, or says what is wrong with it.
struct Key {
  const char* name;
  void (*read)(Workload&, const json&, const std::string& where);
  json (*write)(const Workload&);
};

[[noreturn]] void bad(const std::string& where, const std::string& key, const std::string& problem) {
  throw InputError("workload " + where + ": '" + key + "' " + problem);
}

int positive_int(const json& v, const std::string& where, const std::string& key, int minimum) {
  if (!v.is_number_integer()) bad(where, key, "must be an integer");
  const auto i = v.get<long long>();
  if (i < minimum || i > 1'000'000'000) bad(where, key, "must be at least " + std::to_string(minimum) + " (got " + std::to_string(i) + ")");
  return static_cast<int>(i);
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

#define MESHBENCH_INT_KEY(field, minimum)                                                                                                 \
  Key {                                                                                                                                   \
#field,                                                                                                                               \
        [](Workload & w, const json& v,                                                                                                   \
           const std::string& where) { w.field = positive_int(v, where, #field, minimum); },                                              \
                                                                                          [](const Workload& w) { return json(w.field); } \
  }

const Key kKeys[] = {
    {"name",
     [](Workload& w, const json& v, const std::string& where) {
       if (!v.is_string()) bad(where, "name", "must be a string");
       w.name = v.get<std::string>();
     },
     [](const Workload& w) { return json(w.name); }},
    MESHBENCH_INT_KEY(layers, 1),
    MESHBENCH_INT_KEY(hidden, 1),
    MESHBENCH_INT_KEY(ffn_hidden, 1),
    MESHBENCH_INT_KEY(kv_hidden, 1),
    MESHBENCH_INT_KEY(seq_len, 1),
    MESHBENCH_INT_KEY(micro_batch, 1),
    MESHBENCH_INT_KEY(micro_batches, 1),
    MESHBENCH_INT_KEY(experts, 0),
    MESHBENCH_INT_KEY(top_k, 1),
    MESHBENCH_INT_KEY(vocab, 1),
    {"moe_layers",
     [](Workload& w, const json& v, const std::string& where) {
       w.moe_layers = v.is_number_integer() && v.get<long long>() == -1 ? -1 : positive_int(v, where, "moe_layers", 0);
     },
     [](const Workload& w) { return json(w.moe_layers); }},
    {"dtype", [](Workload& w, const json& v, const std::string& where) { w.dtype = dtype_name(v, where, "dtype"); },
     [](const Workload& w) { return json(w.dtype); }},
    {"grad_dtype", [](Workload& w, const json& v, const std::string& where) { w.grad_dtype = dtype_name(v, where, "grad_dtype"); },
     [](const Workload& w) { return json(w.grad_dtype); }},
    {"dense_params", [](Workload& w, const json& v, const std::string& where) { w.dense_params = nonneg_number(v, where, "dense_params"); },
     [](const Workload& w) { return json(w.dense_params); }},
    {"expert_params",
     [](Workload& w, const json& v, const std::string& where) { w.expert_params = nonneg_number(v, where, "expert_params"); },
     [](const Workload& w) { return json(w.expert_params); }},
    {"capacity_factor",
     [](Workload& w, const json& v, const std::string& where) {
       w.capacity_factor = nonneg_number(v, where, "capacity_factor");
       if (w.capacity_factor <= 0) bad(where, "capacity_factor", "must be above 0");
     },
     [](const Workload& w) { return json(w.capacity_factor); }},
    {"sequence_parallel",
     [](Workload& w, const json& v, const std::string& where) { w.sequence_parallel = boolean(v, where, "sequence_parallel"); },
     [](const Workload& w) { return json(w.sequence_parallel); }},
    {"distributed_optimizer",
     [](Workload& w, const json& v, const std::string& where) { w.distributed_optimizer = boolean(v, where, "distributed_optimizer"); },
     [](const Workload& w) { return json(w.distributed_optimizer); }},
};
#undef MESHBENCH_INT_KEY

std::string known_keys() {
  return join(kKeys, ", ", [](const auto& k) { return std::string_view(k.name); });
}

}  // namespace

Workload workload_from_json(const json& j, const std::string& where) {
  if (!j.is_object()) throw InputError("workload " + where + " must be a JSON object of model sizes; see docs/mapping.md");
  Workload w;
  for (const auto& [key, value] : j.items()) {
    const Key* found = nullptr;
    for (const auto& k : kKeys) {
      if (key == k.name) found = &k;
    }
    if (found == nullptr) throw InputError("workload " + where + ": unknown key '" + key + "'; known keys: " + known_keys());
    found->read(w, value, where);
  }
  if (w.top_k > std::max(w.experts, 1)) {
    throw InputError("workload " + where + ": top_k " + std::to_string(w.top_k) + " exceeds experts " + std::to_string(w.experts));
  }
  return w;
}

Workload load_workload(const std::string& path) { return workload_from_json(detail::read_json_file(path, "workload"), "'" + path + "'"); }

nlohmann::json to_json(const Workload& w) {
  json j = json::object();
  for (const auto& k : kKeys) j[k.name] = k.write(w);
  return j;
}

}  // namespace meshbench::mapping
