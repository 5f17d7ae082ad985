// Megatron-LM's log lines as its training loop prints them (megatron/training/training.py,
// training_log: " iteration N/ M | name: value | ..."), its arguments block
// ("  name ........ value" between the "arguments" rulers) and report_memory's lines.
#include "mapping/training_log.hpp"
#include "common/median.hpp"

#include <algorithm>
#include <regex>

#include "common/error.hpp"
#include "common/strings.hpp"

namespace meshbench::mapping {

namespace {

// Longer lines are no Megatron output (its longest are a few hundred characters).
constexpr std::size_t kLongestLine = 16384;

std::optional<double> number(std::string_view text) {
  const std::string s(trim(text));
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str()) return std::nullopt;
  return v;
}

// " name: value |" fields of an iteration line into `it`.
void read_fields(const std::string& rest, LoggedIteration& it) {
  for (const auto& field : split_nonempty(rest, '|')) {
    const auto colon = field.rfind(':');
    if (colon == std::string::npos) continue;
    const std::string name(trim(std::string_view(field).substr(0, colon)));
    const auto value = number(std::string_view(field).substr(colon + 1));
    if (!value) continue;
    if (name == "elapsed time per iteration (ms)") it.elapsed_ms = *value;
    if (name == "throughput per GPU (TFLOP/s/GPU)") it.tflops_per_gpu = *value;
    if (name == "loss scale") it.loss_scale = *value;
    if (name == "global batch size") it.global_batch = static_cast<int>(*value);
    if (name == "number of skipped iterations") it.skipped = static_cast<int>(*value);
    if (name == "number of nan iterations") it.nan = static_cast<int>(*value);
  }
}

std::optional<int> int_argument(const TrainingLog& log, const std::string& name) {
  const auto it = log.arguments.find(name);
  if (it == log.arguments.end()) return std::nullopt;
  const auto v = number(it->second);
  if (!v || *v != static_cast<int>(*v)) return std::nullopt;  // "None"
  return static_cast<int>(*v);
}

std::optional<std::string> text_argument(const TrainingLog& log, const std::string& name) {
  const auto it = log.arguments.find(name);
  if (it == log.arguments.end() || it->second == "None") return std::nullopt;
  return it->second;
}

}  // namespace

TrainingLog parse_megatron_log(std::istream& in, const std::string& path) {
  // No trailing ".*": libstdc++'s matcher recurses once per character it consumes, so the rest of
  // a line is taken as the match's suffix, and lines past kLongestLine are not matched at all.
  static const std::regex iteration_re(R"(iteration\s+(\d+)/\s*(\d+)\s*\|)");
  static const std::regex memory_re(
      R"(\[Rank (\d+)\] \(after (\d+) iterations\) memory \(MB\) \| allocated: ([0-9.eE+-]+) \| max allocated: ([0-9.eE+-]+) \| reserved: ([0-9.eE+-]+) \| max reserved: ([0-9.eE+-]+))");
  static const std::regex argument_re(R"(^\s+([A-Za-z_][A-Za-z0-9_]*) \.+ )");
  TrainingLog log;
  log.path = path;
  bool in_arguments = false;
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    ++log.lines;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find("------------------------ arguments ------------------------") != std::string::npos) {
      in_arguments = true;
      continue;
    }
    if (line.find("end of arguments") != std::string::npos) {
      in_arguments = false;
      continue;
    }
    if (line.size() > kLongestLine) {
      ++log.skipped;
      continue;
    }
    if (in_arguments && std::regex_search(line, m, argument_re)) {
      log.arguments.emplace(m[1].str(), std::string(trim(m.suffix().str())));
      continue;
    }
    bool known = false;
    if (line.find("elapsed time per iteration (ms)") != std::string::npos && std::regex_search(line, m, iteration_re)) {
      LoggedIteration it;
      it.iteration = std::stoi(m[1].str());
      it.of = std::stoi(m[2].str());
      it.line = log.lines;
      read_fields(m.suffix().str(), it);
      if (it.elapsed_ms > 0) {
        log.iterations.push_back(it);
        known = true;
      }
    }
    for (auto at = std::sregex_iterator(line.begin(), line.end(), memory_re); at != std::sregex_iterator(); ++at) {
      const auto& r = *at;
      log.memory.push_back({std::stoi(r[1].str()), std::stoi(r[2].str()), std::stod(r[3].str()), std::stod(r[4].str()),
                            std::stod(r[5].str()), std::stod(r[6].str())});
      known = true;
    }
    if (!known) ++log.skipped;
  }
  if (log.iterations.empty() && log.arguments.empty()) {
    throw InputError("'" + path +
                     "' is not a Megatron-LM log: no ' iteration N/ M | ... elapsed time per iteration (ms): T |' line and no "
                     "arguments block; give the training job's output (stdout of pretrain_gpt.py or its launcher)");
  }
  if (log.iterations.empty()) {
    throw InputError("'" + path +
                     "' has Megatron-LM's arguments but no iteration line: the run ended before its first log interval "
                     "(--log-interval); give a log of a run that trained at least one interval");
  }
  return log;
}

MeasuredStep measured_step(const TrainingLog& log) {
  MeasuredStep s;
  const std::size_t first = log.iterations.size() > 2 ? 1 : 0;
  std::vector<double> times, tflops;
  for (std::size_t i = first; i < log.iterations.size(); ++i) {
    times.push_back(log.iterations[i].elapsed_ms);
    if (log.iterations[i].tflops_per_gpu) tflops.push_back(*log.iterations[i].tflops_per_gpu);
  }
  for (const auto& it : log.iterations) {
    s.skipped_iterations += it.skipped;
    s.nan_iterations += it.nan;
  }
  s.step_ms = median_of(times);
  s.intervals_used = static_cast<int>(times.size());
  if (!tflops.empty()) s.tflops_per_gpu = median_of(tflops);
  for (const auto& m : log.memory) {
    s.max_allocated_gib = std::max(s.max_allocated_gib.value_or(0), m.max_allocated_mb / 1024.0);
    s.max_reserved_gib = std::max(s.max_reserved_gib.value_or(0), m.max_reserved_mb / 1024.0);
  }
  return s;
}

LoggedJob logged_job(const TrainingLog& log) {
  LoggedJob j;
  j.tp = int_argument(log, "tensor_model_parallel_size");
  j.pp = int_argument(log, "pipeline_model_parallel_size");
  j.cp = int_argument(log, "context_parallel_size");
  j.ep = int_argument(log, "expert_model_parallel_size");
  j.etp = int_argument(log, "expert_tensor_parallel_size");
  j.world = int_argument(log, "world_size");
  j.micro_batch = int_argument(log, "micro_batch_size");
  j.global_batch = int_argument(log, "global_batch_size");
  j.seq_len = int_argument(log, "seq_length");
  j.layers = int_argument(log, "num_layers");
  j.vpp = int_argument(log, "virtual_pipeline_model_parallel_size");
  if (!j.vpp && j.pp && j.layers) {
    const auto per_chunk = int_argument(log, "num_layers_per_virtual_pipeline_stage");
    if (per_chunk && *per_chunk > 0) j.vpp = *j.layers / (*j.pp * *per_chunk);
  }
  if (!j.vpp && !log.arguments.empty() && j.pp) j.vpp = 1;
  if (j.tp && !j.etp && log.arguments.count("expert_tensor_parallel_size") == 0) j.etp = j.tp;  // before ETP existed: experts split as TP
  auto flag = [&](const char* name) { return text_argument(log, name) == std::optional<std::string>("True"); };
  if (text_argument(log, "fp8")) {
    j.precision = "fp8";
  } else if (flag("bf16")) {
    j.precision = "bf16";
  } else if (flag("fp16")) {
    j.precision = "fp16";
  } else if (log.arguments.count("bf16") != 0) {
    j.precision = "fp32";
  }
  if (log.arguments.count("recompute_granularity") != 0) {
    const auto r = text_argument(log, "recompute_granularity");
    j.recompute = !r ? Recompute::none : *r == "full" ? Recompute::full : Recompute::selective;
  }
  if (log.arguments.count("use_distributed_optimizer") != 0) j.distributed_optimizer = flag("use_distributed_optimizer");
  j.dispatcher = text_argument(log, "moe_token_dispatcher_type");
  return j;
}

}  // namespace meshbench::mapping
