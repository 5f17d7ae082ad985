#include "bench/host_buffer.hpp"

#include <sys/mman.h>

#include <new>
#include <utility>

namespace meshbench::bench {

HostBuffer::HostBuffer(std::size_t floats) : size_(floats == 0 ? 1 : floats) {
  // Anonymous pages come zero-filled; MAP_POPULATE faults them in now, outside any timing.
  void* p = ::mmap(nullptr, size_ * sizeof(float), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  data_ = static_cast<float*>(p);
}

HostBuffer::HostBuffer(HostBuffer&& other) noexcept : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

HostBuffer& HostBuffer::operator=(HostBuffer&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

HostBuffer::~HostBuffer() { release(); }

void HostBuffer::release() {
  if (data_ != nullptr) ::munmap(data_, size_ * sizeof(float));
  data_ = nullptr;
  size_ = 0;
}

}  // namespace meshbench::bench
