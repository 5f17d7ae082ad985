#include "bench/io/io_pattern.hpp"

#include <cstring>

namespace meshbench::bench::io {

namespace {

// splitmix64's finaliser: every input bit moves about half the output bits, so neighbouring
// offsets, ranks and passes give unrelated words.
std::uint64_t mix(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31U);
}

}  // namespace

std::uint64_t pattern_word(std::uint64_t pass, int rank, std::uint64_t offset) {
  return mix(mix(pass * 0x100000001B3ULL + static_cast<std::uint64_t>(rank)) ^ (offset / 8));
}

void fill_pattern(std::span<std::byte> out, std::uint64_t pass, int rank, std::uint64_t offset) {
  const std::size_t whole = out.size() / 8;
  for (std::size_t i = 0; i < whole; ++i) {
    const std::uint64_t w = pattern_word(pass, rank, offset + 8 * i);
    std::memcpy(out.data() + 8 * i, &w, 8);
  }
  if (const std::size_t tail = out.size() % 8; tail > 0) {
    const std::uint64_t w = pattern_word(pass, rank, offset + 8 * whole);
    std::memcpy(out.data() + 8 * whole, &w, tail);
  }
}

std::int64_t count_wrong_words(std::span<const std::byte> data, std::uint64_t pass, int rank, std::uint64_t offset) {
  std::int64_t wrong = 0;
  const std::size_t whole = data.size() / 8;
  for (std::size_t i = 0; i < whole; ++i) {
    std::uint64_t got = 0;
    std::memcpy(&got, data.data() + 8 * i, 8);
    if (got != pattern_word(pass, rank, offset + 8 * i)) ++wrong;
  }
  if (const std::size_t tail = data.size() % 8; tail > 0) {
    const std::uint64_t want = pattern_word(pass, rank, offset + 8 * whole);
    if (std::memcmp(data.data() + 8 * whole, &want, tail) != 0) ++wrong;
  }
  return wrong;
}

}  // namespace meshbench::bench::io
