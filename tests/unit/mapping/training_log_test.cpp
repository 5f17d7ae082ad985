// Megatron-LM training logs as people published them (tests/data/megatron-logs, SOURCES.md
// there), read unchanged: iteration lines, memory reports and the arguments block. The expected
// figures were taken from the files by a separate script (the median of the elapsed times after
// the first line, the largest "max allocated"), not by this reader.
#include "mapping/training_log.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "common/error.hpp"

namespace meshbench::mapping {

namespace {

const std::string kLogs = std::string(MESHBENCH_TEST_DATA) + "/megatron-logs/";

TrainingLog read_log(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return parse_megatron_log(in, path);
}

TrainingLog log_of_text(const std::string& text) {
  std::istringstream in(text);
  return parse_megatron_log(in, "text");
}

std::string error_of_text(const std::string& text) {
  try {
    (void)log_of_text(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(TrainingLog, PublishedLogsReadUnchanged) {
  const struct {
    const char* file;
    std::size_t iteration_lines;
    double step_ms;
    double max_allocated_gib;  // 0: no memory report
    std::size_t memory_reports;
    bool arguments;
  } logs[] = {
      {"aichipbench-gpt3-175b-64gpu-tp8pp8-mds.log", 6, 346430.5, 0, 0, false},  // Megatron-DeepSpeed, no timestamps
      {"ling-mini-2.0-moe-cpt-8k.log", 10, 10767.4, 61.8748, 1, false},
      {"mbridge-llama3.2-1b-8xh100.log", 1, 4647.8, 11.7223, 1, false},  // one line: its own median
      {"rocm-mi300x-8gpu-tp4pp2.log", 17, 419265.0, 72.3112, 8, true},
      {"seunghyunseo-moe64-top1-ep4-8gpu.log", 15, 625.5, 32.4996, 1, false},
      {"swift-qwen2-0.5b-dp2.log", 12, 719.8, 7.7734, 1, true},
      {"tutorial-gpt2-345m-tp4-core_r0.5.0.log", 20, 385.1, 4.5642, 4, true},  // two reports on one line
  };
  for (const auto& expected : logs) {
    const TrainingLog log = read_log(kLogs + expected.file);
    const MeasuredStep step = measured_step(log);
    EXPECT_EQ(log.iterations.size(), expected.iteration_lines) << expected.file;
    EXPECT_DOUBLE_EQ(step.step_ms, expected.step_ms) << expected.file;
    EXPECT_EQ(log.memory.size(), expected.memory_reports) << expected.file;
    EXPECT_NEAR(step.max_allocated_gib.value_or(0), expected.max_allocated_gib, 1e-3) << expected.file;
    EXPECT_EQ(!log.arguments.empty(), expected.arguments) << expected.file;
    EXPECT_GT(log.lines, 0);
  }
  // The fields beside the time: throughput, skipped iterations (fp16 loss scaling), the total.
  const MeasuredStep ling = measured_step(read_log(kLogs + "ling-mini-2.0-moe-cpt-8k.log"));
  ASSERT_TRUE(ling.tflops_per_gpu);
  const TrainingLog gpt2 = read_log(kLogs + "tutorial-gpt2-345m-tp4-core_r0.5.0.log");
  EXPECT_EQ(gpt2.iterations.front().skipped, 10);
  EXPECT_EQ(measured_step(gpt2).skipped_iterations, 15);
  EXPECT_EQ(gpt2.iterations.back().iteration, 200);
  EXPECT_EQ(gpt2.iterations.back().of, 200);
  EXPECT_EQ(gpt2.iterations.back().global_batch, 16);
}

TEST(TrainingLog, LayoutAndJobFromTheArgumentsBlock) {
  const LoggedJob rocm = logged_job(read_log(kLogs + "rocm-mi300x-8gpu-tp4pp2.log"));
  EXPECT_EQ(rocm.tp, 4);
  EXPECT_EQ(rocm.pp, 2);
  EXPECT_EQ(rocm.cp, 1);
  EXPECT_EQ(rocm.ep, 1);
  EXPECT_EQ(rocm.etp, 4);
  EXPECT_EQ(rocm.vpp, 1);
  EXPECT_EQ(rocm.world, 8);
  EXPECT_EQ(rocm.micro_batch, 1);
  EXPECT_EQ(rocm.global_batch, 512);
  EXPECT_EQ(rocm.seq_len, 8192);
  EXPECT_EQ(rocm.layers, 56);
  EXPECT_EQ(rocm.precision, "bf16");
  EXPECT_EQ(rocm.recompute, Recompute::selective);
  EXPECT_EQ(rocm.distributed_optimizer, true);
  EXPECT_EQ(rocm.dispatcher, "allgather");
  // Megatron core_r0.5.0 printed no expert_tensor_parallel_size: experts were split as TP.
  const LoggedJob gpt2 = logged_job(read_log(kLogs + "tutorial-gpt2-345m-tp4-core_r0.5.0.log"));
  EXPECT_EQ(gpt2.etp, 4);
  EXPECT_EQ(gpt2.precision, "fp16");
  EXPECT_EQ(gpt2.recompute, Recompute::none);
  EXPECT_EQ(gpt2.distributed_optimizer, false);
  const LoggedJob swift = logged_job(read_log(kLogs + "swift-qwen2-0.5b-dp2.log"));
  EXPECT_EQ(swift.world, 2);
  EXPECT_EQ(swift.global_batch, 8);
  // No arguments block: nothing is guessed.
  const LoggedJob ling = logged_job(read_log(kLogs + "ling-mini-2.0-moe-cpt-8k.log"));
  EXPECT_FALSE(ling.tp);
  EXPECT_FALSE(ling.world);
  EXPECT_FALSE(ling.precision);
}

// The first line carries the start-up only when there are three or more to take the median of.
TEST(TrainingLog, FirstLineLeftOutOnlyWithThreeOrMore) {
  auto line = [](int i, double ms) {
    return " iteration " + std::to_string(i) + "/ 10 | elapsed time per iteration (ms): " + std::to_string(ms) +
           " | number of skipped iterations:   0 |\n";
  };
  EXPECT_DOUBLE_EQ(measured_step(log_of_text(line(1, 900) + line(2, 100))).step_ms, 500);
  EXPECT_DOUBLE_EQ(measured_step(log_of_text(line(1, 900) + line(2, 100) + line(3, 110))).step_ms, 105);
  EXPECT_EQ(measured_step(log_of_text(line(1, 900) + line(2, 100) + line(3, 110))).intervals_used, 2);
  // A line no Megatron prints (a megabyte long) is skipped, not matched character by character.
  const TrainingLog long_line = log_of_text(line(1, 900) + " iteration 2/ 10 | elapsed time per iteration (ms): 5.0 |" +
                                            std::string(1 << 20, '|') + "\n" + line(3, 110));
  EXPECT_EQ(long_line.iterations.size(), 2U);
  EXPECT_EQ(long_line.skipped, 1);
}

TEST(TrainingLog, BadInputIsOneLineNamingTheWayOut) {
  // Another tool's log (nccl-tests), unchanged.
  std::ifstream nccl(std::string(MESHBENCH_TEST_DATA) + "/import/nccl-tests/all_reduce_perf.log");
  std::ostringstream text;
  text << nccl.rdbuf();
  const std::string not_megatron = error_of_text(text.str());
  EXPECT_NE(not_megatron.find("is not a Megatron-LM log"), std::string::npos) << not_megatron;
  EXPECT_EQ(not_megatron.find('\n'), std::string::npos);
  // A run that ended before its first log interval: the rocm log up to its arguments' end.
  std::ifstream rocm(kLogs + "rocm-mi300x-8gpu-tp4pp2.log");
  std::string head, l;
  while (std::getline(rocm, l)) {
    head += l + "\n";
    if (l.find("end of arguments") != std::string::npos) break;
  }
  const std::string no_iterations = error_of_text(head);
  EXPECT_NE(no_iterations.find("no iteration line"), std::string::npos) << no_iterations;
  EXPECT_EQ(no_iterations.find('\n'), std::string::npos);
  EXPECT_NE(error_of_text("").find("is not a Megatron-LM log"), std::string::npos);
}

}  // namespace meshbench::mapping
