#include "analysis/report/report_spread.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace meshbench::analysis {

namespace {

const std::vector<std::vector<int>>* groups_of(const results::MappingRecord& m, const std::string& dim) {
  for (const auto& [d, g] : m.groups) {
    if (d == dim) return &g;
  }
  return nullptr;
}

std::set<std::string> hosts_of_group(const results::ResultsFile& file, const results::MappingRecord& m, const std::vector<int>& ranks) {
  std::set<std::string> hosts;
  for (int r : ranks) {
    if (r >= 0 && static_cast<std::size_t>(r) < m.slot_of_rank.size())
      hosts.insert(file.host_of_slot(m.slot_of_rank[static_cast<std::size_t>(r)]));
  }
  return hosts;
}

}  // namespace

std::vector<GroupSpread> group_spreads(const results::ResultsFile& file) {
  std::map<results::PointKey, std::vector<const results::GroupTiming*>> by_point;
  std::vector<results::PointKey> order;
  for (const auto& g : file.group_timings()) {
    const auto k = file.key_of(g);
    auto [it, inserted] = by_point.try_emplace(k);
    if (inserted) order.push_back(k);
    it->second.push_back(&g);
  }
  std::vector<GroupSpread> out;
  for (const auto& k : order) {
    const auto& gs = by_point[k];
    GroupSpread s;
    s.point = k;
    s.groups = static_cast<int>(gs.size());
    std::vector<double> medians;
    for (const auto* g : gs) {
      medians.push_back(g->t_median_us);
      if (g->group >= 0) {
        if (s.group_us.size() <= static_cast<std::size_t>(g->group)) s.group_us.resize(static_cast<std::size_t>(g->group) + 1, 0.0);
        s.group_us[static_cast<std::size_t>(g->group)] = g->t_median_us;
      }
    }
    const auto [lo, hi] =
        std::minmax_element(gs.begin(), gs.end(), [](const auto* a, const auto* b) { return a->t_median_us < b->t_median_us; });
    s.min_us = (*lo)->t_median_us;
    s.max_us = (*hi)->t_median_us;
    s.fastest_group = (*lo)->group;
    s.slowest_group = (*hi)->group;
    std::sort(medians.begin(), medians.end());
    const std::size_t n = medians.size();
    s.median_us = n % 2 == 1 ? medians[n / 2] : (medians[n / 2 - 1] + medians[n / 2]) / 2;
    s.spread = s.min_us > 0 ? s.max_us / s.min_us : 1;
    if (const auto* m = file.find_mapping(k.mapping)) {
      if (const auto* groups = groups_of(*m, k.dim);
          groups != nullptr && s.slowest_group >= 0 && static_cast<std::size_t>(s.slowest_group) < groups->size()) {
        s.slowest_ranks = (*groups)[static_cast<std::size_t>(s.slowest_group)];
        for (int r : s.slowest_ranks) {
          if (r < 0 || static_cast<std::size_t>(r) >= m->slot_of_rank.size()) continue;
          const int slot = m->slot_of_rank[static_cast<std::size_t>(r)];
          s.slowest_slots.push_back(slot);
          const std::string host = file.host_of_slot(slot);
          if (std::find(s.slowest_hosts.begin(), s.slowest_hosts.end(), host) == s.slowest_hosts.end()) s.slowest_hosts.push_back(host);
        }
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<GroupSpread> spreads_at_largest_size(const std::vector<GroupSpread>& spreads) {
  // A point's series: its key at every size.
  std::map<results::PointKey, std::size_t> largest;
  std::vector<results::PointKey> order;
  for (std::size_t i = 0; i < spreads.size(); ++i) {
    results::PointKey k = spreads[i].point;
    k.bytes = 0;
    auto [it, inserted] = largest.try_emplace(k, i);
    if (inserted) order.push_back(k);
    else if (spreads[it->second].point.bytes < spreads[i].point.bytes) it->second = i;
  }
  std::vector<GroupSpread> out;
  for (const auto& k : order) out.push_back(spreads[largest[k]]);
  return out;
}

std::vector<HostTally> slow_host_tally(const results::ResultsFile& file, const std::vector<GroupSpread>& spreads) {
  std::map<std::string, HostTally> tally;
  for (const auto& s : spreads) {
    if (s.groups < 2) continue;
    const auto* m = file.find_mapping(s.point.mapping);
    if (m == nullptr) continue;
    const auto* groups = groups_of(*m, s.point.dim);
    if (groups == nullptr) continue;
    std::set<std::string> all;
    for (const auto& g : *groups) {
      const auto h = hosts_of_group(file, *m, g);
      all.insert(h.begin(), h.end());
    }
    for (const auto& h : all) {
      tally[h].host = h;
      ++tally[h].points;
    }
    if (s.slowest_group < 0 || s.fastest_group < 0 ||
        static_cast<std::size_t>(std::max(s.slowest_group, s.fastest_group)) >= groups->size())
      continue;
    const auto slow = hosts_of_group(file, *m, (*groups)[static_cast<std::size_t>(s.slowest_group)]);
    const auto fast = hosts_of_group(file, *m, (*groups)[static_cast<std::size_t>(s.fastest_group)]);
    for (const auto& h : slow) {
      if (fast.count(h) != 0) continue;
      ++tally[h].slowest_only;
      tally[h].worst_spread = std::max(tally[h].worst_spread, s.spread);
    }
  }
  std::vector<HostTally> out;
  for (auto& [h, t] : tally) {
    if (t.slowest_only > 0) out.push_back(t);
  }
  std::stable_sort(out.begin(), out.end(), [](const HostTally& a, const HostTally& b) { return a.slowest_only > b.slowest_only; });
  return out;
}

}  // namespace meshbench::analysis
