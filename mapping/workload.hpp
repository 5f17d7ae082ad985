#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "mapping/layout.hpp"
#include "mapping/ops.hpp"

namespace meshbench::mapping {

// The model side, from which each dimension's message sizes per step follow
// (reference/mapping-anchors.md §7). Read from a JSON file (`--workload FILE`).
struct Workload {
  std::string name;
  int layers = 32;
  int hidden = 4096;
  int ffn_hidden = 14336;
  int kv_hidden = 1024;        // K/V width (GQA); CP ring traffic
  int seq_len = 4096;
  int micro_batch = 1;
  int micro_batches = 8;       // per step (gradient accumulation / pipeline depth)
  int experts = 8;             // 0 or 1: a dense model
  int top_k = 2;
  std::string dtype = "bf16";  // activations: bf16 | fp16 | fp32 | fp8
  std::string grad_dtype = "fp32";
  double dense_params = 0;     // parameters outside the experts; 0 = derive from the sizes
  double expert_params = 0;    // parameters of all experts together; 0 = derive from the sizes
  bool operator==(const Workload&) const = default;
};

// One op a dimension runs per training step: its per-rank size in nccl-tests' convention and
// how many times it runs per step.
struct OpTraffic {
  Dim dim;
  Op op;
  std::uint64_t bytes;
  double calls_per_step;
};

}  // namespace meshbench::mapping
