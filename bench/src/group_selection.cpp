#include "bench/group_selection.hpp"

#include <algorithm>
#include <set>

namespace meshbench::bench {

std::vector<GroupResult> representative_groups(const std::vector<GroupResult>& groups, std::size_t limit) {
  if (limit == 0 || groups.size() <= limit) return groups;
  std::vector<GroupResult> by_time = groups;
  std::stable_sort(by_time.begin(), by_time.end(), [](const GroupResult& a, const GroupResult& b) { return a.median_us < b.median_us; });
  const std::size_t n = by_time.size();
  const std::size_t tail = limit < 8 ? limit : limit / 4;
  std::set<std::size_t> keep;
  for (std::size_t i = 0; i < tail; ++i) keep.insert(n - 1 - i);
  if (limit >= 8) {
    keep.insert((n - 1) / 2);
    keep.insert(n / 2);
    // Even steps through everything below the tail, the fastest group first.
    const std::size_t steps = limit - tail - 2, rest = n - tail;
    for (std::size_t i = 0; i < steps; ++i) keep.insert(i * (rest - 1) / (steps - 1));
  }
  std::vector<GroupResult> out;
  for (std::size_t i : keep) out.push_back(by_time[i]);
  std::sort(out.begin(), out.end(), [](const GroupResult& a, const GroupResult& b) { return a.group < b.group; });
  return out;
}

}  // namespace meshbench::bench
