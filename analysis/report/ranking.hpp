#pragma once
// Ranks a results file's mappings by measured cost: with a workload, the estimated
// communication time per training step (per dimension and in total); without one, the
// geometric mean over the commonly measured points of each mapping's time over the best
// mapping's time at that point.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/report/curves.hpp"
#include "mapping/workload.hpp"

namespace meshbench::analysis {

// One op of the workload's step on one mapping: the measured curve read at the op's size.
struct OpEstimate {
  std::string dim, op;
  std::uint64_t bytes = 0;
  double calls_per_step = 0;
  double per_call_us = 0;
  double step_us = 0;      // per_call_us × calls_per_step
  std::string source_dim;  // the dimension whose curve was read (another's when borrowed)
  ReadHow how = ReadHow::measured;
  bool missing = false;  // no curve for this op: left out of the total
};

struct DimScore {
  std::string dim;
  double value = 0;  // µs per step (workload) or geometric-mean time ratio (default)
  bool complete = true;
};

struct RankedMapping {
  int rank = 0;  // 1 = best
  std::string name, how;
  std::uint64_t digest = 0;
  double score = 0;             // the ranking key: µs per step, or geometric-mean ratio
  double vs_best = 1;           // score / best score
  std::vector<DimScore> dims;   // Ranking::dims order
  std::vector<OpEstimate> ops;  // workload ranking only
  int points = 0;               // default ranking: points in the geometric mean
  bool complete = true;         // every op of the step had a curve
};

struct Ranking {
  enum class Basis { workload, default_ratio } basis = Basis::default_ratio;
  std::string workload_name;
  std::string workload_source;  // "results file" or the --workload path
  std::string timing = "per_iteration";
  std::string concurrency = "concurrent";
  std::vector<std::string> dims;        // dimensions with a score, in kAllDims order
  std::vector<RankedMapping> mappings;  // best first
  std::vector<std::string> notes;       // borrowed curves, extrapolation, left-out points
  std::string unit() const { return basis == Basis::workload ? "us/step" : "x best"; }
};

// Ranks with a workload: mapping::step_traffic(workload, layout) read off each mapping's
// concurrent curves in the preferred timing mode. Mappings that lack a curve for some op rank
// after the complete ones.
// In a file of several layouts each mapping's traffic is its own layout's, with that layout's
// stored workload when `layouts_own_workload` (the workload came from the file) and it has one.
Ranking rank_by_workload(const results::ResultsFile& file, const CurveSet& curves, const mapping::Workload& workload,
                         bool layouts_own_workload = false);
// Ranks without a workload: for every (dim, op, size) measured for all mappings (after
// borrowing), the ratio of each mapping's median to the best median there; a mapping's score
// is the geometric mean of its ratios (1 = fastest everywhere), and per dimension likewise.
Ranking rank_by_default(const results::ResultsFile& file, const CurveSet& curves);

// The file's layout as mapping::Layout (world, sizes, order); in a file of several, the first.
mapping::Layout layout_of(const results::ResultsFile& file);
// The layout a mapping of the file belongs to.
mapping::Layout layout_of(const results::ResultsFile& file, const std::string& mapping);
mapping::Layout layout_of(const results::LayoutRecord& layout);

}  // namespace meshbench::analysis
