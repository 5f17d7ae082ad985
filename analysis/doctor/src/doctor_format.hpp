#pragma once
// Private: how the checks name ranks, hosts and groups in one readable line.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analysis/doctor/doctor_facts.hpp"

namespace meshbench::analysis::detail {

// "0-3, 8"
std::string compress_ranks(std::vector<int> ranks);
// "rank 1 on vm" / "ranks 0-3 on a, 4-7 on b"
std::string ranks_on_hosts(const std::vector<int>& ranks, const std::map<int, std::string>& host_of);
// "1 GPU" / "2 GPUs"
std::string plural(long long n, const std::string& word);
// Fixed-point with `digits` decimals, "+" for positive numbers when `sign`.
std::string fixed(double value, int digits, bool sign = false);

std::map<int, std::string> host_by_rank(const std::vector<RankFacts>& ranks);

// Values grouped by the keys that have them, in order of first appearance.
template <typename Key>
struct Grouping {
  std::vector<std::string> values;
  std::map<std::string, std::vector<Key>> members;
  void add(const std::string& value, Key key) {
    if (members.find(value) == members.end()) values.push_back(value);
    members[value].push_back(std::move(key));
  }
};

}  // namespace meshbench::analysis::detail
