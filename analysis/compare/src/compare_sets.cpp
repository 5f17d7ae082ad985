#include "analysis/compare/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "analysis/compare/point_keys.hpp"
#include "analysis/report/text_table.hpp"
#include "common/error.hpp"
#include "common/sizes.hpp"
#include "common/strings.hpp"

namespace meshbench::analysis {

namespace {

using detail::MatchKey;
using detail::RowIndex;

enum class ConfigurationPart { none, layout, topology };
// The first part of the configuration that differs between two runs, if any.
ConfigurationPart differing_part(const results::ResultsFile& a, const results::ResultsFile& b) {
  if (layout_text(a.layout()) != layout_text(b.layout())) return ConfigurationPart::layout;
  if (topology_text(a) != topology_text(b)) return ConfigurationPart::topology;
  return ConfigurationPart::none;
}

void check_homogeneous(const std::vector<results::ResultsFile>& set, const char* which) {
  for (std::size_t i = 1; i < set.size(); ++i) {
    const auto& a = set.front();
    const auto& b = set[i];
    const auto part = differing_part(a, b);
    if (part == ConfigurationPart::layout) {
      throw InputError(std::string("the ") + which + " set mixes layouts: " + a.path() + " (" + layout_text(a.layout()) + ") and " +
                       b.path() + " (" + layout_text(b.layout()) + "); a set must be reruns of one configuration");
    }
    if (part == ConfigurationPart::topology) {
      throw InputError(std::string("the ") + which + " set mixes topologies: " + a.path() + " (" + topology_text(a) + ") and " + b.path() +
                       " (" + topology_text(b) + "); a set must be reruns on one machine");
    }
  }
}

// Each run's per-round log medians per point, for the between-round part of the noise.
using RoundLogs = std::map<results::PointKey, std::vector<double>>;
RoundLogs round_log_medians(const results::ResultsFile& f) {
  RoundLogs out;
  for (const auto& r : f.round_medians()) {
    if (r.t_median_us > 0) out[f.key_of(r)].push_back(std::log(r.t_median_us));
  }
  return out;
}

}  // namespace

std::string layout_text(const results::LayoutRecord& l) { return results::layout_key(l); }

std::string topology_text(const results::ResultsFile& f) {
  std::string out = std::to_string(f.nodes().size()) + " node(s) of";
  for (const auto& n : f.nodes()) out += " " + std::to_string(n.slot_count);
  return out + " slots";
}

std::vector<std::string> expand_results_paths(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return {path};
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(path, ec)) {
    if (e.is_regular_file() && e.path().extension() == ".h5") out.push_back(e.path().string());
  }
  if (out.empty()) throw InputError("folder " + path + " holds no .h5 results files; give a folder of meshbench run outputs, or the files");
  std::sort(out.begin(), out.end());
  return out;
}

StateSelection select_baselines_by_state(const std::vector<double>& base_ns, const std::vector<double>& new_ns) {
  StateSelection out;
  std::vector<double> probed;
  for (double ns : new_ns) {
    if (ns > 0) probed.push_back(ns);
  }
  const double reference = probed.empty() ? 0.0 : median_of(probed);
  for (std::size_t i = 0; i < base_ns.size(); ++i) {
    if (!machine_states_differ(base_ns[i], reference)) out.kept.push_back(i);
  }
  if (out.kept.size() < 2 && out.kept.size() < base_ns.size()) {
    out.differs = true;
    out.kept.clear();
    for (std::size_t i = 0; i < base_ns.size(); ++i) out.kept.push_back(i);
  }
  return out;
}

std::vector<std::pair<std::size_t, std::size_t>> launched_beside(const std::vector<std::string>& base_started,
                                                                 const std::vector<std::string>& new_started, const PairMatch& matches) {
  struct Launch {
    std::string at;
    bool is_new = false;
    std::size_t index = 0;
  };
  std::vector<Launch> order;
  for (const auto* side : {&base_started, &new_started}) {
    for (std::size_t i = 0; i < side->size(); ++i) {
      if ((*side)[i].empty())
        throw InputError("--interleaved needs each run's start time, and run " + std::to_string(i + 1) + " of the " +
                         (side == &base_started ? "baselines" : "new runs") + " has none; leave out --interleaved");
      order.push_back({(*side)[i], side == &new_started, i});
    }
  }
  std::stable_sort(order.begin(), order.end(), [](const Launch& a, const Launch& b) { return a.at < b.at; });
  // The nearest baseline launched before (step −1) or after (+1) launch t that `accept`s the new
  // run (any baseline when `accept` is empty).
  const auto nearest_baseline = [&order](std::size_t t, std::ptrdiff_t step, const PairMatch& accept) -> const Launch* {
    for (auto u = static_cast<std::ptrdiff_t>(t) + step; u >= 0 && u < static_cast<std::ptrdiff_t>(order.size()); u += step) {
      const Launch& b = order[static_cast<std::size_t>(u)];
      if (!b.is_new && (!accept || accept(order[t].index, b.index))) return &b;
    }
    return nullptr;
  };
  const PairMatch any;  // whether the runs were interleaved does not depend on `matches`
  std::vector<std::pair<std::size_t, std::size_t>> out;
  bool between = false;
  for (std::size_t t = 0; t < order.size(); ++t) {
    if (!order[t].is_new) continue;
    between = between || (nearest_baseline(t, -1, any) != nullptr && nearest_baseline(t, 1, any) != nullptr);
    for (const std::ptrdiff_t step : {-1, 1}) {
      if (const Launch* b = nearest_baseline(t, step, matches)) out.emplace_back(order[t].index, b->index);
    }
  }
  if (!between) {
    throw InputError("--interleaved: no new run was launched between two baselines (they started " + order.front().at + " to " +
                     order.back().at + "); launch baseline and new runs alternately, or leave out --interleaved");
  }
  return out;
}

namespace {
using Pairs = std::vector<std::pair<std::size_t, std::size_t>>;
Comparison compare_set_files(const std::vector<results::ResultsFile>& base, const std::vector<results::ResultsFile>& next,
                             const JudgeOptions& options, const std::vector<const results::ResultsFile*>& history, const Pairs& beside);

// One file given twice (under any path).
bool same_file(const results::ResultsFile& a, const results::ResultsFile& b) {
  std::error_code ec;
  return std::filesystem::equivalent(a.path(), b.path(), ec);
}

// The history in launch order, checked against the baselines' configuration and for runs that
// are also judged (a gate's whole folder passed as its history): their differences would be
// counted as the noise the change is judged against.
std::vector<const results::ResultsFile*> history_in_order(const std::vector<results::ResultsFile>& history,
                                                          const std::vector<results::ResultsFile>& base,
                                                          const std::vector<results::ResultsFile>& next) {
  if (history.empty()) return {};
  const auto& first_base = base.front();
  if (history.size() < kMinHistoryRuns) {
    throw InputError("--history holds " + std::to_string(history.size()) + " run(s) and needs at least " + std::to_string(kMinHistoryRuns) +
                     " earlier runs of the baseline configuration; give more, or leave out --history");
  }
  std::vector<const results::ResultsFile*> out;
  for (const auto& f : history) {
    if (differing_part(f, first_base) != ConfigurationPart::none) {
      throw InputError("--history run " + f.path() + " (" + layout_text(f.layout()) + ", " + topology_text(f) +
                       ") is not a run of the baselines' configuration (" + layout_text(first_base.layout()) + ", " +
                       topology_text(first_base) + "); give earlier runs of the same layout on the same machine");
    }
    if (f.run().started_at.empty())
      throw InputError("--history run " + f.path() + " has no start time, and the history's order is its launch order; leave it out");
    for (const auto* side : {&base, &next}) {
      for (const auto& judged : *side) {
        if (same_file(f, judged)) {
          throw InputError("--history run " + f.path() + " is also " + (side == &base ? "a baseline" : "a new run") + " (" + judged.path() +
                           "); the history must be earlier runs, not the ones judged: give the runs kept before this comparison");
        }
      }
    }
    out.push_back(&f);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto* a, const auto* b) { return a->run().started_at < b->run().started_at; });
  return out;
}
}  // namespace

PairSelection select_pairs_by_state(const std::vector<std::string>& base_started, const std::vector<std::string>& new_started,
                                    const std::vector<double>& base_ns, const std::vector<double>& new_ns) {
  const auto same_state = [&](std::size_t j, std::size_t i) { return !machine_states_differ(base_ns[i], new_ns[j]); };
  const auto beside = launched_beside(base_started, new_started, same_state);
  PairSelection out;
  for (std::size_t j = 0; j < new_ns.size(); ++j) {
    if (std::any_of(beside.begin(), beside.end(), [j](const auto& pair) { return pair.first == j; })) out.next.push_back(j);
  }
  for (std::size_t i = 0; i < base_ns.size(); ++i) {
    if (std::any_of(out.next.begin(), out.next.end(), [&](std::size_t j) { return same_state(j, i); })) out.base.push_back(i);
  }
  const auto position = [](const std::vector<std::size_t>& kept, std::size_t index) {
    return static_cast<std::size_t>(std::find(kept.begin(), kept.end(), index) - kept.begin());
  };
  for (const auto& [j, i] : beside) out.beside.emplace_back(position(out.next, j), position(out.base, i));
  return out;
}

namespace {

std::vector<std::string> start_times(const std::vector<results::ResultsFile>& set) {
  std::vector<std::string> out;
  for (const auto& f : set) out.push_back(f.run().started_at);
  return out;
}

std::vector<results::ResultsFile> kept_runs(const std::vector<results::ResultsFile>& set, const std::vector<std::size_t>& kept) {
  std::vector<results::ResultsFile> out;
  for (auto i : kept) out.push_back(set[i]);
  return out;
}

std::vector<RunSide> runs_left_out(const std::vector<results::ResultsFile>& set, const std::vector<std::size_t>& kept) {
  std::vector<RunSide> out;
  for (std::size_t i = 0; i < set.size(); ++i) {
    if (std::find(kept.begin(), kept.end(), i) == kept.end()) out.push_back(run_side(set[i]));
  }
  return out;
}

}  // namespace

Comparison compare_sets(const std::vector<results::ResultsFile>& base, const std::vector<results::ResultsFile>& next,
                        const JudgeOptions& options, const std::vector<results::ResultsFile>& history) {
  if (base.empty() || next.empty()) throw InputError("compare needs baseline runs and new runs: meshbench compare BASE.h5… -- NEW.h5…");
  // Before any run is set aside by its machine state: a set of mixed configurations is bad input
  // whichever of its runs the state would keep.
  check_homogeneous(base, "baseline");
  check_homogeneous(next, "new");
  const auto ordered_history = history_in_order(history, base, next);
  std::vector<double> base_ns, new_ns;
  for (const auto& f : base) base_ns.push_back(core_to_core_ns(f));
  for (const auto& f : next) new_ns.push_back(core_to_core_ns(f));
  if (options.interleaved) {
    const auto pairs = select_pairs_by_state(start_times(base), start_times(next), base_ns, new_ns);
    const bool enough = pairs.next.size() >= (options.confirm ? 2U : 1U) && pairs.base.size() >= (ordered_history.empty() ? 2U : 1U);
    if (enough) {
      Comparison c = compare_set_files(kept_runs(base, pairs.base), kept_runs(next, pairs.next), options, ordered_history, pairs.beside);
      c.set_aside = runs_left_out(base, pairs.base);
      c.next_set_aside = runs_left_out(next, pairs.next);
      return c;
    }
    // Too few pairs share a state: as a plain set, which names the state that differs.
  }
  const auto selection = select_baselines_by_state(base_ns, new_ns);
  const auto kept = kept_runs(base, selection.kept);
  const auto beside = options.interleaved ? launched_beside(start_times(kept), start_times(next)) : Pairs{};
  Comparison c = compare_set_files(kept, next, options, ordered_history, beside);
  c.set_aside = runs_left_out(base, selection.kept);
  c.state_differs = selection.differs;
  if (c.state_differs) {
    for (auto* units : {&c.result.points, &c.result.families}) {
      for (auto& u : *units) {
        if (u.verdict == Verdict::regressed) u.verdict = Verdict::inconclusive;
      }
    }
  }
  return c;
}

namespace {

// The points every run (and every history run) holds, in the first baseline's order.
std::vector<MatchKey> common_points(const std::vector<RowIndex>& rows, const std::vector<RowIndex>& history_rows, int& skipped) {
  const auto in_every = [](const auto& indexes, const MatchKey& key) {
    return std::all_of(indexes.begin(), indexes.end(), [&key](const auto& r) { return r.count(key) > 0; });
  };
  std::vector<MatchKey> keys;
  for (const auto& entry : rows.front()) {
    const MatchKey& key = entry.first;
    if (in_every(rows, key) && in_every(history_rows, key)) keys.push_back(key);
    else ++skipped;
  }
  std::stable_sort(keys.begin(), keys.end(),
                   [&rows](const MatchKey& a, const MatchKey& b) { return rows.front().at(a) < rows.front().at(b); });
  return keys;
}

// One point of every run into the judge's input (log medians, the rounds' variances) and c.points.
void add_point(const MatchKey& key, const std::vector<const results::ResultsFile*>& runs, const std::vector<RowIndex>& rows,
               const std::vector<RoundLogs>& rounds, std::size_t base_runs, JudgeInput& in, Comparison& c) {
  ComparedPoint p;
  p.point = key.point;
  p.point.mapping = rows.front().at(key)->point.mapping;
  p.new_mapping = rows[base_runs].at(key)->point.mapping;
  p.backend = key.backend;
  p.dtype = key.dtype;
  std::vector<double> b, n;
  int fewest_rounds = -1;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const auto& row = *rows[r].at(key);
    const double log_t = std::log(std::max(row.t_median_us, 1e-9));
    const auto it = rounds[r].find(runs[r]->key_of(row));
    const std::vector<double> none;
    const auto& round_values = it == rounds[r].end() ? none : it->second;
    const int kept = static_cast<int>(round_values.size());
    fewest_rounds = fewest_rounds < 0 ? kept : std::min(fewest_rounds, kept);
    const bool is_base = r < base_runs;
    auto& wrong = is_base ? p.base_wrong : p.new_wrong;
    wrong = std::max(wrong, row.wrong);
    (is_base ? in.base[r] : in.next[r - base_runs]).push_back(log_t);
    (is_base ? in.base_round_var[r] : in.next_round_var[r - base_runs]).push_back(round_variance(round_values));
    (is_base ? b : n).push_back(row.t_median_us);
  }
  p.rounds = std::max(fewest_rounds, 0);
  in.rounds.push_back(p.rounds);
  p.base_median_us = median_of(b);
  p.new_median_us = median_of(n);
  c.points.push_back(p);
}

// Families: one op at one size, one collective at every size, a dimension, the whole run.
// One op at one size spans every timing mode and concurrency: what moves it (a protocol
// threshold, a transport's chunk size) moves it however it is timed, and on a small layout (one
// mapping, one dimension) it is otherwise a single point, judged as one. The others stay within
// one timing mode and concurrency, whose times are not alike. Below the whole run every point is
// judged relative to its own timing mode's whole-run shift, so members of two modes can share a family.
void add_families(Comparison& c, JudgeInput& in) {
  using FamilyKey = std::tuple<int, std::string, std::string, std::string, std::string, std::uint64_t>;
  std::map<FamilyKey, std::vector<std::size_t>> members;
  for (std::size_t i = 0; i < c.points.size(); ++i) {
    const auto& p = c.points[i].point;
    members[{static_cast<int>(UnitKind::op_size), "", "", "", p.op, p.bytes}].push_back(i);
    members[{static_cast<int>(UnitKind::collective), p.timing, p.concurrency, p.dim, p.op, 0}].push_back(i);
    members[{static_cast<int>(UnitKind::dimension), p.timing, p.concurrency, p.dim, "", 0}].push_back(i);
    members[{static_cast<int>(UnitKind::run), p.timing, p.concurrency, "", "", 0}].push_back(i);
  }
  for (const auto& [key, list] : members) {
    // A family of one point is that point; a family that is the whole run is the run.
    const auto kind = static_cast<UnitKind>(std::get<0>(key));
    if (list.size() < 2) continue;
    Family f;
    f.kind = kind;
    std::tie(std::ignore, f.timing, f.concurrency, f.dim, f.op, f.bytes) = key;
    if (kind == UnitKind::op_size) {
      // The timing modes and concurrencies it spans, "a, b" when several.
      std::set<std::string> timings, concurrencies;
      for (auto i : list) {
        timings.insert(c.points[i].point.timing);
        concurrencies.insert(c.points[i].point.concurrency);
      }
      f.timing = join(timings, ", ");
      f.concurrency = join(concurrencies, ", ");
    }
    f.points = static_cast<int>(list.size());
    c.families.push_back(f);
    in.families.push_back({kind, list});
  }
}

// Each point's samples in iteration order (none when the file was read without them).
std::map<results::PointKey, std::vector<double>> point_samples(const results::ResultsFile& f) {
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

// One run a side: every point's samples for the within-run test, and the bootstrap interval of
// its ratio.
void add_samples(const results::ResultsFile& base, const results::ResultsFile& next, const RowIndex& base_rows, const RowIndex& new_rows,
                 const std::vector<MatchKey>& keys, const JudgeOptions& o, JudgeInput& in, Comparison& c) {
  const auto base_samples = point_samples(base), new_samples = point_samples(next);
  const std::vector<double> none;
  const auto samples_of = [&none](const auto& index, const results::ResultsFile& f, const results::MeasurementRow& row) -> const auto& {
    const auto it = index.find(f.key_of(row));
    return it == index.end() ? none : it->second;
  };
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto& a = samples_of(base_samples, base, *base_rows.at(keys[i]));
    const auto& b = samples_of(new_samples, next, *new_rows.at(keys[i]));
    in.base_samples.push_back(a);
    in.next_samples.push_back(b);
    auto& p = c.points[i];
    p.base_samples = a.size();
    p.new_samples = b.size();
    if (!a.empty() && !b.empty() && o.bootstrap > 0) p.interval = bootstrap_median_ratio(a, b, o.confidence, o.bootstrap, o.seed);
  }
}

// Mappings of the same structure under another name in the first new run, names whose structure
// changed, and the first new run's points not compared.
void match_names(const results::ResultsFile& base, const results::ResultsFile& next, const RowIndex& new_rows,
                 const std::vector<MatchKey>& keys, Comparison& c) {
  const auto base_digest = detail::digests(base), new_digest = detail::digests(next);
  for (const auto& [name, d] : base_digest) {
    const auto it = new_digest.find(name);
    if (it != new_digest.end() && it->second != d) c.restructured.push_back(name);
  }
  std::set<std::string> renamed;
  for (const auto& p : c.points) {
    if (p.point.mapping != p.new_mapping) renamed.insert(p.point.mapping + " = " + p.new_mapping);
  }
  c.renamed.assign(renamed.begin(), renamed.end());
  c.only_new = static_cast<int>(new_rows.size()) - static_cast<int>(keys.size());
}

Comparison compare_set_files(const std::vector<results::ResultsFile>& base, const std::vector<results::ResultsFile>& next,
                             const JudgeOptions& options, const std::vector<const results::ResultsFile*>& history, const Pairs& beside) {
  if (options.confirm && next.size() < 2) {
    throw InputError(
        "--confirm needs at least two new runs (a regression must show again in an independent run): meshbench compare BASE… -- NEW1 NEW2");
  }
  Comparison c;
  c.options = options;
  for (const auto& f : base) c.base.push_back(run_side(f));
  for (const auto& f : next) c.next.push_back(run_side(f));
  for (const auto* f : history) c.history.push_back(run_side(*f));
  c.pairs = beside.size();
  c.changes = provenance_changes(base.front(), next.front(), options.all_environment, c.hidden_changes);

  std::vector<RowIndex> rows, history_rows;
  std::vector<RoundLogs> rounds;
  std::vector<const results::ResultsFile*> runs;  // base then new, as rows and rounds
  for (const auto* side : {&base, &next}) {
    for (const auto& f : *side) {
      runs.push_back(&f);
      rows.push_back(detail::index_rows(f));
      rounds.push_back(round_log_medians(f));
    }
  }
  for (const auto* f : history) history_rows.push_back(detail::index_rows(*f));
  const std::vector<MatchKey> keys = common_points(rows, history_rows, c.only_base);
  if (keys.empty()) {
    throw InputError(base.front().path() + " and " + next.front().path() +
                     " have no measured point in common (same mapping structure, dimension, op, backend, timing and size); compare runs of "
                     "the same layout and sizes");
  }
  const bool have_rounds = std::any_of(rounds.begin(), rounds.end(), [](const auto& r) { return !r.empty(); });
  if (base.size() < 2 && next.size() > 1 && !have_rounds && history.empty()) {
    throw InputError(
        "one baseline run without rounds cannot tell noise from change in several new runs: give two or more baseline runs (or runs "
        "with --rounds), or compare one new run with it");
  }
  JudgeInput in;
  in.base.assign(base.size(), {});
  in.next.assign(next.size(), {});
  in.base_round_var.assign(base.size(), {});
  in.next_round_var.assign(next.size(), {});
  in.history.assign(history.size(), {});
  for (const auto& key : keys) {
    add_point(key, runs, rows, rounds, base.size(), in, c);
    for (std::size_t h = 0; h < history.size(); ++h)
      in.history[h].push_back(std::log(std::max(history_rows[h].at(key)->t_median_us, 1e-9)));
  }
  add_families(c, in);
  in.beside = beside;
  match_names(base.front(), next.front(), rows[base.size()], keys, c);
  if (noise_source(in) == NoiseSource::points)
    add_samples(base.front(), next.front(), rows.front(), rows[base.size()], keys, options, in, c);
  c.noise = noise_source(in);
  c.result = judge(in, options);
  return c;
}

}  // namespace

}  // namespace meshbench::analysis
