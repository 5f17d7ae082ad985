#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "bench/backend.hpp"
#include "bench/measure.hpp"
#include "bench/reporter.hpp"
#include "bench/sensors/machine_state.hpp"
#include "bench/sensors/point_sampler.hpp"
#include "bench/timing.hpp"
#include "common/routing_skew.hpp"
#include "mapping/mapping.hpp"
#include "results/records.hpp"

namespace meshbench::bench {

class Watchdog;
class CoreToCoreProbe;

// The groups a dimension is measured on: Megatron's, except DP with CP > 1, which is measured on
// Megatron's dp-cp group — where the dense gradients are reduced, and what the plan's cost model
// prices. The results file stores these under the dimension's name.
mapping::RankGroups measured_groups(const mapping::Mapping& m, mapping::Dim dim);

struct RunOptions {
  std::vector<mapping::Dim> dims;                                // empty: every non-trivial dimension
  std::vector<mapping::Op> ops;                                  // empty: each dimension's typical ops
  std::vector<std::uint64_t> sizes;                              // requested per-rank sizes
  std::map<mapping::Dim, std::vector<std::uint64_t>> dim_sizes;  // per dimension (a workload's), overrides `sizes`
  std::vector<Timing> timings = {Timing::per_iteration, Timing::batched};
  bool isolated = false;  // also measure each group alone
  bool check = true;      // count wrong elements after each point
  bool keep_samples = true;
  std::size_t group_rows = 256;  // per point, groups stored in full up to this many (representative_groups)
  TimingPolicy policy;
  double a2av_skew = kDefaultRoutingSkew;  // common/routing_skew.hpp
  std::uint64_t seed = 1;
  int random_placements = 1;  // random mappings among the candidates (`--random`)
  // Rounds: each visits every point once, in a fresh order shuffled from `seed` and the round;
  // a point's row pools its rounds' samples, and each round's median is kept (results'
  // /round_medians). 1: each point measured once, in the natural order.
  int rounds = 1;
  double watchdog_base_s = 60;
  StatePolicy state;         // the machine-state probe, and measuring a visit again in a better state
  std::string test_corrupt;  // test-only fault: "MAPPING:DIM:OP" gets one wrong element
  // Test-only fault, MESHBENCH_TEST_KILL_AFTER="N:RANK": world rank RANK kills itself once N
  // points of the last round are measured (0: never).
  int test_kill_after = 0;
  int test_kill_rank = -1;
  std::uint64_t test_device_memory = 0;  // test only: this many device bytes instead of the backend's figure
};

// What the machine-state probe saw over a run (rank 0's view, the same on every rank).
struct StateSummary {
  bool probed = false;
  double best_ns = 0;      // the fastest reading of the slowest node
  int remeasured = 0;      // attempts measured again because the state was disturbed
  int left_disturbed = 0;  // visits kept although disturbed (attempts or budget ran out)
  double spent_s = 0;      // waiting and measuring again
};

// Measures mappings: for each one, the process on slot s plays the logical rank the mapping
// assigns to s; every non-trivial dimension's groups become MPI sub-communicators, and each
// dimension's ops run over all its groups at once. Results go to the reporters (rank 0).
class Runner {
 public:
  Runner(MPI_Comm world, Backend& backend, RunOptions options, std::vector<int> slot_of_world_rank, Watchdog* watchdog, Reporter* reporter);
  ~Runner();

  // Read around every visit from now on, in the order added (the NICs' counters, ...); the
  // sampler outlives the runner.
  void add_sampler(PointSampler& sampler) { samplers_.push_back(&sampler); }
  // Points already in the file (--resume) are skipped.
  void skip(const std::vector<results::PointKey>& completed);
  // Points whose buffers do not fit in the backend's device memory (Backend::device_memory_bytes):
  // one line per (dimension, op, size), "ep all_to_allv 1 GiB needs 13.6 GiB". run() skips them,
  // each with a recorded failure. The same on every rank.
  std::vector<std::string> points_over_memory(const std::vector<mapping::Mapping>& mappings) const;
  std::uint64_t memory_limit() const { return memory_limit_; }
  // How many points run() will measure (for the progress line).
  int count_points(const std::vector<mapping::Mapping>& mappings) const;
  void run(const std::vector<mapping::Mapping>& mappings);
  // Every (mapping, dimension) whose communicators were made, in order: the same on every rank.
  const std::vector<std::pair<std::string, std::string>>& communicators_created() const { return created_; }
  const StateSummary& state_summary() const { return state_; }

 private:
  struct DimPlan {
    mapping::Dim dim;
    std::vector<mapping::Op> ops;
    std::string skipped;  // why not measured, if so
  };
  struct OpenDimension;   // one dimension's communicators and point context (runner.cpp)
  struct Visit;           // one point of an open dimension (runner.cpp)
  struct ReportedSoFar {  // the mapping and dimension whose table the console shows last
    const mapping::Mapping* mapping = nullptr;
    const OpenDimension* dimension = nullptr;
  };
  std::vector<DimPlan> plan_dimensions(const mapping::Mapping& m) const;
  // Calls visit(dim, op, requested bytes, group size) for every size of every op of every
  // measured dimension of `mappings`, whether it fits in device memory or not.
  void for_each_op_size(const std::vector<mapping::Mapping>& mappings,
                        const std::function<void(mapping::Dim, mapping::Op, std::uint64_t, int)>& visit) const;
  std::vector<std::uint64_t> sizes_for(mapping::Dim dim) const;
  bool fits(mapping::Op op, std::uint64_t requested, int group_size, std::uint64_t* needed = nullptr) const;
  void run_mapping(const mapping::Mapping& m, int index, int count);
  void run_rounds(const std::vector<mapping::Mapping>& mappings);
  std::vector<Visit> open_every_dimension(const std::vector<mapping::Mapping>& mappings, std::vector<std::unique_ptr<OpenDimension>>& open);
  void report_pooled(const Visit& v, const PointResult& pooled, const std::vector<double>& round_medians,
                     std::vector<results::StateProbe>& states, results::PointReadings& readings, ReportedSoFar& reported) const;
  std::unique_ptr<OpenDimension> open_dimension(const mapping::Mapping& m, const DimPlan& plan);
  // One visit's measurement; nothing when a rank could not allocate its buffers (reported as skipped).
  std::optional<PointResult> measure_visit(const Visit& v, const TimingPolicy& policy);
  // measure_visit between the samplers' calls (point_sampler.hpp), their rows into `readings`.
  std::optional<PointResult> measure_sampled(const Visit& v, const TimingPolicy& policy, int round, int attempt,
                                             results::PointReadings& readings);
  // measure_sampled between two readings of the machine's state; measured again, after waiting
  // for the state to come back, while it is disturbed (StatePolicy). Every attempt goes to `log`.
  std::optional<PointResult> measure_in_state(const Visit& v, const TimingPolicy& policy, int round, std::vector<results::StateProbe>& log,
                                              results::PointReadings& readings);
  StateReading read_state();
  void wait_for_state(const StateReading& from);
  void kill_self_for_test(int finished) const;
  std::vector<Visit> visits_of(const OpenDimension& d) const;
  results::PointRecord record_of(const OpenDimension& d, const Visit& v, const PointResult& r) const;

  MPI_Comm world_;
  int rank_ = 0;
  Backend& backend_;
  RunOptions options_;
  std::vector<int> slot_of_world_rank_;
  Watchdog* watchdog_;
  Reporter* reporter_;
  std::set<results::PointKey> completed_;
  std::vector<std::pair<std::string, std::string>> created_;
  std::uint64_t memory_limit_ = 0;
  std::unique_ptr<CoreToCoreProbe> probe_;
  StateSummary state_;
  std::vector<PointSampler*> samplers_;
};

}  // namespace meshbench::bench
