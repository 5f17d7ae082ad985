#include "analysis/report/ranking.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "common/sizes.hpp"
#include "common/strings.hpp"

namespace meshbench::analysis {

namespace {

std::vector<std::string> dims_in_order(const std::set<std::string>& present) {
  std::vector<std::string> out;
  for (const auto d : mapping::kAllDims) {
    if (present.count(std::string(mapping::to_string(d))) != 0) out.push_back(std::string(mapping::to_string(d)));
  }
  return out;
}

bool has_rows(const results::ResultsFile& file, const std::string& mapping) {
  return std::any_of(file.measurements().begin(), file.measurements().end(), [&](const auto& r) { return r.point.mapping == mapping; });
}

// Complete mappings first, then by score; ranks and ratios to the best follow.
void order_and_number(Ranking& ranking) {
  std::stable_sort(ranking.mappings.begin(), ranking.mappings.end(), [](const RankedMapping& a, const RankedMapping& b) {
    if (a.complete != b.complete) return a.complete;
    return a.score < b.score;
  });
  const double best = ranking.mappings.empty() ? 0 : ranking.mappings.front().score;
  for (std::size_t i = 0; i < ranking.mappings.size(); ++i) {
    auto& m = ranking.mappings[i];
    m.rank = static_cast<int>(i) + 1;
    m.vs_best = best > 0 ? m.score / best : 1;
  }
}

// The curve for an op, in the preferred timing, else the other one.
const Curve* find_any_timing(const CurveSet& curves, const std::string& mapping, const std::string& dim, const std::string& op,
                             const std::string& timing) {
  if (const Curve* c = curves.find(mapping, dim, op, timing, "concurrent")) return c;
  for (const char* other : {"per_iteration", "batched"}) {
    if (other != timing) {
      if (const Curve* c = curves.find(mapping, dim, op, other, "concurrent")) return c;
    }
  }
  return nullptr;
}

}  // namespace

mapping::Layout layout_of(const results::ResultsFile& file) { return layout_of(file.layout()); }

mapping::Layout layout_of(const results::ResultsFile& file, const std::string& mapping) {
  return layout_of(file.layout_of_mapping(mapping));
}

mapping::Layout layout_of(const results::LayoutRecord& l) {
  mapping::Layout layout;
  layout.world = l.world;
  layout.tp = l.tp;
  layout.cp = l.cp;
  layout.pp = l.pp;
  layout.ep = l.ep;
  layout.etp = l.etp;
  layout.order = l.order.empty() ? mapping::kDefaultOrder : l.order;
  return layout;
}

namespace {

// Each layout's step: its traffic under the workload (a file of one layout has one), or under
// the workload stored with the layout when the file holds several and `layouts_own_workload`.
std::map<std::string, std::vector<mapping::OpTraffic>> traffic_by_layout(const results::ResultsFile& file,
                                                                         const mapping::Workload& workload, bool layouts_own_workload) {
  std::map<std::string, std::vector<mapping::OpTraffic>> out;
  for (const auto& l : file.layouts()) {
    mapping::Workload w = workload;
    if (layouts_own_workload && file.several_layouts() && !l.layout.workload_json.empty()) {
      const auto j = nlohmann::json::parse(l.layout.workload_json, nullptr, false);
      if (j.is_discarded())
        throw InputError("the workload stored in " + file.path() + " for layout " + l.name + " is not valid JSON; pass --workload FILE");
      w = mapping::workload_from_json(j, "stored in " + file.path() + " for layout " + l.name);
    }
    const mapping::Layout layout = layout_of(l.layout);
    mapping::check_workload(w, layout);
    out[l.name] = mapping::step_traffic(w, layout);
  }
  return out;
}

}  // namespace

Ranking rank_by_workload(const results::ResultsFile& file, const CurveSet& curves, const mapping::Workload& workload,
                         bool layouts_own_workload) {
  Ranking ranking;
  ranking.basis = Ranking::Basis::workload;
  ranking.workload_name = workload.name;
  ranking.timing = curves.preferred_timing();
  const auto traffic_of_layout = traffic_by_layout(file, workload, layouts_own_workload);
  std::set<std::string> dims;
  for (const auto& [name, traffic] : traffic_of_layout) {
    for (const auto& t : traffic) dims.insert(std::string(mapping::to_string(t.dim)));
  }
  ranking.dims = dims_in_order(dims);

  std::set<std::string> borrowed, extrapolated, below, other_timing;
  std::map<std::string, int> missing;  // "dim op" -> mappings lacking it
  for (const auto& m : file.mappings()) {
    RankedMapping r{0, m.name, m.how, m.digest, 0, 1, {}, {}, 0, true};
    const auto& traffic = traffic_of_layout.at(m.layout);
    std::map<std::string, DimScore> per_dim;
    for (const auto& d : ranking.dims) per_dim[d] = {d, 0, true};
    for (const auto& t : traffic) {
      OpEstimate e;
      e.dim = std::string(mapping::to_string(t.dim));
      e.op = std::string(mapping::to_string(t.op));
      e.bytes = t.bytes;
      e.calls_per_step = t.calls_per_step;
      const Curve* c = find_any_timing(curves, m.name, e.dim, e.op, ranking.timing);
      if (c == nullptr || c->points.empty()) {
        e.missing = true;
        r.complete = false;
        per_dim[e.dim].complete = false;
        ++missing[e.dim + " " + e.op];
      } else {
        const CurveRead read = read_curve(*c, t.bytes);
        e.per_call_us = read.t_us;
        e.step_us = read.t_us * t.calls_per_step;
        e.source_dim = c->key.dim;
        e.how = read.how;
        if (c->key.dim != e.dim) borrowed.insert(e.dim + " from " + c->key.dim);
        if (c->key.timing != ranking.timing) other_timing.insert(e.dim + " " + e.op + " (" + c->key.timing + ")");
        const std::string what =
            e.dim + " " + e.op + " " + format_bytes(t.bytes) + " (largest measured " + format_bytes(c->points.back().bytes) + ")";
        if (read.how == ReadHow::extrapolated) extrapolated.insert(what);
        if (read.how == ReadHow::below_range)
          below.insert(e.dim + " " + e.op + " " + format_bytes(t.bytes) + " (smallest measured " + format_bytes(c->points.front().bytes) +
                       ")");
        per_dim[e.dim].value += e.step_us;
        r.score += e.step_us;
      }
      r.ops.push_back(e);
    }
    for (const auto& d : ranking.dims) r.dims.push_back(per_dim[d]);
    if (!has_rows(file, m.name)) r.complete = false;
    ranking.mappings.push_back(std::move(r));
  }
  if (!borrowed.empty())
    ranking.notes.push_back("curves borrowed where a dimension's groups equal another's (the run measured them once): " +
                            join(borrowed, ", "));
  if (!extrapolated.empty())
    ranking.notes.push_back("beyond the largest measured size, extrapolated linearly in bytes from the last two points: " +
                            join(extrapolated, ", "));
  if (!below.empty()) ranking.notes.push_back("below the smallest measured size, read as the smallest size's time: " + join(below, ", "));
  if (!other_timing.empty()) ranking.notes.push_back("measured only in the other timing mode: " + join(other_timing, ", "));
  for (const auto& [what, count] : missing) {
    ranking.notes.push_back(what + " has no measured curve for " + std::to_string(count) +
                            " mapping(s): left out of their totals, which rank after the complete ones");
  }
  order_and_number(ranking);
  return ranking;
}

Ranking rank_by_default(const results::ResultsFile& file, const CurveSet& curves) {
  Ranking ranking;
  ranking.basis = Ranking::Basis::default_ratio;
  ranking.timing = curves.preferred_timing();

  // Every (dim, op, size) measured for some mapping in this timing mode.
  using Point = std::tuple<std::string, std::string, std::uint64_t>;
  std::set<Point> points;
  std::vector<std::string> measured;
  for (const auto& m : file.mappings()) {
    if (has_rows(file, m.name)) measured.push_back(m.name);
  }
  for (const auto& c : curves.curves()) {
    if (c.key.timing != ranking.timing || c.key.concurrency != "concurrent") continue;
    for (const auto& p : c.points) points.emplace(c.key.dim, c.key.op, p.bytes);
  }
  // Each mapping's median at each point, borrowing curves of dimensions with the same groups.
  auto time_at = [&](const std::string& mapping, const Point& p) -> std::optional<double> {
    const Curve* c = curves.find(mapping, std::get<0>(p), std::get<1>(p), ranking.timing, "concurrent");
    if (c == nullptr) return std::nullopt;
    for (const auto& q : c->points) {
      if (q.bytes == std::get<2>(p) && q.t_median_us > 0) return q.t_median_us;
    }
    return std::nullopt;
  };
  std::map<std::string, std::map<std::string, std::vector<double>>> log_ratios;  // mapping -> dim -> log ratios
  std::set<std::string> dims;
  int left_out = 0, used = 0;
  for (const auto& p : points) {
    std::vector<double> t;
    for (const auto& name : measured) {
      if (auto v = time_at(name, p)) t.push_back(*v);
    }
    if (t.size() != measured.size() || t.empty()) {
      ++left_out;
      continue;
    }
    ++used;
    const double best = *std::min_element(t.begin(), t.end());
    for (std::size_t i = 0; i < measured.size(); ++i) log_ratios[measured[i]][std::get<0>(p)].push_back(std::log(t[i] / best));
    dims.insert(std::get<0>(p));
  }
  ranking.dims = dims_in_order(dims);
  for (const auto& m : file.mappings()) {
    RankedMapping r{0, m.name, m.how, m.digest, 0, 1, {}, {}, 0, true};
    const auto it = log_ratios.find(m.name);
    if (it == log_ratios.end()) {
      r.complete = false;
      r.score = 0;
      for (const auto& d : ranking.dims) r.dims.push_back({d, 0, false});
      ranking.mappings.push_back(std::move(r));
      continue;
    }
    double sum = 0;
    for (const auto& d : ranking.dims) {
      const auto& v = it->second.at(d);
      double s = 0;
      for (double x : v) s += x;
      sum += s;
      r.points += static_cast<int>(v.size());
      r.dims.push_back({d, std::exp(s / static_cast<double>(v.size())), true});
    }
    r.score = std::exp(sum / std::max(1, r.points));
    ranking.mappings.push_back(std::move(r));
  }
  std::ostringstream note;
  note << "no workload: each mapping's score is the geometric mean, over " << used
       << " (dimension, op, size) points measured for every mapping, of its median time over the fastest mapping's (1.00 = fastest "
          "everywhere)";
  ranking.notes.push_back(note.str());
  if (left_out > 0) ranking.notes.push_back(std::to_string(left_out) + " point(s) not measured for every mapping were left out");
  if (measured.size() < file.mappings().size()) {
    ranking.notes.push_back(std::to_string(file.mappings().size() - measured.size()) +
                            " mapping(s) have no measurements (an interrupted run?) and rank last");
  }
  order_and_number(ranking);
  return ranking;
}

}  // namespace meshbench::analysis
