// FNV-1a over 32-bit words: the mappings' structure digest and the calibration's topology
// digest. Words rather than bytes: a quarter of the multiplies for 65,536-slot label arrays.
#pragma once
#include <cstdint>

namespace meshbench::mapping::detail {

class Fnv {
 public:
  void mix(std::uint32_t v) {
    h_ ^= v;
    h_ *= 1099511628211ULL;
  }
  std::uint64_t value() const { return h_; }

 private:
  std::uint64_t h_ = 14695981039346656037ULL;
};

}  // namespace meshbench::mapping::detail
