#include "bench/runner.hpp"

#include <algorithm>
#include <set>
#include <tuple>

#include "bench/comm_groups.hpp"
#include "bench/group_selection.hpp"
#include "bench/measure.hpp"
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

Runner::Runner(MPI_Comm world, Backend& backend, RunOptions options, std::vector<int> slot_of_world_rank, Watchdog* watchdog, Reporter* reporter)
    : world_(world), backend_(backend), options_(std::move(options)), slot_of_world_rank_(std::move(slot_of_world_rank)), watchdog_(watchdog),
      reporter_(reporter) {
  MPI_Comm_rank(world_, &rank_);
  memory_limit_ = options_.test_device_memory > 0 ? options_.test_device_memory : backend_.device_memory_bytes();
}

bool Runner::fits(Op op, std::uint64_t requested, int group_size, std::uint64_t* needed) const {
  if (memory_limit_ == 0) return true;
  TrafficMatrix matrix;
  if (op == Op::all_to_allv) matrix = alltoallv_matrix(group_size, requested / kElementBytes, options_.a2av_skew, options_.seed);
  const std::uint64_t need = device_bytes_needed(op, requested, group_size, op == Op::all_to_allv ? &matrix : nullptr);
  if (needed != nullptr) *needed = need;
  return need <= memory_limit_;
}

std::vector<std::string> Runner::points_over_memory(const std::vector<mapping::Mapping>& mappings) const {
  std::vector<std::string> out;
  std::set<std::tuple<Dim, Op, std::uint64_t>> seen;
  for (const auto& m : mappings) {
    for (const auto& p : plan_dimensions(m)) {
      if (!p.skipped.empty()) continue;
      const int group_size = static_cast<int>(measured_groups(m, p.dim).front().size());
      for (Op op : p.ops) {
        for (std::uint64_t requested : sizes_for(p.dim)) {
          std::uint64_t need = 0;
          if (fits(op, requested, group_size, &need) || !seen.emplace(p.dim, op, requested).second) continue;
          out.push_back(std::string(mapping::to_string(p.dim)) + " " + std::string(mapping::to_string(op)) + " " + format_bytes(requested) +
                        " needs " + format_bytes(need));
        }
      }
    }
  }
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
  for (const auto& m : mappings) {
    for (const auto& p : plan_dimensions(m)) {
      if (!p.skipped.empty()) continue;
      const int group_size = static_cast<int>(measured_groups(m, p.dim).front().size());
      for (Op op : p.ops) {
        for (std::uint64_t requested : sizes_for(p.dim)) {
          if (fits(op, requested, group_size)) total += static_cast<int>(options_.timings.size() * (options_.isolated ? 2 : 1));
        }
      }
    }
  }
  return total;
}

void Runner::run(const std::vector<mapping::Mapping>& mappings) {
  for (std::size_t i = 0; i < mappings.size(); ++i) run_mapping(mappings[i], static_cast<int>(i), static_cast<int>(mappings.size()));
  if (reporter_ != nullptr) reporter_->end_run(true);
}

void Runner::run_mapping(const mapping::Mapping& m, int index, int count) {
  if (reporter_ != nullptr) reporter_->begin_mapping(m, index, count);
  for (const auto& plan : plan_dimensions(m)) {
    if (!plan.skipped.empty()) {
      const auto groups = measured_groups(m, plan.dim);
      if (reporter_ != nullptr) reporter_->begin_dimension(plan.dim, static_cast<int>(groups.size()), static_cast<int>(groups.front().size()), plan.skipped);
      continue;
    }
    run_dimension(m, plan);
  }
}

void Runner::run_dimension(const mapping::Mapping& m, const DimPlan& plan) {
  const auto groups = measured_groups(m, plan.dim);
  const int group_size = static_cast<int>(groups.front().size());
  if (reporter_ != nullptr) reporter_->begin_dimension(plan.dim, static_cast<int>(groups.size()), group_size, "");

  // The process stays where the launcher put it and plays the logical rank mapped to its slot:
  // its communicator is the group holding that rank, its rank there the rank's place in the list.
  int group_index = -1, position = -1;
  const auto communicators = dimension_communicators(m, plan.dim, slot_of_world_rank_);
  for (std::size_t g = 0; g < communicators.size() && group_index < 0; ++g) {
    const auto& members = communicators[g].world_ranks;
    const auto it = std::find(members.begin(), members.end(), rank_);
    if (it != members.end()) {
      group_index = static_cast<int>(g);
      position = static_cast<int>(it - members.begin());
    }
  }

  if (watchdog_ != nullptr) {
    watchdog_->set_point("creating the " + std::string(mapping::to_string(plan.dim)) + " communicators of mapping '" + m.name + "'");
  }
  MPI_Comm group_mpi = MPI_COMM_NULL;
  std::unique_ptr<GroupComm> group;
  {
    // Creation grows with the group (bootstrap, and NCCL_DEBUG=INFO's output at 1,000+ ranks).
    const WatchedScope watched(watchdog_, communicator_init_limit_s(options_.watchdog_base_s, group_size));
    MPI_Comm_split(world_, group_index, position, &group_mpi);
    group = backend_.make_group(group_mpi);
  }
  created_.emplace_back(m.name, std::string(mapping::to_string(plan.dim)));

  PointContext ctx;
  ctx.world = world_;
  ctx.group_comm = group_mpi;
  ctx.group_index = group_index;
  ctx.group_count = static_cast<int>(groups.size());
  ctx.group = group.get();
  ctx.watchdog = watchdog_;
  ctx.limit_floor_s = options_.watchdog_base_s;

  const std::string dim_name(mapping::to_string(plan.dim));
  for (Op op : plan.ops) {
    const std::string op_name(mapping::to_string(op));
    for (std::uint64_t requested : sizes_for(plan.dim)) {
      TrafficMatrix matrix;
      if (op == Op::all_to_allv) matrix = alltoallv_matrix(group_size, requested / kElementBytes, options_.a2av_skew, options_.seed);
      const OpLayout layout = op_layout(op, requested, position, group_size, op == Op::all_to_allv ? &matrix : nullptr);
      if (layout.count == 0) continue;  // smaller than one element per rank: nothing to move
      // Too big for the device memory of the tightest rank: skipped, with a recorded failure
      // (every rank takes this decision alike: the limit is the world's, the need the group's).
      if (std::uint64_t need = 0; !fits(op, requested, group_size, &need)) {
        for (Timing timing : options_.timings) {
          for (bool isolated : {false, true}) {
            if (isolated && !options_.isolated) continue;
            const results::PointKey key{m.name, dim_name, op_name, std::string(to_string(timing)), isolated ? "isolated" : "concurrent", layout.bytes};
            if (completed_.count(key) != 0 || reporter_ == nullptr) continue;
            reporter_->point_skipped({results::utc_now_iso8601(), m.name, dim_name, op_name, layout.bytes,
                                      describe(m, plan.dim, op, layout.bytes, timing, isolated) + ": the buffers need " + format_bytes(need) +
                                          " of device memory per rank but only " + format_bytes(memory_limit_) + " are free; not measured"});
          }
        }
        continue;
      }
      ctx.op_limit_s = default_op_limit_s(options_.watchdog_base_s, layout.bytes);
      for (Timing timing : options_.timings) {
        for (bool isolated : {false, true}) {
          if (isolated && !options_.isolated) continue;
          const std::string concurrency = isolated ? "isolated" : "concurrent";
          const results::PointKey key{m.name, dim_name, op_name, std::string(to_string(timing)), concurrency, layout.bytes};
          if (completed_.count(key) != 0) continue;
          if (watchdog_ != nullptr) watchdog_->set_point(describe(m, plan.dim, op, layout.bytes, timing, isolated));
          const bool corrupt = rank_ == 0 && options_.test_corrupt == m.name + ":" + dim_name + ":" + op_name;
          PointResult r;
          try {
            r = isolated ? measure_isolated(ctx, layout, timing, options_.policy)
                         : measure_concurrent(ctx, layout, timing, options_.policy, options_.check, corrupt);
          } catch (const PointNotMeasured& e) {
            // Some rank could not allocate the buffers (the device-memory figure was too hopeful).
            if (reporter_ != nullptr) {
              reporter_->point_skipped({results::utc_now_iso8601(), m.name, dim_name, op_name, layout.bytes,
                                        describe(m, plan.dim, op, layout.bytes, timing, isolated) + ": " + e.what() + "; not measured"});
            }
            continue;
          }
          if (reporter_ == nullptr) continue;
          results::PointRecord rec;
          auto& row = rec.row;
          row.mapping = m.name;
          row.dim = dim_name;
          row.op = op_name;
          row.backend = std::string(backend_.name());
          row.dtype = kDtypeName;
          row.bytes = layout.bytes;
          row.groups = isolated ? 1 : static_cast<int>(groups.size());
          row.group_size = group_size;
          row.iters = r.iters;
          row.warmup = r.warmup;
          row.timing = std::string(to_string(timing));
          row.concurrency = concurrency;
          row.t_min_us = r.summary.min;
          row.t_median_us = r.summary.median;
          row.t_p90_us = r.summary.p90;
          row.t_p99_us = r.summary.p99;
          row.t_max_us = r.summary.max;
          row.t_mean_us = r.summary.mean;
          const double factor = mapping::busbw_factor(op, group_size);
          row.algbw_gbps = r.summary.median > 0 ? static_cast<double>(layout.algbw_bytes) / r.summary.median / 1e3 : 0;
          row.busbw_gbps = row.algbw_gbps * factor;
          row.wrong = r.wrong;
          row.slowest_group = r.slowest_group;
          for (const auto& g : representative_groups(r.groups, options_.group_rows)) {
            const double algbw = g.median_us > 0 ? static_cast<double>(layout.algbw_bytes) / g.median_us / 1e3 : 0;
            rec.groups.push_back({m.name, dim_name, op_name, row.timing, concurrency, layout.bytes, g.group, g.median_us, g.p90_us, algbw * factor});
          }
          if (options_.keep_samples) {
            for (std::size_t i = 0; i < r.samples_us.size(); ++i) {
              rec.samples.push_back({m.name, dim_name, op_name, row.timing, concurrency, layout.bytes, static_cast<int>(i), r.samples_us[i]});
            }
          }
          reporter_->point(rec);
        }
      }
    }
  }
  group.reset();  // backend resources of this dimension go before the next one's are made
  MPI_Comm_free(&group_mpi);
}

}  // namespace meshbench::bench
