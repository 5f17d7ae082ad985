#pragma once
// The statistics behind `meshbench compare` (docs/report.md, "Which test and why").
#include <cstdint>
#include <span>
#include <vector>

#include "analysis/compare/judge_constants.hpp"
#include "common/median.hpp"

namespace meshbench::analysis {

// How strongly consecutive samples of one run depend on each other: the factor by which the
// variance of their mean exceeds the independent case, 1 + 2·Σ_k ρ_k over the initial positive
// sequence of autocorrelations (Geyer), at most n/4 lags, clamped to [1, n]. A run's
// per-iteration times drift with the machine's load, so n samples carry fewer than n
// independent observations; ignoring that makes every test overconfident.
double variance_inflation(std::span<const double> series);

struct MannWhitney {
  double u = 0;          // U statistic of `slower` (ties count one half)
  double z = 0;          // standardised, with continuity correction; 0 for exact p-values
  double p_slower = 1;   // one-sided: `slower` tends to take longer than `faster`
  double p_faster = 1;   // the other tail
  double inflation = 1;  // variance inflation applied (1 with the exact distribution)
  bool exact = false;    // small samples: exact null distribution (no ties correction)
};

// One-sided Mann–Whitney U test that `b` is stochastically larger than `a` (and the reverse),
// with samples in time order. Small samples (n_a + n_b <= 40) use the exact distribution;
// larger ones the normal approximation with the tie correction and the variance inflated by
// each run's autocorrelation (variance_inflation of its ranks).
MannWhitney mann_whitney(std::span<const double> a, std::span<const double> b);
// The same test for samples with no time order (no autocorrelation correction).
MannWhitney mann_whitney_unordered(std::span<const double> a, std::span<const double> b);

// How far the points of two runs of one configuration move relative to each other: the centre
// and robust scale of their log ratios log(new/base), and how heavy the tails are. Runs of one
// configuration are exchangeable, so the points' log ratios scatter symmetrically around the
// run-level shift; on a shared, oversubscribed machine some points jump by 10x and more between
// honest reruns, and a normal tail would call each such jump a regression. The tail is the
// lightest Student t (nu = inf, 10, 5, 3, 2, 1; scaled so that its MAD matches) under which the
// points' exceedances of 2.5, 3, 4, 5 and 8 robust sigmas are not surprising (Poisson upper tail
// above 0.2 each): a quiet cluster keeps the normal tail and its power, a noisy machine gets the
// tail it shows. Regressions among the points make the tail heavier, never lighter.
struct Scatter {
  double centre = 0;      // median log ratio: the run-level shift
  double sigma = 0;       // 1.4826 * MAD of the log ratios
  double tail_nu = 0;     // degrees of freedom of the tail; 0 for the normal
  double tail_scale = 1;  // standardised point -> t value (1 for the normal)
  std::size_t points = 0;
  bool estimated = false;  // false below `min_points`
};
Scatter run_to_run_scatter(std::span<const double> log_ratios, std::size_t min_points = kMinScatterPoints);
// P(X > z) for X standardised as (log ratio - centre) / sigma under the scatter's tail.
double scatter_upper_tail(const Scatter& scatter, double z);
// Gives the scatter a Student t tail with nu degrees of freedom (0: the normal), scaled so that
// its MAD stays the scatter's.
void set_tail(Scatter& scatter, double nu);

// Upper tail of Student's t with nu degrees of freedom (nu <= 0: the normal).
double student_t_upper_tail(double t, double nu);

// The smallest one-sided p-value the exact Mann–Whitney test can give for these sample counts,
// 1 / C(n_a + n_b, n_a): with few samples (a batched point's few batches) no difference can
// reach significance, and the test must not be asked to.
double mann_whitney_min_p(std::size_t n_a, std::size_t n_b);

// One-sided normal tail P(Z > z).
double normal_upper_tail(double z);

// Benjamini–Hochberg adjusted p-values (q-values), in the input's order: a row is a discovery
// at false-discovery rate alpha when its q-value is at most alpha.
std::vector<double> benjamini_hochberg(std::span<const double> p_values);

// Median of a sample (common/median.hpp), as compare's statistics and their callers name it.
using meshbench::median_in_place;
using meshbench::median_of;

// A confidence interval of median(b) / median(a) by a moving-block bootstrap: blocks of
// consecutive samples keep each run's autocorrelation. Deterministic for a seed.
struct RatioInterval {
  double low = 0, high = 0;
};
RatioInterval bootstrap_median_ratio(std::span<const double> a, std::span<const double> b, double confidence, int resamples,
                                     std::uint64_t seed);

}  // namespace meshbench::analysis
