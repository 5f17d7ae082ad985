#include "analysis/compare/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "analysis/compare/point_keys.hpp"
#include "common/error.hpp"
#include "common/sizes.hpp"

namespace meshbench::analysis {

namespace {

using detail::digests;
using detail::index_rows;
using detail::match_key;

// Samples of each point in iteration order.
std::map<results::PointKey, std::vector<double>> index_samples(const results::ResultsFile& f) {
  std::map<results::PointKey, std::vector<std::pair<int, double>>> raw;
  for (const auto& s : f.samples()) raw[f.key_of(s)].emplace_back(s.iteration, s.t_us);
  std::map<results::PointKey, std::vector<double>> out;
  for (auto& [k, v] : raw) {
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    auto& dst = out[k];
    for (const auto& [i, t] : v) dst.push_back(t);
  }
  return out;
}

// The samples of the point of `r`, a row of `f`.
const std::vector<double>& samples_of(const std::map<results::PointKey, std::vector<double>>& index, const results::ResultsFile& f,
                                      const results::MeasurementRow& r) {
  static const std::vector<double> kNone;
  const auto it = index.find(f.key_of(r));
  return it == index.end() ? kNone : it->second;
}

void decide(RowComparison& r, const CompareOptions& o) {
  if (r.new_wrong > 0 && r.base_wrong <= 0) {
    r.verdict = Verdict::wrong;
    return;
  }
  const bool slower = r.ratio > 1.0 + o.threshold, faster = r.ratio < 1.0 - o.threshold;
  // Without samples only the threshold and the run-to-run scatter can speak.
  const bool within_slower = !r.tested || r.q_slower <= o.alpha, within_faster = !r.tested || r.q_faster <= o.alpha;
  if (slower && within_slower && r.q_between_slower <= o.alpha) r.verdict = Verdict::regressed;
  else if (faster && within_faster && r.q_between_faster <= o.alpha) r.verdict = Verdict::improved;
  else r.verdict = Verdict::unchanged;
}

// Each row against how its timing mode's points moved (regression_stats.hpp), and each timing
// mode's run-level shift against the points' scatter.
void judge_against_scatter(Comparison& c, const CompareOptions& o) {
  std::map<std::string, std::vector<std::size_t>> by_timing;
  for (std::size_t i = 0; i < c.rows.size(); ++i) by_timing[c.rows[i].point.timing].push_back(i);
  std::vector<double> p_slower(c.rows.size(), 1.0), p_faster(c.rows.size(), 1.0);
  for (const auto& [timing, rows] : by_timing) {
    std::vector<double> x;
    for (auto i : rows) x.push_back(c.rows[i].ratio > 0 ? std::log(c.rows[i].ratio) : 0.0);
    TimingScatter t{timing, run_to_run_scatter(x), 1, 0, Verdict::unchanged};
    const Scatter& s = t.scatter;
    for (std::size_t k = 0; k < rows.size(); ++k) {
      auto& r = c.rows[rows[k]];
      if (!s.estimated) {
        // Too few points to tell how runs move: the within-run test alone decides.
        p_slower[rows[k]] = p_faster[rows[k]] = 0;
        continue;
      }
      const double d = x[k] - s.centre;
      if (s.sigma > 0) {
        r.z_between = d / s.sigma;
        p_slower[rows[k]] = scatter_upper_tail(s, r.z_between);
        p_faster[rows[k]] = scatter_upper_tail(s, -r.z_between);
      } else {  // every other point kept its time exactly: any move stands out
        r.z_between = d > 0 ? INFINITY : d < 0 ? -INFINITY : 0.0;
        p_slower[rows[k]] = d > 0 ? 0.0 : 1.0;
        p_faster[rows[k]] = d < 0 ? 0.0 : 1.0;
      }
    }
    if (s.estimated) {
      t.shift_ratio = std::exp(s.centre);
      t.shift_z = s.sigma > 0 ? s.centre / s.sigma : (s.centre > 0 ? INFINITY : s.centre < 0 ? -INFINITY : 0.0);
    }
    c.scatter.push_back(t);
  }
  // The run-level shifts, one test per timing mode, corrected over the modes like the points.
  std::vector<double> shift_slower, shift_faster;
  for (const auto& t : c.scatter) {
    shift_slower.push_back(t.scatter.estimated ? normal_upper_tail(t.shift_z) : 1.0);
    shift_faster.push_back(t.scatter.estimated ? normal_upper_tail(-t.shift_z) : 1.0);
  }
  const auto q_shift_slower = benjamini_hochberg(shift_slower), q_shift_faster = benjamini_hochberg(shift_faster);
  for (std::size_t k = 0; k < c.scatter.size(); ++k) {
    auto& t = c.scatter[k];
    // A whole run that moved beyond the threshold is never unchanged: with one run on each side a
    // move the points' scatter cannot call significant may be the machine's slow spell or the
    // software's, so it is inconclusive (the gate recipe's baseline runs tell the two apart).
    if (t.shift_ratio > 1 + o.threshold) t.verdict = q_shift_slower[k] <= o.alpha ? Verdict::regressed : Verdict::inconclusive;
    if (t.shift_ratio < 1 - o.threshold) t.verdict = q_shift_faster[k] <= o.alpha ? Verdict::improved : Verdict::inconclusive;
  }
  const auto qs = benjamini_hochberg(p_slower), qf = benjamini_hochberg(p_faster);
  for (std::size_t i = 0; i < c.rows.size(); ++i) {
    c.rows[i].q_between_slower = qs[i];
    c.rows[i].q_between_faster = qf[i];
  }
}

// Families of points that a real regression moves together (compare.hpp).
void judge_families(Comparison& c, const CompareOptions& o) {
  using Key = std::tuple<std::string, std::string, std::string, std::uint64_t>;  // timing, dim, op, bytes
  std::map<Key, std::vector<std::size_t>> families;
  std::map<std::string, std::vector<std::size_t>> by_timing;
  for (std::size_t i = 0; i < c.rows.size(); ++i) {
    const auto& r = c.rows[i];
    if (!(r.ratio > 0)) continue;
    families[{r.point.timing, r.point.dim, r.point.op, 0}].push_back(i);
    families[{r.point.timing, "", r.point.op, r.point.bytes}].push_back(i);
    by_timing[r.point.timing].push_back(i);
  }
  std::vector<double> p_slower, p_faster;
  for (const auto& [key, members] : families) {
    const auto& all = by_timing[std::get<0>(key)];
    if (members.size() < 3 || all.size() < members.size() + 3) continue;
    std::vector<double> inside, outside;
    std::vector<bool> member(c.rows.size(), false);
    for (auto i : members) member[i] = true;
    for (auto i : all) (member[i] ? inside : outside).push_back(std::log(c.rows[i].ratio));
    FamilyFinding f;
    std::tie(f.timing, f.dim, f.op, f.bytes) = key;
    f.points = static_cast<int>(inside.size());
    f.median_ratio = std::exp(median_of(inside));
    f.rest_ratio = std::exp(median_of(outside));
    // Points of one family are not in time order: no autocorrelation to correct for.
    const MannWhitney t = mann_whitney_unordered(outside, inside);
    f.p_slower = t.p_slower;
    f.p_faster = t.p_faster;
    p_slower.push_back(f.p_slower);
    p_faster.push_back(f.p_faster);
    c.families.push_back(f);
  }
  // How whole families move between honest reruns: a busier machine slows small messages more
  // than large ones, so families drift too. Each family's shift against the other points is
  // judged against the spread of all families' shifts of its kind and timing (the same
  // empirical null as for points, one level up).
  std::vector<double> pf_slower(c.families.size(), 1.0), pf_faster(c.families.size(), 1.0);
  std::map<std::pair<std::string, bool>, std::vector<std::size_t>> kinds;  // (timing, by size) -> families
  for (std::size_t k = 0; k < c.families.size(); ++k) kinds[{c.families[k].timing, c.families[k].bytes != 0}].push_back(k);
  for (const auto& [kind, members] : kinds) {
    std::vector<double> shift;
    for (auto k : members) shift.push_back(std::log(c.families[k].median_ratio / c.families[k].rest_ratio));
    for (std::size_t j = 0; j < members.size(); ++j) {
      // Each family against the others: with a handful of families, the one being judged would
      // otherwise make the tail it is judged by.
      std::vector<double> others;
      for (std::size_t i = 0; i < shift.size(); ++i) {
        if (i != j) others.push_back(shift[i]);
      }
      const Scatter s = run_to_run_scatter(others, kMinFamiliesForScatter);
      if (!s.estimated) {  // too few families to tell how they drift: the Mann-Whitney test alone
        pf_slower[members[j]] = pf_faster[members[j]] = 0;
        continue;
      }
      const double d = shift[j] - s.centre;
      pf_slower[members[j]] = s.sigma > 0 ? scatter_upper_tail(s, d / s.sigma) : (d > 0 ? 0.0 : 1.0);
      pf_faster[members[j]] = s.sigma > 0 ? scatter_upper_tail(s, -d / s.sigma) : (d < 0 ? 0.0 : 1.0);
    }
  }
  const auto qs = benjamini_hochberg(p_slower), qf = benjamini_hochberg(p_faster);
  const auto qfs = benjamini_hochberg(pf_slower), qff = benjamini_hochberg(pf_faster);
  for (std::size_t k = 0; k < c.families.size(); ++k) {
    auto& f = c.families[k];
    f.q_slower = std::max(qs[k], qfs[k]);
    f.q_faster = std::max(qf[k], qff[k]);
    if (f.median_ratio > 1 + o.threshold && f.q_slower <= o.alpha) f.verdict = Verdict::regressed;
    else if (f.median_ratio < 1 - o.threshold && f.q_faster <= o.alpha) f.verdict = Verdict::improved;
  }
}

// Every point of the base file with a partner in the new one (same structure, dimension, op,
// backend, dtype, timing, concurrency and size), with both runs' samples tested against each other.
void match_rows(Comparison& c, const results::ResultsFile& base, const results::ResultsFile& next, const CompareOptions& options) {
  const auto base_rows = index_rows(base), new_rows = index_rows(next);
  const auto base_samples = index_samples(base), new_samples = index_samples(next);
  std::set<std::string> renamed;
  const auto base_digest = digests(base), new_digest = digests(next);
  for (const auto& [name, d] : base_digest) {
    const auto it = new_digest.find(name);
    if (it != new_digest.end() && it->second != d) c.restructured.push_back(name);
  }
  for (const auto& r : base.measurements()) {
    const auto bd = base_digest.find(r.point.mapping);
    if (bd == base_digest.end()) continue;
    const auto key = match_key(bd->second, r);
    if (base_rows.at(key) != &r) continue;
    const auto partner = new_rows.find(key);
    if (partner == new_rows.end()) {
      ++c.only_base;
      continue;
    }
    const auto& n = *partner->second;
    RowComparison row;
    row.point = r.point;
    row.new_mapping = n.point.mapping;
    row.digest = bd->second;
    row.backend = r.backend;
    row.dtype = r.dtype;
    row.base_median_us = r.t_median_us;
    row.new_median_us = n.t_median_us;
    row.ratio = r.t_median_us > 0 ? n.t_median_us / r.t_median_us : 1.0;
    row.base_wrong = r.wrong;
    row.new_wrong = n.wrong;
    const auto& sa = samples_of(base_samples, base, r);
    const auto& sb = samples_of(new_samples, next, n);
    row.base_samples = sa.size();
    row.new_samples = sb.size();
    row.tested = !sa.empty() && !sb.empty();
    if (row.tested) {
      row.test = mann_whitney(sa, sb);
      if (options.bootstrap > 0) row.interval = bootstrap_median_ratio(sa, sb, options.confidence, options.bootstrap, options.seed);
    }
    if (r.point.mapping != n.point.mapping) renamed.insert(r.point.mapping + " = " + n.point.mapping);
    c.rows.push_back(std::move(row));
  }
  c.only_new = static_cast<int>(new_rows.size()) - static_cast<int>(c.rows.size());
  c.renamed.assign(renamed.begin(), renamed.end());
}

}  // namespace

std::string FamilyFinding::name() const {
  if (bytes != 0) return op + " at " + format_bytes(bytes) + " (every dimension)";
  return dim + " " + op + " (every size)";
}

bool Comparison::regressed() const {
  return count(Verdict::regressed) + count(Verdict::wrong) > 0 ||
         std::any_of(scatter.begin(), scatter.end(), [](const TimingScatter& t) { return t.verdict == Verdict::regressed; }) ||
         std::any_of(families.begin(), families.end(), [](const FamilyFinding& f) { return f.verdict == Verdict::regressed; });
}

GateVerdict Comparison::gate_verdict() const {
  if (regressed()) return GateVerdict::regression;
  const bool slower_unsure = std::any_of(scatter.begin(), scatter.end(),
                                         [](const TimingScatter& t) { return t.verdict == Verdict::inconclusive && t.shift_ratio > 1; });
  return slower_unsure ? GateVerdict::inconclusive : GateVerdict::clean;
}

int Comparison::count(Verdict v) const {
  return static_cast<int>(std::count_if(rows.begin(), rows.end(), [v](const RowComparison& r) { return r.verdict == v; }));
}

double core_to_core_ns(const results::ResultsFile& f) {
  std::vector<double> kept;
  for (const auto& s : f.state_probes()) {
    if (s.kept && s.core_to_core_ns > 0) kept.push_back(s.core_to_core_ns);
  }
  if (kept.empty()) return 0.0;
  // The upper quartile, not the median: a run that began in a far spell keeps those visits (its
  // best was far then, so nothing looked disturbed) and spends the rest near. Its median reads
  // near while up to half its points were measured far: such runs were 11-16% slower as a whole
  // than runs measured near throughout (docs/report.md, "Machine state").
  std::sort(kept.begin(), kept.end());
  return kept[(3 * kept.size() + 3) / 4 - 1];
}

RunSide run_side(const results::ResultsFile& f) {
  return {f.path(), f.run().started_at, f.run().status, f.run().backend, f.run().meshbench_version, f.run().world_size, core_to_core_ns(f)};
}

bool machine_states_differ(double a_ns, double b_ns) {
  if (a_ns <= 0 || b_ns <= 0) return false;
  return std::max(a_ns, b_ns) > kMachineStateFactor * std::min(a_ns, b_ns);
}

std::string changes_in_brief(const std::vector<ProvenanceChange>& changes, std::size_t shown) {
  std::string out;
  for (std::size_t i = 0; i < changes.size() && i < shown; ++i) {
    out += (out.empty() ? "" : ", ") + changes[i].name + " " + changes[i].before + " → " + changes[i].after;
  }
  if (changes.size() > shown) out += " (+" + std::to_string(changes.size() - shown) + " more)";
  return out;
}

std::string Comparison::headline() const {
  std::string head;
  int shown = 0, versions = 0;
  for (const auto& c : changes) {
    if (c.kind != "version" && c.kind != "doctor") continue;
    ++versions;
    if (shown < 2) {
      head += (head.empty() ? "" : ", ") + c.name + " " + c.before + " → " + c.after;
      ++shown;
    }
  }
  if (versions > shown) head += " (+" + std::to_string(versions - shown) + " more)";
  if (versions == 0) head = changes.empty() ? "no provenance change" : std::to_string(changes.size()) + " environment/run change(s)";

  std::vector<const RowComparison*> bad;
  for (const auto& r : rows) {
    if (r.verdict == Verdict::regressed || r.verdict == Verdict::wrong) bad.push_back(&r);
  }
  std::stable_sort(bad.begin(), bad.end(), [](const RowComparison* a, const RowComparison* b) {
    if ((a->verdict == Verdict::wrong) != (b->verdict == Verdict::wrong)) return a->verdict == Verdict::wrong;
    return a->ratio > b->ratio;
  });
  auto percent = [](double ratio) {
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.0f%%", (ratio - 1.0) * 100.0);
    return std::string(pct);
  };
  std::string tail;
  for (const auto& t : scatter) {
    if (t.verdict == Verdict::regressed)
      tail += (tail.empty() ? "" : "; ") + ("the whole " + t.timing + " run " + percent(t.shift_ratio) + " slower");
    if (t.verdict == Verdict::inconclusive && t.shift_ratio > 1)
      tail += (tail.empty() ? "" : "; ") + ("the whole " + t.timing + " run " + percent(t.shift_ratio) + " slower (inconclusive)");
  }
  std::vector<const FamilyFinding*> moved;
  for (const auto& f : families) {
    if (f.verdict == Verdict::regressed) moved.push_back(&f);
  }
  std::stable_sort(moved.begin(), moved.end(),
                   [](const FamilyFinding* a, const FamilyFinding* b) { return a->median_ratio > b->median_ratio; });
  // One finding per family name (the same op and size in both timing modes is one finding), and
  // points only where no flagged family already covers them.
  std::vector<std::string> names;
  for (const auto* f : moved) {
    const std::string name = f->bytes != 0 ? f->op + " at " + format_bytes(f->bytes) : f->dim + " " + f->op;
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      if (names.empty())
        tail += (tail.empty() ? "" : "; ") + name + " " + percent(f->median_ratio) + " slower (" + std::to_string(f->points) + " points)";
      names.push_back(name);
    }
  }
  if (names.size() > 1) tail += " (+" + std::to_string(names.size() - 1) + " more)";
  const auto covered = [&moved](const RowComparison* r) {
    return std::any_of(moved.begin(), moved.end(), [r](const FamilyFinding* f) {
      return f->timing == r->point.timing && f->op == r->point.op && (f->bytes != 0 ? f->bytes == r->point.bytes : f->dim == r->point.dim);
    });
  };
  bad.erase(std::remove_if(bad.begin(), bad.end(), [&](const RowComparison* r) { return r->verdict != Verdict::wrong && covered(r); }),
            bad.end());
  if (!bad.empty()) {
    const auto* w = bad.front();
    tail += (tail.empty() ? "" : "; ") + w->point.dim + " " + w->point.op + " at " + format_bytes(w->point.bytes) + " " +
            (w->verdict == Verdict::wrong ? std::string("gives WRONG results") : percent(w->ratio) + " slower");
    if (bad.size() > 1) tail += " (+" + std::to_string(bad.size() - 1) + " more)";
  }
  if (tail.empty()) {
    tail = "no regression in " + std::to_string(rows.size()) + " compared points";
    const int better = count(Verdict::improved);
    if (better > 0) tail += ", " + std::to_string(better) + " faster";
  }
  return head + "; " + tail;
}

Comparison compare_runs(const results::ResultsFile& base, const results::ResultsFile& next, const CompareOptions& options) {
  Comparison c;
  c.options = options;
  c.base = run_side(base);
  c.next = run_side(next);
  c.changes = provenance_changes(base, next, options.all_environment, c.hidden_changes);

  match_rows(c, base, next, options);
  if (c.rows.empty()) {
    throw InputError(base.path() + " and " + next.path() +
                     " have no measured point in common (same mapping structure, dimension, op, backend, timing and size); compare runs of "
                     "the same layout and sizes");
  }
  // A point with so few samples (a batched point's few batches) that no difference could survive
  // the correction is judged without the within-run test, like a point without samples.
  const auto with_samples =
      static_cast<double>(std::count_if(c.rows.begin(), c.rows.end(), [](const RowComparison& r) { return r.tested; }));
  for (auto& r : c.rows) {
    if (r.tested && mann_whitney_min_p(r.base_samples, r.new_samples) > options.alpha / with_samples) r.tested = false;
  }
  std::vector<double> p_slower, p_faster;
  std::vector<std::size_t> tested;
  for (std::size_t i = 0; i < c.rows.size(); ++i) {
    if (!c.rows[i].tested) continue;
    tested.push_back(i);
    p_slower.push_back(c.rows[i].test.p_slower);
    p_faster.push_back(c.rows[i].test.p_faster);
  }
  const auto q_slower = benjamini_hochberg(p_slower), q_faster = benjamini_hochberg(p_faster);
  for (std::size_t k = 0; k < tested.size(); ++k) {
    c.rows[tested[k]].q_slower = q_slower[k];
    c.rows[tested[k]].q_faster = q_faster[k];
  }
  judge_against_scatter(c, options);
  judge_families(c, options);
  for (auto& row : c.rows) decide(row, options);
  return c;
}

}  // namespace meshbench::analysis
