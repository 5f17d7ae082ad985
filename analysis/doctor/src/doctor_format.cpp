#include "analysis/doctor/src/doctor_format.hpp"

#include <algorithm>
#include <cstdio>

namespace meshbench::analysis::detail {

std::string compress_ranks(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  std::string out;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    out += (out.empty() ? "" : ", ") + std::to_string(ranks[i]);
    if (j > i) out += "-" + std::to_string(ranks[j]);
    i = j + 1;
  }
  return out;
}

std::string ranks_on_hosts(const std::vector<int>& ranks, const std::map<int, std::string>& host_of) {
  Grouping<int> by_host;
  for (int r : ranks) {
    auto it = host_of.find(r);
    by_host.add(it == host_of.end() ? "?" : it->second, r);
  }
  std::string out = ranks.size() == 1 ? "rank " : "ranks ";
  bool first = true;
  for (const auto& host : by_host.values) {
    out += (first ? "" : ", ") + compress_ranks(by_host.members[host]) + " on " + host;
    first = false;
  }
  return out;
}

std::string plural(long long n, const std::string& word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

std::string fixed(double value, int digits, bool sign) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), sign ? "%+.*f" : "%.*f", digits, value);
  return buf;
}

std::map<int, std::string> host_by_rank(const std::vector<RankFacts>& ranks) {
  std::map<int, std::string> m;
  for (const auto& r : ranks) m[r.rank] = r.host;
  return m;
}

}  // namespace meshbench::analysis::detail
