#include "analysis/report/curves.hpp"

#include <algorithm>
#include <cmath>

#include "mapping/layout.hpp"

namespace meshbench::analysis {

const char* to_string(ReadHow how) {
  switch (how) {
    case ReadHow::measured: return "measured";
    case ReadHow::interpolated: return "interpolated";
    case ReadHow::below_range: return "below_range";
    case ReadHow::extrapolated: return "extrapolated";
  }
  return "measured";
}

CurveRead read_curve(const Curve& curve, std::uint64_t bytes) {
  const auto& p = curve.points;
  if (p.empty()) return {0, ReadHow::measured};
  const auto hi = std::lower_bound(p.begin(), p.end(), bytes, [](const CurvePoint& c, std::uint64_t b) { return c.bytes < b; });
  if (hi != p.end() && hi->bytes == bytes) return {hi->t_median_us, ReadHow::measured};
  if (hi == p.begin()) return {p.front().t_median_us, ReadHow::below_range};
  const double x = static_cast<double>(bytes);
  if (hi == p.end()) {
    const CurvePoint& last = p.back();
    const double xl = static_cast<double>(last.bytes);
    if (p.size() >= 2) {
      const CurvePoint& prev = p[p.size() - 2];
      const double slope = (last.t_median_us - prev.t_median_us) / (xl - static_cast<double>(prev.bytes));
      if (slope > 0) return {last.t_median_us + (x - xl) * slope, ReadHow::extrapolated};
    }
    return {last.t_median_us * x / xl, ReadHow::extrapolated};
  }
  const CurvePoint& lo = *(hi - 1);
  const double lx0 = std::log(static_cast<double>(lo.bytes)), lx1 = std::log(static_cast<double>(hi->bytes));
  const double ly0 = std::log(std::max(lo.t_median_us, 1e-12)), ly1 = std::log(std::max(hi->t_median_us, 1e-12));
  const double f = (std::log(x) - lx0) / (lx1 - lx0);
  return {std::exp(ly0 + f * (ly1 - ly0)), ReadHow::interpolated};
}

std::vector<std::vector<int>> canonical(std::vector<std::vector<int>> groups) {
  for (auto& g : groups) std::sort(g.begin(), g.end());
  std::sort(groups.begin(), groups.end());
  return groups;
}

CurveSet::CurveSet(const results::ResultsFile& file) {
  bool any_per_iteration = false;
  for (const auto& row : file.measurements()) {
    auto key = results::key_of(row);
    key.bytes = 0;
    auto [it, inserted] = index_.try_emplace(key, curves_.size());
    if (inserted) curves_.push_back({key, row.group_size, {}});
    curves_[it->second].points.push_back({row.point.bytes, row.t_median_us, row.busbw_gbps, row.iters, row.wrong});
    any_per_iteration = any_per_iteration || row.point.timing == "per_iteration";
  }
  if (!any_per_iteration && !curves_.empty()) preferred_timing_ = curves_.front().key.timing;
  for (auto& c : curves_) {
    std::sort(c.points.begin(), c.points.end(), [](const CurvePoint& x, const CurvePoint& y) { return x.bytes < y.bytes; });
  }
  for (const auto& m : file.mappings()) {
    auto& dims = canonical_groups_[m.name];
    for (const auto& [dim, groups] : m.groups) dims[dim] = canonical(groups);
  }
}

std::vector<std::string> CurveSet::same_groups(const std::string& mapping, const std::string& dim) const {
  std::vector<std::string> out;
  const auto m = canonical_groups_.find(mapping);
  if (m == canonical_groups_.end()) return out;
  const auto own = m->second.find(dim);
  if (own == m->second.end()) return out;
  for (const auto d : mapping::kAllDims) {
    const std::string name(mapping::to_string(d));
    if (name == dim) continue;
    const auto other = m->second.find(name);
    if (other != m->second.end() && other->second == own->second) out.push_back(name);
  }
  return out;
}

const Curve* CurveSet::find(const std::string& mapping, const std::string& dim, const std::string& op, const std::string& timing,
                            const std::string& concurrency) const {
  results::PointKey key{{}, mapping, dim, op, timing, concurrency, 0};
  if (const auto it = index_.find(key); it != index_.end()) return &curves_[it->second];
  for (const auto& other : same_groups(mapping, dim)) {
    key.dim = other;
    if (const auto it = index_.find(key); it != index_.end()) return &curves_[it->second];
  }
  return nullptr;
}

}  // namespace meshbench::analysis
