#pragma once
// The bytes `meshbench io` writes: a pattern that differs per rank, per byte offset in the shard
// and per pass (method and repeat), so that a read that returns another rank's data, data from
// another offset, a stale earlier pass or a hole is counted wrong.
#include <cstddef>
#include <cstdint>
#include <span>

namespace meshbench::bench::io {

// The 8-byte word at shard offset `offset` (a multiple of 8) of `rank` in pass `pass`.
std::uint64_t pattern_word(std::uint64_t pass, int rank, std::uint64_t offset);

// Fills `out` with the bytes of shard offsets [offset, offset + out.size()); `offset` is a
// multiple of 8 (a shard's last window may end inside a word).
void fill_pattern(std::span<std::byte> out, std::uint64_t pass, int rank, std::uint64_t offset);

// The 8-byte words of `data` (read from shard offset `offset`, a multiple of 8) that differ from
// the pattern; a last partial word counts when any of its bytes differs.
std::int64_t count_wrong_words(std::span<const std::byte> data, std::uint64_t pass, int rank, std::uint64_t offset);

}  // namespace meshbench::bench::io
