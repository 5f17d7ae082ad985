#pragma once
// What explore needs to know of a GPU model besides its links: how much memory a training
// process can use and the dense peak of its tensor cores. Looked up by the model name the
// catalog and discovery report (topology/catalog.hpp).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshbench::topology {

struct GpuSpec {
  std::string match;       // a GPU model name containing this (case-insensitive) has these figures
  double memory_gib = 0;   // total device memory as the driver reports it
  double bf16_tflops = 0;  // dense (no sparsity) BF16 tensor-core peak
  double fp8_tflops = 0;   // dense FP8 peak; 0 = no FP8 tensor cores
  double hbm_tbps = 0;     // memory bandwidth, TB/s: small expert GEMMs are bound by it
  std::string source;
};

const std::vector<GpuSpec>& gpu_specs();
// The entry whose `match` the model name contains, longest match first; nullopt when none does.
std::optional<GpuSpec> find_gpu_spec(std::string_view gpu_model);

}  // namespace meshbench::topology
