#pragma once
// A Megatron-LM training log as people paste it: the arguments block Megatron prints at start,
// the iteration lines of its training loop and the memory report lines. Read by
// `meshbench import megatron-log` and `explore --measured` (docs/explore.md, "A measured run").
// Pure: text in, values out.
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mapping/training.hpp"

namespace meshbench::mapping {

// One iteration line: the averages over Megatron's log interval that ends at `iteration`.
struct LoggedIteration {
  int iteration = 0, of = 0;
  double elapsed_ms = 0;                 // elapsed time per iteration over the interval
  std::optional<double> tflops_per_gpu;  // "throughput per GPU (TFLOP/s/GPU)", when --log-throughput
  std::optional<double> loss_scale;
  int global_batch = 0;  // 0 when the line does not print it
  int skipped = 0, nan = 0;
  int line = 0;
};

// One "[Rank r] (after n iterations) memory (MB)" report.
struct LoggedMemory {
  int rank = 0, after = 0;
  double allocated_mb = 0, max_allocated_mb = 0, reserved_mb = 0, max_reserved_mb = 0;
};

struct TrainingLog {
  std::string path;
  std::map<std::string, std::string> arguments;  // the arguments block: name -> value as printed
  std::vector<LoggedIteration> iterations;
  std::vector<LoggedMemory> memory;
  int lines = 0;
  int skipped = 0;  // lines that are none of the above (start-up output, prose pasted around it)
};

// InputError, one line, when the text is not a Megatron-LM log (no iteration line and no
// arguments block) or holds no iteration line.
TrainingLog parse_megatron_log(std::istream& in, const std::string& path);

// The step a log measured: the median of its iteration lines after the first (which carries the
// start-up: compilation, first all-reduces), or of all when it has one or two.
struct MeasuredStep {
  double step_ms = 0;
  int intervals_used = 0;
  std::optional<double> tflops_per_gpu;     // median over the same lines
  std::optional<double> max_allocated_gib;  // the largest over ranks and reports
  std::optional<double> max_reserved_gib;
  int skipped_iterations = 0, nan_iterations = 0;  // summed over every line
};
MeasuredStep measured_step(const TrainingLog& log);

// The layout and job the arguments block states; a size it does not print stays unset.
struct LoggedJob {
  std::optional<int> tp, pp, cp, ep, etp, vpp, world;
  std::optional<int> micro_batch, global_batch, seq_len, layers;
  std::optional<std::string> precision;  // bf16 | fp16 | fp8 | fp32
  std::optional<Recompute> recompute;
  std::optional<bool> distributed_optimizer;
  std::optional<std::string> dispatcher;
};
LoggedJob logged_job(const TrainingLog& log);

}  // namespace meshbench::mapping
