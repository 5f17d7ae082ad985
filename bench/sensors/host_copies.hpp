#pragma once
// run --host-copies: each slot's pinned-memory copy bandwidth between host and GPU, from the
// GPU's own NUMA node and from a remote one (the CPU-offload and PCIe path of a training step).
// The copies need CUDA (src/cuda/host_copies_cuda.cpp, built where CUDA is found); what decides
// where and how to copy, and the rows, are here and need nothing.
#include <cstdint>
#include <string>
#include <vector>

#include "results/gpu_records.hpp"

namespace meshbench::bench {

// The per-copy sizes: one small enough to show the per-copy cost, two large enough to show the
// link's rate.
inline const std::vector<std::uint64_t> kHostCopySizes = {1ULL << 20, 16ULL << 20, 128ULL << 20};
inline constexpr int kHostCopyIters = 5;

// The NUMA nodes a slot's copies come from: its GPU's own node, and the farthest other one by
// `distances` (row-major `count` x `count`, hwloc's NUMA latencies; empty: unknown, then the
// node numbered farthest away). -1 where there is none (one NUMA node, or the GPU's unknown).
struct CopySources {
  int local = -1, remote = -1;
};
CopySources copy_sources(int gpu_numa, int count, const std::vector<std::uint64_t>& distances);

// GB/s (1e9 B/s) of moving `bytes` in `seconds`.
double copy_gbps(std::uint64_t bytes, double seconds);

// One /host_copies row from the copies' times: median and best bandwidth.
results::HostCopyRow host_copy_row(const std::string& host, int rank, const std::string& bus_id, int numa_node, bool local,
                                   bool host_to_device, std::uint64_t bytes, const std::vector<double>& seconds);

// What one rank measures: its GPU (by PCI address; empty: the current CUDA device) and sources.
struct HostCopyRequest {
  std::string host;
  int rank = 0;
  std::string bus_id;
  int gpu_numa = -1;
  std::vector<std::uint64_t> sizes = kHostCopySizes;
  int iters = kHostCopyIters;
};

// False where meshbench was built without CUDA: run --host-copies then says so and goes on.
bool host_copies_built();
// Copies both ways at every size from each source node, with the buffer's pages bound to that
// node and pinned. Throws std::runtime_error naming the step that failed (binding, pinning, CUDA).
std::vector<results::HostCopyRow> measure_host_copies(const HostCopyRequest& request);

// The rows as one line each, and back: they travel to world rank 0 as strings.
std::string encode_host_copies(const std::vector<results::HostCopyRow>& rows);
std::vector<results::HostCopyRow> decode_host_copies(const std::string& text);

}  // namespace meshbench::bench
