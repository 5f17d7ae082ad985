#pragma once
// Host memory for the MPI backend's send and receive buffers: anonymous pages of their own,
// page-aligned, mapped per point. Where malloc puts a large vector depends on what the process
// freed before (its heap once a same-sized block was freed, fresh pages otherwise), and Open MPI's
// shared-memory single copy (CMA) ran up to 4.7x slower from the heap here (1 MiB all-to-all,
// 2 ranks: 390 vs 83 us): the same point measured differently depending on the points before it.
#include <cstddef>
#include <span>

namespace meshbench::bench {

class HostBuffer {
 public:
  HostBuffer() = default;
  // At least `floats` elements (one when zero), zero-filled.
  explicit HostBuffer(std::size_t floats);
  HostBuffer(HostBuffer&& other) noexcept;
  HostBuffer& operator=(HostBuffer&& other) noexcept;
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  ~HostBuffer();

  float* data() { return data_; }
  const float* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::span<float> span() { return {data_, size_}; }
  std::span<const float> span() const { return {data_, size_}; }

 private:
  void release();
  float* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace meshbench::bench
