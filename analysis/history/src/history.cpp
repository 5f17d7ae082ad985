#include "analysis/history/history.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <tuple>

#include "analysis/compare/point_keys.hpp"
#include "analysis/compare/regression_stats.hpp"
#include "common/error.hpp"
#include "common/sizes.hpp"

namespace meshbench::analysis {

namespace {

struct PointSeries {
  const results::MeasurementRow* first = nullptr;
  results::PointKey key;           // the first run's row's
  std::vector<double> log_median;  // per run
};

using FamilyKey = std::tuple<int, std::string, std::string, std::string, std::string, std::uint64_t>;

FamilyKey family_key(UnitKind kind, const results::MeasurementRow& r) {
  switch (kind) {
    case UnitKind::op_size: return {static_cast<int>(kind), r.point.timing, r.point.concurrency, "", r.point.op, r.point.bytes};
    case UnitKind::collective: return {static_cast<int>(kind), r.point.timing, r.point.concurrency, r.point.dim, r.point.op, 0};
    case UnitKind::dimension: return {static_cast<int>(kind), r.point.timing, r.point.concurrency, r.point.dim, "", 0};
    case UnitKind::point:
    case UnitKind::run: break;
  }
  return {static_cast<int>(UnitKind::run), r.point.timing, r.point.concurrency, "", "", 0};
}

void find_changes(Series& s, const std::vector<const results::ResultsFile*>& runs, const HistoryOptions& o, std::uint64_t salt) {
  std::vector<double> logs(s.values.size());
  std::transform(s.values.begin(), s.values.end(), logs.begin(), [](double v) { return std::log(v); });
  ChangePointOptions cp = o.change_points;
  cp.seed = o.change_points.seed * 0x9E3779B97F4A7C15ULL + salt;  // each series its own shuffles
  for (const auto& p : find_change_points(logs, cp)) {
    SeriesChange c;
    c.point = p;
    c.ratio = std::exp(p.after - p.before);
    const auto& before = *runs[p.index - 1];
    const auto& after = *runs[p.index];
    c.run_before = before.path();
    c.run_after = after.path();
    c.started_after = after.run().started_at;
    int hidden = 0;
    c.changes = provenance_changes(before, after, o.all_environment, hidden);
    s.changes.push_back(std::move(c));
  }
}

ConfigurationHistory configuration_history(std::vector<const results::ResultsFile*> runs, const HistoryOptions& o, std::uint64_t& salt) {
  std::stable_sort(runs.begin(), runs.end(), [](const auto* a, const auto* b) { return a->run().started_at < b->run().started_at; });
  ConfigurationHistory h;
  h.layout = layout_text(runs.front()->layout());
  h.topology = topology_text(*runs.front());
  for (const auto* f : runs) h.runs.push_back(run_side(*f));

  // Points present in every run, in the first run's order.
  std::vector<detail::RowIndex> indexed;
  for (const auto* f : runs) indexed.push_back(detail::index_rows(*f));
  std::vector<PointSeries> points;
  for (const auto& [key, row] : indexed.front()) {
    PointSeries p{row, runs.front()->key_of(*row), {}};
    for (const auto& index : indexed) {
      const auto it = index.find(key);
      if (it == index.end() || !(it->second->t_median_us > 0)) break;
      p.log_median.push_back(std::log(it->second->t_median_us));
    }
    if (p.log_median.size() == runs.size()) {
      points.push_back(std::move(p));
    } else {
      ++h.points_not_in_every_run;
    }
  }
  std::sort(points.begin(), points.end(), [](const PointSeries& a, const PointSeries& b) { return a.key < b.key; });

  const bool enough = runs.size() >= static_cast<std::size_t>(2 * std::max(1, o.change_points.min_segment));
  for (const auto& p : points) {
    Series s;
    s.family = {
        UnitKind::point, p.first->point.timing, p.first->point.concurrency, p.first->point.dim, p.first->point.op, p.first->point.bytes, 1};
    s.mapping = p.first->point.mapping;
    for (double v : p.log_median) s.values.push_back(std::exp(v));
    if (enough) find_changes(s, runs, o, ++salt);
    h.series.push_back(std::move(s));
  }

  // Families: each member's log median less its own median over the runs, then the members'
  // median per run. A change in one family's level then shows however its members' sizes differ.
  for (const UnitKind kind : {UnitKind::op_size, UnitKind::collective, UnitKind::dimension, UnitKind::run}) {
    std::map<FamilyKey, std::vector<const PointSeries*>> members;
    for (const auto& p : points) members[family_key(kind, *p.first)].push_back(&p);
    for (const auto& [key, list] : members) {
      if (list.size() < 2 && kind != UnitKind::run) continue;  // a one-point family is that point
      Series s;
      const auto& r = *list.front()->first;
      s.family = {kind,
                  r.point.timing,
                  r.point.concurrency,
                  kind == UnitKind::collective || kind == UnitKind::dimension ? r.point.dim : "",
                  kind == UnitKind::op_size || kind == UnitKind::collective ? r.point.op : "",
                  kind == UnitKind::op_size ? r.point.bytes : 0,
                  static_cast<int>(list.size())};
      std::vector<std::vector<double>> centred;
      for (const auto* p : list) {
        const double usual = median_of(p->log_median);
        std::vector<double> c(p->log_median.size());
        std::transform(p->log_median.begin(), p->log_median.end(), c.begin(), [usual](double v) { return v - usual; });
        centred.push_back(std::move(c));
      }
      for (std::size_t run = 0; run < runs.size(); ++run) {
        std::vector<double> at;
        for (const auto& c : centred) at.push_back(c[run]);
        s.values.push_back(std::exp(median_of(std::move(at))));
      }
      if (enough) find_changes(s, runs, o, ++salt);
      h.series.push_back(std::move(s));
    }
  }
  return h;
}

}  // namespace

std::string Series::name() const {
  if (family.kind != UnitKind::point) return family.name() + " [" + family.timing + ", " + family.concurrency + "]";
  return mapping + " " + family.dim + " " + family.op + " at " + format_bytes(family.bytes) + " [" + family.timing + ", " +
         family.concurrency + "]";
}

int ConfigurationHistory::changed_series() const {
  return static_cast<int>(std::count_if(series.begin(), series.end(), [](const Series& s) { return !s.changes.empty(); }));
}

int ConfigurationHistory::slower_series() const {
  return static_cast<int>(std::count_if(series.begin(), series.end(), [](const Series& s) {
    return std::any_of(s.changes.begin(), s.changes.end(), [](const SeriesChange& c) { return c.ratio > 1; });
  }));
}

int History::slower_series() const {
  return std::accumulate(configurations.begin(), configurations.end(), 0, [](int n, const auto& c) { return n + c.slower_series(); });
}

GateVerdict History::gate_verdict() const {
  if (slower_series() > 0) return GateVerdict::regression;
  const double asked = options.change_points.p_value;
  const bool blind = std::any_of(configurations.begin(), configurations.end(),
                                 [asked](const ConfigurationHistory& c) { return c.smallest_reachable_p > asked; });
  return blind ? GateVerdict::inconclusive : GateVerdict::clean;
}

std::size_t History::runs_needed() const {
  const auto& o = options.change_points;
  return analysis::runs_needed(o.min_segment, o.p_value, o.permutations);
}

int History::series() const {
  return std::accumulate(configurations.begin(), configurations.end(), 0,
                         [](int n, const auto& c) { return n + static_cast<int>(c.series.size()); });
}

int History::searched_series() const {
  const auto needed = static_cast<std::size_t>(2 * std::max(1, options.change_points.min_segment));
  return std::accumulate(configurations.begin(), configurations.end(), 0,
                         [&](int n, const auto& c) { return n + (c.runs.size() >= needed ? static_cast<int>(c.series.size()) : 0); });
}

int History::changed_series() const {
  return std::accumulate(configurations.begin(), configurations.end(), 0, [](int n, const auto& c) { return n + c.changed_series(); });
}

History build_history(const std::vector<results::ResultsFile>& runs, const HistoryOptions& options) {
  if (runs.empty()) throw InputError("history needs results files: meshbench history FILE.h5... or a folder of them");
  const auto& cp = options.change_points;
  if (!(cp.p_value > 0 && cp.p_value < 1)) throw InputError("--p-value must be between 0 and 1");
  if (cp.permutations < 1 || cp.p_value * (cp.permutations + 1) < 1) {
    throw InputError("--permutations must be at least 1/p-value - 1 (" +
                     std::to_string(static_cast<long long>(std::ceil(1 / cp.p_value - 1))) + " for p-value " + std::to_string(cp.p_value) +
                     "), or no change could ever be significant");
  }
  if (cp.min_segment < 1) throw InputError("--min-runs must be at least 1");
  History h;
  h.options = options;
  // Configurations in the order their first run appears; runs of one never mix with another's.
  std::vector<std::pair<std::string, std::vector<const results::ResultsFile*>>> groups;
  for (const auto& f : runs) {
    if (f.measurements().empty()) continue;
    const std::string key = layout_text(f.layout()) + " | " + topology_text(f);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
    if (it == groups.end()) {
      groups.emplace_back(key, std::vector<const results::ResultsFile*>{});
      it = groups.end() - 1;
    }
    it->second.push_back(&f);
  }
  if (groups.empty())
    throw InputError("none of the " + std::to_string(runs.size()) +
                     " results file(s) holds a measured point; give runs that measured something");
  std::uint64_t salt = 0;
  for (auto& [key, members] : groups) {
    h.configurations.push_back(configuration_history(std::move(members), options, salt));
    auto& c = h.configurations.back();
    c.smallest_reachable_p = smallest_reachable_p(c.runs.size(), cp.min_segment, cp.permutations);
  }
  return h;
}

}  // namespace meshbench::analysis
