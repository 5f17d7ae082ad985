#include "bench/runner.hpp"

#include <algorithm>
#include <csignal>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <tuple>

#include "bench/comm_groups.hpp"
#include "bench/group_selection.hpp"
#include "bench/measure.hpp"
#include "bench/sensors/core_to_core_probe.hpp"
#include "bench/watchdog.hpp"
#include "common/sizes.hpp"

namespace meshbench::bench {

using mapping::Dim;
using mapping::Op;

namespace {

bool same_group_sets(mapping::RankGroups a, mapping::RankGroups b) {
  for (auto* groups : {&a, &b}) {
    for (auto& g : *groups) std::sort(g.begin(), g.end());
    std::sort(groups->begin(), groups->end());
  }
  return a == b;
}

std::string describe(const mapping::Mapping& m, Dim dim, Op op, std::uint64_t bytes, Timing t, bool isolated) {
  return "mapping '" + m.name + "' " + std::string(mapping::to_string(dim)) + " " + std::string(mapping::to_string(op)) + " " +
         format_bytes(bytes) + " (" + std::string(to_string(t)) + (isolated ? ", isolated" : "") + ")";
}

}  // namespace

mapping::RankGroups measured_groups(const mapping::Mapping& m, Dim dim) {
  if (dim == Dim::dp && m.layout.cp > 1) return mapping::flat_rank_groups(m.layout).dp_cp.nested();
  return m.groups[dim];
}

std::string_view to_string(Timing timing) { return timing == Timing::per_iteration ? "per_iteration" : "batched"; }

Runner::Runner(MPI_Comm world, Backend& backend, RunOptions options, std::vector<int> slot_of_world_rank, Watchdog* watchdog,
               Reporter* reporter)
    : world_(world),
      backend_(backend),
      options_(std::move(options)),
      slot_of_world_rank_(std::move(slot_of_world_rank)),
      watchdog_(watchdog),
      reporter_(reporter) {
  MPI_Comm_rank(world_, &rank_);
  memory_limit_ = options_.test_device_memory > 0 ? options_.test_device_memory : backend_.device_memory_bytes();
  if (options_.state.enabled) {
    probe_ = std::make_unique<CoreToCoreProbe>(world_, options_.state);
    state_.probed = probe_->usable();
    if (!state_.probed) probe_.reset();
  }
}

Runner::~Runner() = default;

bool Runner::fits(Op op, std::uint64_t requested, int group_size, std::uint64_t* needed) const {
  if (memory_limit_ == 0) return true;
  TrafficMatrix matrix;
  if (ops::info(op).traffic_matrix) matrix = alltoallv_matrix(group_size, requested / kElementBytes, options_.a2av_skew, options_.seed);
  const std::uint64_t need = device_bytes_needed(op, requested, group_size, ops::info(op).traffic_matrix ? &matrix : nullptr);
  if (needed != nullptr) *needed = need;
  return need <= memory_limit_;
}

void Runner::for_each_op_size(const std::vector<mapping::Mapping>& mappings,
                              const std::function<void(Dim, Op, std::uint64_t, int)>& visit) const {
  for (const auto& m : mappings) {
    for (const auto& p : plan_dimensions(m)) {
      if (!p.skipped.empty()) continue;
      const int group_size = static_cast<int>(measured_groups(m, p.dim).front().size());
      for (Op op : p.ops) {
        for (std::uint64_t requested : sizes_for(p.dim)) visit(p.dim, op, requested, group_size);
      }
    }
  }
}

std::vector<std::string> Runner::points_over_memory(const std::vector<mapping::Mapping>& mappings) const {
  std::vector<std::string> out;
  std::set<std::tuple<Dim, Op, std::uint64_t>> seen;
  for_each_op_size(mappings, [&](Dim dim, Op op, std::uint64_t requested, int group_size) {
    std::uint64_t need = 0;
    if (fits(op, requested, group_size, &need) || !seen.emplace(dim, op, requested).second) return;
    out.push_back(std::string(mapping::to_string(dim)) + " " + std::string(mapping::to_string(op)) + " " + format_bytes(requested) +
                  " needs " + format_bytes(need));
  });
  return out;
}

void Runner::skip(const std::vector<results::PointKey>& completed) { completed_.insert(completed.begin(), completed.end()); }

std::vector<std::uint64_t> Runner::sizes_for(Dim dim) const {
  const auto it = options_.dim_sizes.find(dim);
  return it != options_.dim_sizes.end() ? it->second : options_.sizes;
}

std::vector<Runner::DimPlan> Runner::plan_dimensions(const mapping::Mapping& m) const {
  std::vector<DimPlan> plans;
  for (Dim dim : mapping::kAllDims) {
    if (m.layout.size(dim) <= 1) continue;
    if (!options_.dims.empty() && std::find(options_.dims.begin(), options_.dims.end(), dim) == options_.dims.end()) continue;
    DimPlan p{dim, {}, {}};
    for (Op op : mapping::typical_ops(dim)) {
      if (options_.ops.empty() || std::find(options_.ops.begin(), options_.ops.end(), op) != options_.ops.end()) p.ops.push_back(op);
    }
    if (p.ops.empty()) continue;
    // ETP = TP and EDP = DP are Megatron's common case: the same groups running a subset of the
    // same ops would measure the same thing twice.
    for (const auto& earlier : plans) {
      if (!earlier.skipped.empty() || !same_group_sets(measured_groups(m, earlier.dim), measured_groups(m, dim))) continue;
      const bool subset = std::all_of(p.ops.begin(), p.ops.end(), [&](Op op) {
        return std::find(earlier.ops.begin(), earlier.ops.end(), op) != earlier.ops.end() && sizes_for(dim) == sizes_for(earlier.dim);
      });
      if (subset) p.skipped = "same groups and ops as " + std::string(mapping::to_string(earlier.dim));
    }
    plans.push_back(std::move(p));
  }
  return plans;
}

int Runner::count_points(const std::vector<mapping::Mapping>& mappings) const {
  int total = 0;
  for_each_op_size(mappings, [&](Dim, Op op, std::uint64_t requested, int group_size) {
    if (fits(op, requested, group_size)) total += static_cast<int>(options_.timings.size() * (options_.isolated ? 2 : 1));
  });
  return total;
}

// A dimension of a mapping ready to measure: its communicators (freed with it) and the
// context every point of it runs in.
struct Runner::OpenDimension {
  const mapping::Mapping* mapping = nullptr;
  int mapping_index = 0, mapping_count = 1;
  DimPlan plan;
  mapping::RankGroups groups;
  int group_size = 0, position = -1;
  MPI_Comm group_mpi = MPI_COMM_NULL;
  std::unique_ptr<GroupComm> group;
  PointContext ctx;
  ~OpenDimension() {
    group.reset();  // backend resources of this dimension go before the next one's are made
    if (group_mpi != MPI_COMM_NULL) MPI_Comm_free(&group_mpi);
  }
};

struct Runner::Visit {
  const OpenDimension* dimension = nullptr;
  Op op = Op::all_reduce;
  OpLayout layout;
  Timing timing = Timing::per_iteration;
  bool isolated = false;
  results::PointKey key;
};

void Runner::run(const std::vector<mapping::Mapping>& mappings) {
  if (options_.rounds > 1) {
    run_rounds(mappings);
  } else {
    for (std::size_t i = 0; i < mappings.size(); ++i) run_mapping(mappings[i], static_cast<int>(i), static_cast<int>(mappings.size()));
  }
  if (reporter_ != nullptr) reporter_->end_run(true);
}

void Runner::run_mapping(const mapping::Mapping& m, int index, int count) {
  if (reporter_ != nullptr) reporter_->begin_mapping(m, index, count);
  for (const auto& plan : plan_dimensions(m)) {
    if (!plan.skipped.empty()) {
      const auto groups = measured_groups(m, plan.dim);
      if (reporter_ != nullptr)
        reporter_->begin_dimension(plan.dim, static_cast<int>(groups.size()), static_cast<int>(groups.front().size()), plan.skipped);
      continue;
    }
    const auto d = open_dimension(m, plan);
    if (reporter_ != nullptr) reporter_->begin_dimension(plan.dim, static_cast<int>(d->groups.size()), d->group_size, "");
    for (const auto& v : visits_of(*d)) {
      if (watchdog_ != nullptr) watchdog_->set_point(describe(m, plan.dim, v.op, v.layout.bytes, v.timing, v.isolated));
      std::vector<results::StateProbe> states;
      results::PointReadings readings;
      const auto r = measure_in_state(v, options_.policy, 0, states, readings);
      if (!r || reporter_ == nullptr) continue;
      auto rec = record_of(*d, v, *r);
      rec.states = std::move(states);
      rec.readings = std::move(readings);
      reporter_->point(rec);
    }
  }
}

namespace {

// The visit order of one round: Fisher-Yates with a generator the standard fixes, so that every
// rank draws the same order.
std::vector<std::size_t> round_order(std::size_t visits, std::uint64_t seed, int round) {
  std::vector<std::size_t> order(visits);
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::mt19937_64 g(seed * 1000003ULL + static_cast<std::uint64_t>(round));
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[g() % i]);
  return order;
}

// Adds one round's measurement of a point to what its earlier rounds pooled: the samples, the
// iterations, the wrong elements, and running sums of each group's times.
void pool_round(PointResult& p, const PointResult& r, bool first_round) {
  if (first_round) {
    p.warmup = r.warmup;
    p.modelled_us = r.modelled_us;
  }
  p.samples_us.insert(p.samples_us.end(), r.samples_us.begin(), r.samples_us.end());
  p.iters += r.iters;
  if (r.wrong >= 0) p.wrong = std::max<std::int64_t>(p.wrong, 0) + r.wrong;
  if (p.groups.empty()) {
    p.groups = r.groups;
    return;
  }
  for (std::size_t k = 0; k < p.groups.size() && k < r.groups.size(); ++k) {
    p.groups[k].median_us += r.groups[k].median_us;
    p.groups[k].p90_us += r.groups[k].p90_us;
  }
}

// After the last round: the summary of all rounds' samples, a group's time the mean of its round
// medians, and the slowest group by that time (the last round's when no group was kept).
void finish_pooled(PointResult& p, const PointResult& last, int rounds) {
  p.summary = summarize(p.samples_us);
  int slowest = -1;
  for (std::size_t k = 0; k < p.groups.size(); ++k) {
    p.groups[k].median_us /= rounds;
    p.groups[k].p90_us /= rounds;
    if (slowest < 0 || p.groups[k].median_us > p.groups[static_cast<std::size_t>(slowest)].median_us) slowest = static_cast<int>(k);
  }
  p.slowest_group = slowest < 0 ? last.slowest_group : p.groups[static_cast<std::size_t>(slowest)].group;
}

}  // namespace

// Every dimension of every mapping stays open for the whole run: a round visits all points in
// one shuffled order, so any point may follow any other. A point is reported once its last
// round is measured, its row from the samples of all rounds.
void Runner::run_rounds(const std::vector<mapping::Mapping>& mappings) {
  std::vector<std::unique_ptr<OpenDimension>> open;
  const std::vector<Visit> visits = open_every_dimension(mappings, open);
  // A point's --budget is shared by its rounds: R rounds cost about what one did, plus R − 1
  // warm-ups and the --min-iters floor of each visit.
  TimingPolicy policy = options_.policy;
  policy.budget_s /= options_.rounds;
  std::vector<PointResult> pooled(visits.size());
  std::vector<std::vector<double>> round_medians(visits.size());
  std::vector<std::vector<results::StateProbe>> states(visits.size());
  std::vector<results::PointReadings> readings(visits.size());
  std::vector<bool> not_measured(visits.size(), false);
  int finished_in_last_round = 0;
  ReportedSoFar reported;
  for (int round = 0; round < options_.rounds; ++round) {
    const bool last_round = round + 1 == options_.rounds;
    for (auto index : round_order(visits.size(), options_.seed, round)) {
      const auto& v = visits[index];
      const auto& d = *v.dimension;
      if (watchdog_ != nullptr) {
        watchdog_->set_point(describe(*d.mapping, d.plan.dim, v.op, v.layout.bytes, v.timing, v.isolated) + ", round " +
                             std::to_string(round + 1) + " of " + std::to_string(options_.rounds));
      }
      if (not_measured[index]) continue;
      const auto measured = measure_in_state(v, policy, round, states[index], readings[index]);
      if (!measured) {
        not_measured[index] = true;  // reported once; later rounds leave it out
        continue;
      }
      round_medians[index].push_back(measured->summary.median);
      pool_round(pooled[index], *measured, round == 0);
      if (!last_round) continue;
      kill_self_for_test(++finished_in_last_round);
      if (reporter_ == nullptr) continue;
      finish_pooled(pooled[index], *measured, options_.rounds);
      report_pooled(v, pooled[index], round_medians[index], states[index], readings[index], reported);
    }
  }
}

// Opens every measured dimension of every mapping (into `open`) and lists their visits.
std::vector<Runner::Visit> Runner::open_every_dimension(const std::vector<mapping::Mapping>& mappings,
                                                        std::vector<std::unique_ptr<OpenDimension>>& open) {
  std::vector<Visit> visits;
  for (std::size_t i = 0; i < mappings.size(); ++i) {
    const auto& m = mappings[i];
    for (const auto& plan : plan_dimensions(m)) {
      if (!plan.skipped.empty()) continue;
      open.push_back(open_dimension(m, plan));
      open.back()->mapping_index = static_cast<int>(i);
      open.back()->mapping_count = static_cast<int>(mappings.size());
      for (auto& v : visits_of(*open.back())) visits.push_back(std::move(v));
    }
  }
  return visits;
}

// A point's pooled row with its round medians; the console's tables follow the last round's
// order, a new table wherever the mapping or dimension changes.
void Runner::report_pooled(const Visit& v, const PointResult& pooled, const std::vector<double>& round_medians,
                           std::vector<results::StateProbe>& states, results::PointReadings& readings, ReportedSoFar& reported) const {
  const auto& d = *v.dimension;
  if (d.mapping != reported.mapping) {
    reporter_->begin_mapping(*d.mapping, d.mapping_index, d.mapping_count);
    reported.mapping = d.mapping;
  }
  if (&d != reported.dimension) {
    reporter_->begin_dimension(d.plan.dim, static_cast<int>(d.groups.size()), d.group_size, "");
    reported.dimension = &d;
  }
  auto rec = record_of(d, v, pooled);
  for (std::size_t k = 0; k < round_medians.size(); ++k) {
    rec.rounds.push_back({.point = v.key, .round = static_cast<int>(k), .t_median_us = round_medians[k]});
  }
  rec.states = std::move(states);
  rec.readings = std::move(readings);
  reporter_->point(rec);
}

// Test only: kills this process once `finished` points of the last round are measured, so a
// test can interrupt a rounds run at a known place on any machine (polling the file for rows
// raced a fast run to its end).
void Runner::kill_self_for_test(int finished) const {
  if (options_.test_kill_after > 0 && options_.test_kill_after == finished && options_.test_kill_rank == rank_) std::raise(SIGKILL);
}

std::optional<PointResult> Runner::measure_visit(const Visit& v, const TimingPolicy& policy) {
  const auto& d = *v.dimension;
  PointContext ctx = d.ctx;
  ctx.op_limit_s = default_op_limit_s(options_.watchdog_base_s, v.layout.bytes);
  const bool corrupt = rank_ == 0 && options_.test_corrupt == v.key.mapping + ":" + v.key.dim + ":" + v.key.op;
  try {
    return v.isolated ? measure_isolated(ctx, v.layout, v.timing, policy)
                      : measure_concurrent(ctx, v.layout, v.timing, policy, options_.check, corrupt);
  } catch (const PointNotMeasured& e) {
    // Some rank could not allocate the buffers (the device-memory figure was too hopeful).
    if (reporter_ != nullptr) {
      reporter_->point_skipped(
          {results::utc_now_iso8601(), v.key.mapping, v.key.dim, v.key.op, v.layout.bytes,
           describe(*d.mapping, d.plan.dim, v.op, v.layout.bytes, v.timing, v.isolated) + ": " + e.what() + "; not measured"});
    }
    return std::nullopt;
  }
}

StateReading Runner::read_state() {
  // A collective: a rank that never arrives must be named like one that never reaches an op.
  const WatchedScope watched(watchdog_, options_.watchdog_base_s);
  return probe_->read();
}

// Polls the state until it is not disturbed, the wait for one visit is over, or the run's
// budget is spent. Times are the readings' own (the latest rank's clock): every rank stops alike.
void Runner::wait_for_state(const StateReading& from) {
  StateReading now = from;
  const auto& policy = options_.state;
  while (now.at_s - from.at_s < policy.wait_per_visit_s && state_.spent_s + (now.at_s - from.at_s) < policy.budget_s) {
    std::this_thread::sleep_for(std::chrono::duration<double>(policy.poll_s));
    now = read_state();
    if (!disturbed(now, policy)) break;
  }
  state_.spent_s += now.at_s - from.at_s;
}

std::optional<PointResult> Runner::measure_sampled(const Visit& v, const TimingPolicy& policy, int round, int attempt,
                                                   results::PointReadings& readings) {
  const SampledVisit visit{v.key, round, attempt};
  for (auto* s : samplers_) s->before_point(visit);
  auto measured = measure_visit(v, policy);
  VisitWork work;
  if (measured) {
    // The check refills and runs one more op (measure_concurrent); isolated points are not checked.
    work = {true, static_cast<std::int64_t>(measured->warmup) + measured->iters + (options_.check && !v.isolated ? 1 : 0)};
  }
  if (!samplers_.empty()) {
    // The samplers' collectives are watched like the probe's: a rank that never arrives is named.
    const WatchedScope watched(watchdog_, options_.watchdog_base_s);
    for (auto* s : samplers_) s->after_point(visit, work, readings);
  }
  return measured;
}

std::optional<PointResult> Runner::measure_in_state(const Visit& v, const TimingPolicy& policy, int round,
                                                    std::vector<results::StateProbe>& log, results::PointReadings& readings) {
  if (!probe_) return measure_sampled(v, policy, round, 1, readings);
  for (int attempt = 1;; ++attempt) {
    const StateReading before = read_state();
    auto measured = measure_sampled(v, policy, round, attempt, readings);
    if (!measured) return measured;
    const StateReading after = read_state();
    const StateReading state = worse_of(before, after);
    log.push_back({.point = v.key, .round = round, .attempt = attempt, .core_to_core_ns = state.ns, .ratio = state.ratio, .kept = true});
    if (!measure_again(state, attempt, options_.state.budget_s - state_.spent_s, options_.state)) {
      if (disturbed(state, options_.state)) ++state_.left_disturbed;
      const double best = state.ns / state.ratio;
      if (state.ns > 0 && (state_.best_ns == 0 || best < state_.best_ns)) state_.best_ns = best;
      return measured;
    }
    log.back().kept = false;
    ++state_.remeasured;
    state_.spent_s += after.at_s - before.at_s;
    wait_for_state(after);
  }
}

std::unique_ptr<Runner::OpenDimension> Runner::open_dimension(const mapping::Mapping& m, const DimPlan& plan) {
  auto d = std::make_unique<OpenDimension>();
  d->mapping = &m;
  d->plan = plan;
  d->groups = measured_groups(m, plan.dim);
  d->group_size = static_cast<int>(d->groups.front().size());

  // The process stays where the launcher put it and plays the logical rank mapped to its slot:
  // its communicator is the group holding that rank, its rank there the rank's place in the list.
  int group_index = -1;
  const auto communicators = dimension_communicators(m, plan.dim, slot_of_world_rank_);
  for (std::size_t g = 0; g < communicators.size() && group_index < 0; ++g) {
    const auto& members = communicators[g].world_ranks;
    const auto it = std::find(members.begin(), members.end(), rank_);
    if (it != members.end()) {
      group_index = static_cast<int>(g);
      d->position = static_cast<int>(it - members.begin());
    }
  }

  if (watchdog_ != nullptr) {
    watchdog_->set_point("creating the " + std::string(mapping::to_string(plan.dim)) + " communicators of mapping '" + m.name + "'");
  }
  {
    // Creation grows with the group (bootstrap, and NCCL_DEBUG=INFO's output at 1,000+ ranks).
    const WatchedScope watched(watchdog_, communicator_init_limit_s(options_.watchdog_base_s, d->group_size));
    MPI_Comm_split(world_, group_index, d->position, &d->group_mpi);
    d->group = backend_.make_group(d->group_mpi);
  }
  created_.emplace_back(m.name, std::string(mapping::to_string(plan.dim)));

  d->ctx.world = world_;
  d->ctx.group_comm = d->group_mpi;
  d->ctx.group_index = group_index;
  d->ctx.group_count = static_cast<int>(d->groups.size());
  d->ctx.group = d->group.get();
  d->ctx.watchdog = watchdog_;
  d->ctx.limit_floor_s = options_.watchdog_base_s;
  return d;
}

// The points of a dimension not yet in the file, in the natural order (op, size, timing).
std::vector<Runner::Visit> Runner::visits_of(const OpenDimension& d) const {
  std::vector<Visit> out;
  const std::string dim_name(mapping::to_string(d.plan.dim));
  for (Op op : d.plan.ops) {
    const std::string op_name(mapping::to_string(op));
    for (std::uint64_t requested : sizes_for(d.plan.dim)) {
      TrafficMatrix matrix;
      if (ops::info(op).traffic_matrix)
        matrix = alltoallv_matrix(d.group_size, requested / kElementBytes, options_.a2av_skew, options_.seed);
      const OpLayout layout = op_layout(op, requested, d.position, d.group_size, ops::info(op).traffic_matrix ? &matrix : nullptr);
      if (layout.count == 0) continue;  // smaller than one element per rank: nothing to move
      // Too big for the device memory of the tightest rank: skipped, with a recorded failure
      // (every rank takes this decision alike: the limit is the world's, the need the group's).
      if (std::uint64_t need = 0; !fits(op, requested, d.group_size, &need)) {
        for (Timing timing : options_.timings) {
          for (bool isolated : {false, true}) {
            if (isolated && !options_.isolated) continue;
            const results::PointKey key{
                "", d.mapping->name, dim_name, op_name, std::string(to_string(timing)), isolated ? "isolated" : "concurrent", layout.bytes};
            if (completed_.count(key) != 0 || reporter_ == nullptr) continue;
            reporter_->point_skipped({results::utc_now_iso8601(), d.mapping->name, dim_name, op_name, layout.bytes,
                                      describe(*d.mapping, d.plan.dim, op, layout.bytes, timing, isolated) + ": the buffers need " +
                                          format_bytes(need) + " of device memory per rank but only " + format_bytes(memory_limit_) +
                                          " are free; not measured"});
          }
        }
        continue;
      }
      for (Timing timing : options_.timings) {
        for (bool isolated : {false, true}) {
          if (isolated && !options_.isolated) continue;
          const std::string concurrency = isolated ? "isolated" : "concurrent";
          results::PointKey key{"", d.mapping->name, dim_name, op_name, std::string(to_string(timing)), concurrency, layout.bytes};
          if (completed_.count(key) != 0) continue;
          out.push_back({&d, op, layout, timing, isolated, std::move(key)});
        }
      }
    }
  }
  return out;
}

results::PointRecord Runner::record_of(const OpenDimension& d, const Visit& v, const PointResult& r) const {
  results::PointRecord rec;
  auto& row = rec.row;
  row.point = v.key;
  row.backend = std::string(backend_.name());
  row.dtype = kDtypeName;
  row.groups = v.isolated ? 1 : static_cast<int>(d.groups.size());
  row.group_size = d.group_size;
  row.iters = r.iters;
  row.warmup = r.warmup;
  row.t_min_us = r.summary.min;
  row.t_median_us = r.summary.median;
  row.t_p90_us = r.summary.p90;
  row.t_p99_us = r.summary.p99;
  row.t_max_us = r.summary.max;
  row.t_mean_us = r.summary.mean;
  const double factor = mapping::busbw_factor(v.op, d.group_size);
  row.algbw_gbps = r.summary.median > 0 ? static_cast<double>(v.layout.algbw_bytes) / r.summary.median / 1e3 : 0;
  row.busbw_gbps = row.algbw_gbps * factor;
  row.wrong = r.wrong;
  row.slowest_group = r.slowest_group;
  for (const auto& g : representative_groups(r.groups, options_.group_rows)) {
    const double algbw = g.median_us > 0 ? static_cast<double>(v.layout.algbw_bytes) / g.median_us / 1e3 : 0;
    rec.groups.push_back({row.point, g.group, g.median_us, g.p90_us, algbw * factor});
  }
  if (r.modelled_us) rec.modelled = results::ModelledTime{row.point, std::string(backend_.name()), *r.modelled_us};
  if (options_.keep_samples) {
    for (std::size_t i = 0; i < r.samples_us.size(); ++i) {
      rec.samples.push_back({row.point, static_cast<int>(i), r.samples_us[i]});
    }
  }
  return rec;
}

}  // namespace meshbench::bench
