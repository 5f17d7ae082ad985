#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace meshbench {

// Byte sizes follow nccl-tests: K, M, G suffixes are binary (KiB, MiB, GiB).
std::uint64_t parse_bytes(std::string_view text);

// nccl-tests style sweep: from min_bytes to max_bytes, multiplying by factor (>= 2).
std::vector<std::uint64_t> size_sweep(std::uint64_t min_bytes, std::uint64_t max_bytes, std::uint64_t factor);

// Comma-separated explicit list, e.g. "8,1K,4M".
std::vector<std::uint64_t> parse_size_list(std::string_view text);

// "1 KiB", "64 MiB", "8 B": short, for tables and plot labels.
std::string format_bytes(std::uint64_t bytes);

}  // namespace meshbench
