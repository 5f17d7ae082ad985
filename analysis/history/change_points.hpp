#pragma once
// Change points in a short series of runs: E-Divisive means (Matteson and James, 2014), the
// method MongoDB's performance CI and Apache Otava use on run histories. It needs no model of the
// noise, only that the runs between two changes come from one distribution; each candidate split
// is scored by the energy distance between the two sides, the best split is tested by
// permutation (the series shuffled, so the runs' order carries no information), and a
// significant split is searched again on each side (binary segmentation).
#include <cstdint>
#include <span>
#include <vector>

namespace meshbench::analysis {

struct ChangePointOptions {
  double p_value = 0.01;     // a split counts when its permutation p-value is at most this
  int permutations = 999;    // p = (1 + shuffles scoring at least as high) / (1 + permutations)
  int min_segment = 3;       // runs on each side of a change, at least
  double min_change = 0.05;  // and the sides' medians differ by at least this fraction
  std::uint64_t seed = 1;    // of the shuffles; the same series and seed give the same answer
};

struct ChangePoint {
  std::size_t index = 0;  // the first run of the new level
  double p_value = 1;
  double before = 0, after = 0;  // medians of the segments on either side (in the series' units)
};

// `log_values`: one value per run in time order, on a log scale (log of a median time), so that
// a change's size is a ratio: exp(after - before). Returned in index order.
std::vector<ChangePoint> find_change_points(std::span<const double> log_values, const ChangePointOptions& options);

// The smallest p-value the permutation test can give a clean step of `min_segment` runs at one
// end of a series of `runs` (the most recent change a gate looks for): the step and its mirror
// score alike and no shuffle scores higher, so p >= 2 / C(runs, min_segment), and never below
// 1 / (permutations + 1). 1 when the series is shorter than 2 · min_segment (never searched).
double smallest_reachable_p(std::size_t runs, int min_segment, int permutations);

// The fewest runs in which such a step can reach `p_value` (0 when none can: too few permutations).
std::size_t runs_needed(int min_segment, double p_value, int permutations);

// The energy statistic of the best split of `values` (for tests): {index, statistic}.
std::pair<std::size_t, double> best_split(std::span<const double> values, int min_segment);

}  // namespace meshbench::analysis
