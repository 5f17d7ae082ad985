// FNV-1a, 64-bit: the mappings' structure digest and the calibration's topology digest mix 32-bit
// words (a quarter of the multiplies for 65,536-slot label arrays); the MPI helpers hash the
// bytes of a string. Not a cryptographic hash: it tells apart values that differ by accident.
#pragma once
#include <cstdint>
#include <string_view>

namespace meshbench {

class Fnv {
 public:
  void mix(std::uint32_t v) {
    h_ ^= v;
    h_ *= kPrime;
  }
  void mix_bytes(std::string_view bytes) {
    for (const unsigned char c : bytes) {
      h_ ^= c;
      h_ *= kPrime;
    }
  }
  std::uint64_t value() const { return h_; }

 private:
  static constexpr std::uint64_t kPrime = 1099511628211ULL;
  std::uint64_t h_ = 14695981039346656037ULL;
};

}  // namespace meshbench
