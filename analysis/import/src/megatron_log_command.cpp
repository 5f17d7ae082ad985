// meshbench import megatron-log: a Megatron-LM training log read and summarised as `explore
// --measured` will use it (the step time, the layout and job the arguments state, memory), so
// that a user sees what was understood before fitting anything to it.
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "analysis/import/import_command.hpp"
#include "common/error.hpp"
#include "common/strings.hpp"
#include "mapping/training_log.hpp"

namespace meshbench::analysis {

namespace {

constexpr const char* kMegatronLogSummary =
    "Read a Megatron-LM training log as it was printed or pasted (its arguments block, the training loop's iteration lines and\n"
    "the memory reports; other lines are skipped and counted) and print what 'meshbench explore --measured LOG' takes from it:\n"
    "the step time (the median of the iteration lines after the first, which carries the start-up), the throughput per GPU,\n"
    "skipped and NaN iterations, the largest memory report, and the layout and job the arguments state.";

template <class T>
nlohmann::json or_null(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::ordered_json log_json(const mapping::TrainingLog& log, const mapping::MeasuredStep& step, const mapping::LoggedJob& job) {
  nlohmann::ordered_json j;
  j["log"] = log.path;
  j["iteration_lines"] = log.iterations.size();
  j["first_iteration"] = log.iterations.front().iteration;
  j["last_iteration"] = log.iterations.back().iteration;
  j["of_iterations"] = log.iterations.back().of;
  j["step_ms"] = step.step_ms;
  j["lines_in_median"] = step.intervals_used;
  j["first_line_ms"] = log.iterations.front().elapsed_ms;
  j["tflops_per_gpu"] = or_null(step.tflops_per_gpu);
  j["skipped_iterations"] = step.skipped_iterations;
  j["nan_iterations"] = step.nan_iterations;
  j["max_allocated_gib"] = or_null(step.max_allocated_gib);
  j["max_reserved_gib"] = or_null(step.max_reserved_gib);
  j["memory_reports"] = log.memory.size();
  j["layout"] = {{"tp", or_null(job.tp)},   {"pp", or_null(job.pp)},   {"cp", or_null(job.cp)},      {"ep", or_null(job.ep)},
                 {"etp", or_null(job.etp)}, {"vpp", or_null(job.vpp)}, {"world", or_null(job.world)}};
  j["job"] = {{"micro_batch", or_null(job.micro_batch)},
              {"global_batch", or_null(job.global_batch)},
              {"seq_len", or_null(job.seq_len)},
              {"layers", or_null(job.layers)},
              {"precision", or_null(job.precision)},
              {"recompute", job.recompute ? nlohmann::json(mapping::to_string(*job.recompute)) : nlohmann::json(nullptr)},
              {"distributed_optimizer", or_null(job.distributed_optimizer)},
              {"dispatcher", or_null(job.dispatcher)}};
  j["arguments"] = log.arguments.size();
  j["lines"] = log.lines;
  j["lines_skipped"] = log.skipped;
  return j;
}

std::string size_or_unknown(const std::optional<int>& v) { return v ? std::to_string(*v) : std::string("?"); }

void print_text(const mapping::TrainingLog& log, const mapping::MeasuredStep& step, const mapping::LoggedJob& job) {
  const auto& first = log.iterations.front();
  const auto& last = log.iterations.back();
  std::cout << "meshbench import megatron-log: " << log.path << "\n"
            << "  iteration lines: " << log.iterations.size() << " (iterations " << first.iteration << "-" << last.iteration << " of "
            << last.of << ")\n"
            << "  step time: " << fixed(step.step_ms, 1) << " ms, the median of " << step.intervals_used << " line(s)"
            << (step.intervals_used < static_cast<int>(log.iterations.size())
                    ? " after the first (" + fixed(first.elapsed_ms, 1) + " ms: start-up)"
                    : "")
            << "\n";
  if (step.tflops_per_gpu) std::cout << "  throughput per GPU: " << fixed(*step.tflops_per_gpu, 1) << " TFLOP/s (Megatron's count)\n";
  std::cout << "  skipped iterations: " << step.skipped_iterations << ", NaN iterations: " << step.nan_iterations << "\n";
  if (step.max_allocated_gib) {
    std::cout << "  memory: max allocated " << fixed(*step.max_allocated_gib, 1) << " GiB, max reserved "
              << fixed(*step.max_reserved_gib, 1) << " GiB (" << log.memory.size() << " report(s))\n";
  }
  if (log.arguments.empty()) {
    std::cout << "  layout: not stated (no arguments block); give it to explore as --measured-layout tp=N,pp=N,ep=N,...\n";
  } else {
    std::cout << "  layout: TP" << size_or_unknown(job.tp) << " PP" << size_or_unknown(job.pp) << " VPP" << size_or_unknown(job.vpp)
              << " CP" << size_or_unknown(job.cp) << " EP" << size_or_unknown(job.ep) << " ETP" << size_or_unknown(job.etp) << " on "
              << size_or_unknown(job.world) << " GPUs; micro-batch " << size_or_unknown(job.micro_batch) << ", global batch "
              << size_or_unknown(job.global_batch) << ", sequence " << size_or_unknown(job.seq_len) << ", " << size_or_unknown(job.layers)
              << " layers, " << job.precision.value_or("?") << ", recompute "
              << (job.recompute ? mapping::to_string(*job.recompute) : std::string("?")) << "\n";
  }
  std::cout << "  lines skipped: " << log.skipped << " of " << log.lines << " (start-up output and text around the training loop)\n";
}

}  // namespace

int import_megatron_log(const Args& args) {
  std::string path, format;
  po::options_description desc("import megatron-log options");
  // clang-format off
  desc.add_options()
      ("log", po::value(&path)->value_name("LOG"), "the training log (positional)")
      ("format", po::value(&format)->default_value("text"), "output format: text|json");
  // clang-format on
  po::positional_options_description positional;
  positional.add("log", 1);
  const auto vm = parse_command("import megatron-log", kMegatronLogSummary, desc, args, std::cout, &positional);
  if (!vm) return kExitOk;
  const OutputFormat output = parse_output_format(format, {OutputFormat::text, OutputFormat::json});
  if (path.empty()) throw InputError("import megatron-log needs the log: meshbench import megatron-log LOG");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot read log '" + path + "'; give an existing file");
  const mapping::TrainingLog log = mapping::parse_megatron_log(in, path);
  const mapping::MeasuredStep step = mapping::measured_step(log);
  const mapping::LoggedJob job = mapping::logged_job(log);
  if (output == OutputFormat::json) {
    std::cout << log_json(log, step, job).dump(2) << "\n";
  } else {
    print_text(log, step, job);
  }
  return kExitOk;
}

}  // namespace meshbench::analysis
