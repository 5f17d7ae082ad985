// Memory is what nvidia-smi reports as total (a little under the marketed figure: the driver
// reserves some); peaks are the dense figures of NVIDIA's datasheets, without the 2x of
// structured sparsity. H800 has H100's SXM peaks (only its NVLink is cut).
#include "topology/gpu_specs.hpp"

#include "common/strings.hpp"

namespace meshbench::topology {

const std::vector<GpuSpec>& gpu_specs() {
  static const std::vector<GpuSpec> specs = {
      {"A100-SXM4-40GB", 40.0, 312, 0, 1.555, "NVIDIA A100 datasheet (40 GB HBM2; 312 TFLOPS BF16 dense)"},
      {"A100-SXM4-80GB", 80.0, 312, 0, 2.039, "NVIDIA A100 datasheet (80 GB HBM2e; 312 TFLOPS BF16 dense)"},
      {"H100 80GB HBM3", 79.6, 989, 1979, 3.35,
       "NVIDIA H100 SXM datasheet (80 GB; 989 TFLOPS BF16, 1,979 FP8 dense); 81,559 MiB in nvidia-smi"},
      {"H100", 79.6, 989, 1979, 3.35, "NVIDIA H100 SXM datasheet"},
      {"H800", 79.6, 989, 1979, 3.35, "H100 SXM's compute and memory (NVIDIA H800 product brief)"},
      {"H200", 140.4, 989, 1979, 4.8, "NVIDIA H200 SXM datasheet (141 GB HBM3e; H100's tensor cores); 143,771 MiB in nvidia-smi"},
      {"B200", 178.4, 2250, 4500, 8.0, "NVIDIA HGX B200 datasheet (180 GB HBM3e per GPU; 2.25 PFLOPS BF16, 4.5 FP8 dense)"},
  };
  return specs;
}

std::optional<GpuSpec> find_gpu_spec(std::string_view gpu_model) {
  const std::string model = lower(gpu_model);
  const GpuSpec* best = nullptr;
  for (const auto& spec : gpu_specs()) {
    if (model.find(lower(spec.match)) != std::string::npos && (best == nullptr || spec.match.size() > best->match.size())) best = &spec;
  }
  if (best == nullptr) return std::nullopt;
  return *best;
}

}  // namespace meshbench::topology
