#include "analysis/compare/regression_stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "analysis/compare/judge_constants.hpp"

namespace meshbench::analysis {

namespace {

// Midranks (1-based) of the pooled samples, and the tie correction term Σ(t³ − t).
std::vector<double> midranks(std::span<const double> pooled, double& tie_term) {
  std::vector<std::size_t> order(pooled.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return pooled[x] < pooled[y]; });
  std::vector<double> rank(pooled.size());
  tie_term = 0;
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && pooled[order[j + 1]] == pooled[order[i]]) ++j;
    const double mid = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
    for (std::size_t k = i; k <= j; ++k) rank[order[k]] = mid;
    const double t = static_cast<double>(j - i + 1);
    tie_term += t * t * t - t;
    i = j + 1;
  }
  return rank;
}

// P(U <= u) for every u, U the count of (b > a) pairs among n_b and n_a untied samples.
std::vector<double> exact_u_cdf(std::size_t nb, std::size_t na) {
  const std::size_t umax = nb * na;
  // ways[i][j][u]: arrangements of i b's and j a's with u pairs where b is larger; the largest
  // element is either a b (beating all j a's) or an a.
  std::vector<std::vector<std::vector<double>>> ways(nb + 1, std::vector<std::vector<double>>(na + 1));
  for (std::size_t i = 0; i <= nb; ++i) {
    for (std::size_t j = 0; j <= na; ++j) {
      auto& w = ways[i][j];
      w.assign(i * j + 1, 0.0);
      if (i == 0 || j == 0) {
        w[0] = 1;
        continue;
      }
      for (std::size_t u = 0; u <= i * j; ++u) {
        double v = 0;
        if (u >= j && u - j < ways[i - 1][j].size()) v += ways[i - 1][j][u - j];
        if (u < ways[i][j - 1].size()) v += ways[i][j - 1][u];
        w[u] = v;
      }
    }
  }
  const auto& w = ways[nb][na];
  const double total = std::accumulate(w.begin(), w.end(), 0.0);
  std::vector<double> cdf(umax + 1);
  double run = 0;
  for (std::size_t u = 0; u <= umax; ++u) {
    run += w[u];
    cdf[u] = run / total;
  }
  return cdf;
}

double median_abs(std::vector<double> v) {
  for (double& x : v) x = std::fabs(x);
  return median_of(std::move(v));
}

// Continued fraction of the incomplete beta function (modified Lentz), as in Numerical Recipes.
double beta_fraction(double x, double a, double b) {
  constexpr double kTiny = 1e-300, kEps = 1e-15;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 300; ++m) {
    const double dm = m;
    double num = dm * (b - dm) * x / ((a + 2 * dm - 1) * (a + 2 * dm));
    for (int half = 0; half < 2; ++half) {
      d = 1 + num * d;
      if (std::fabs(d) < kTiny) d = kTiny;
      c = 1 + num / c;
      if (std::fabs(c) < kTiny) c = kTiny;
      d = 1 / d;
      h *= d * c;
      num = -(a + dm) * (a + b + dm) * x / ((a + 2 * dm) * (a + 2 * dm + 1));
    }
    if (std::fabs(d * c - 1) < kEps) break;
  }
  return h;
}

// I_x(a, b), the regularised incomplete beta function.
double regularized_beta(double x, double a, double b) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(x, a, b) / a;
  return 1 - front * beta_fraction(1 - x, b, a) / b;
}

// P(X >= k) for X ~ Poisson(lambda).
double poisson_at_least(int k, double lambda) {
  double term = std::exp(-lambda), below = 0;
  for (int i = 0; i < k; ++i) {
    below += term;
    term *= lambda / (i + 1);
  }
  return std::max(0.0, 1 - below);
}

// The median of |T| for Student's t with nu degrees of freedom (its 75th percentile), by
// bisection on the tail; the normal's is 0.6745.
double mad_of_t(double nu);

}  // namespace

double normal_upper_tail(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

namespace {
double mad_of_t(double nu) {
  double lo = 0, hi = 2;
  for (int i = 0; i < 80; ++i) {
    const double mid = (lo + hi) / 2;
    (student_t_upper_tail(mid, nu) > 0.25 ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}
}  // namespace

double student_t_upper_tail(double t, double nu) {
  if (nu <= 0) return normal_upper_tail(t);
  if (t < 0) return 1.0 - student_t_upper_tail(-t, nu);
  // P(T > t) = I_x(nu/2, 1/2) / 2 with x = nu / (nu + t^2).
  return 0.5 * regularized_beta(nu / (nu + t * t), nu / 2.0, 0.5);
}

Scatter run_to_run_scatter(std::span<const double> x, std::size_t min_points) {
  Scatter s;
  s.points = x.size();
  if (x.size() < min_points) return s;
  s.estimated = true;
  s.centre = median_of(std::vector<double>(x.begin(), x.end()));
  std::vector<double> dev;
  for (double v : x) dev.push_back(v - s.centre);
  s.sigma = kMadToSigma * median_abs(dev);
  if (s.sigma <= 0) return s;
  // The lightest tail under which no exceedance count is surprising.
  const double n = static_cast<double>(x.size());
  for (double nu : kTailCandidates) {
    s.tail_nu = nu;
    s.tail_scale = nu <= 0 ? 1.0 : kMadToSigma * mad_of_t(nu);
    bool plausible = true;
    for (double a : kExceedanceLevels) {
      const auto seen = static_cast<int>(std::count_if(dev.begin(), dev.end(), [&](double d) { return std::fabs(d) > a * s.sigma; }));
      if (seen > 0 && poisson_at_least(seen, 2.0 * n * scatter_upper_tail(s, a)) < kExceedancePlausible) plausible = false;
    }
    if (plausible) break;
  }
  return s;
}

void set_tail(Scatter& s, double nu) {
  s.tail_nu = nu;
  s.tail_scale = nu <= 0 ? 1.0 : kMadToSigma * mad_of_t(nu);
}

double scatter_upper_tail(const Scatter& s, double z) {
  if (s.tail_nu <= 0) return normal_upper_tail(z);
  // The t is scaled so that its median absolute value equals the points' (what sigma measures).
  return student_t_upper_tail(z * s.tail_scale, s.tail_nu);
}

double mann_whitney_min_p(std::size_t n_a, std::size_t n_b) {
  // 1 / C(n, k) in logs: lgamma keeps large counts finite.
  const double n = static_cast<double>(n_a + n_b), k = static_cast<double>(n_a);
  return std::exp(std::lgamma(k + 1) + std::lgamma(n - k + 1) - std::lgamma(n + 1));
}

double variance_inflation(std::span<const double> series) {
  const std::size_t n = series.size();
  if (n < 8) return 1.0;
  const double mean = std::accumulate(series.begin(), series.end(), 0.0) / static_cast<double>(n);
  double c0 = 0;
  for (double x : series) c0 += (x - mean) * (x - mean);
  if (c0 <= 0) return 1.0;
  double sum = 0;
  const std::size_t max_lag = std::min(n / 4, kMaxLags);
  for (std::size_t k = 1; k <= max_lag; ++k) {
    double ck = 0;
    for (std::size_t i = 0; i + k < n; ++i) ck += (series[i] - mean) * (series[i + k] - mean);
    const double rho = ck / c0;
    if (rho <= 0) break;
    sum += rho;
  }
  return std::clamp(1.0 + 2.0 * sum, 1.0, static_cast<double>(n));
}

namespace {
MannWhitney mann_whitney_impl(std::span<const double> a, std::span<const double> b, bool ordered);
}  // namespace

MannWhitney mann_whitney(std::span<const double> a, std::span<const double> b) { return mann_whitney_impl(a, b, true); }
MannWhitney mann_whitney_unordered(std::span<const double> a, std::span<const double> b) { return mann_whitney_impl(a, b, false); }

namespace {
MannWhitney mann_whitney_impl(std::span<const double> a, std::span<const double> b, bool ordered) {
  MannWhitney r;
  const std::size_t na = a.size(), nb = b.size(), n = na + nb;
  if (na == 0 || nb == 0) return r;
  std::vector<double> pooled(a.begin(), a.end());
  pooled.insert(pooled.end(), b.begin(), b.end());
  double tie_term = 0;
  const std::vector<double> rank = midranks(pooled, tie_term);
  const double rank_sum_b = std::accumulate(rank.begin() + static_cast<std::ptrdiff_t>(na), rank.end(), 0.0);
  const double dnb = static_cast<double>(nb), dna = static_cast<double>(na), dn = static_cast<double>(n);
  r.u = rank_sum_b - dnb * (dnb + 1.0) / 2.0;
  if (n <= kExactLimit) {
    const auto cdf = exact_u_cdf(nb, na);
    const auto lo = static_cast<std::size_t>(std::floor(r.u));
    const auto hi = static_cast<std::size_t>(std::ceil(r.u));
    r.exact = true;
    r.p_slower = lo == 0 ? 1.0 : 1.0 - cdf[lo - 1];
    r.p_faster = cdf[std::min(hi, cdf.size() - 1)];
    return r;
  }
  const double mean = dna * dnb / 2.0;
  double var = dna * dnb / 12.0 * ((dn + 1.0) - tie_term / (dn * (dn - 1.0)));
  if (var <= 0) return r;
  const double fa = ordered ? variance_inflation(std::span<const double>(rank).first(na)) : 1.0;
  const double fb = ordered ? variance_inflation(std::span<const double>(rank).subspan(na)) : 1.0;
  r.inflation = (fa * dnb + fb * dna) / dn;
  const double sd = std::sqrt(var * r.inflation);
  r.z = (r.u - mean) / sd;
  r.p_slower = normal_upper_tail((r.u - mean - 0.5) / sd);
  r.p_faster = 1.0 - normal_upper_tail((r.u - mean + 0.5) / sd);
  return r;
}

}  // namespace

std::vector<double> benjamini_hochberg(std::span<const double> p_values) {
  const std::size_t m = p_values.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return p_values[x] < p_values[y]; });
  std::vector<double> q(m, 1.0);
  double running = 1.0;
  for (std::size_t i = m; i-- > 0;) {
    const double adjusted = p_values[order[i]] * static_cast<double>(m) / static_cast<double>(i + 1);
    running = std::min(running, adjusted);
    q[order[i]] = std::min(running, 1.0);
  }
  return q;
}

RatioInterval bootstrap_median_ratio(std::span<const double> a, std::span<const double> b, double confidence, int resamples,
                                     std::uint64_t seed) {
  RatioInterval out;
  if (a.empty() || b.empty() || resamples < 2) return out;
  std::mt19937_64 rng(seed);
  // Block length: at least n^(1/3) (the usual rate) and at least the autocorrelation's reach.
  auto block_length = [](std::span<const double> s) {
    const double n = static_cast<double>(s.size());
    const double len = std::max(std::ceil(std::cbrt(n)), std::ceil(variance_inflation(s)));
    return static_cast<std::size_t>(std::clamp(len, 1.0, std::max(1.0, n / 2.0)));
  };
  auto resample_median = [&rng](std::span<const double> s, std::size_t block, std::vector<double>& buf) {
    buf.clear();
    std::uniform_int_distribution<std::size_t> start(0, s.size() - block);
    while (buf.size() < s.size()) {
      const std::size_t from = start(rng);
      for (std::size_t k = 0; k < block && buf.size() < s.size(); ++k) buf.push_back(s[from + k]);
    }
    return median_in_place(buf);
  };
  const std::size_t la = block_length(a), lb = block_length(b);
  std::vector<double> ratios, buf;
  ratios.reserve(static_cast<std::size_t>(resamples));
  for (int i = 0; i < resamples; ++i) {
    const double ma = resample_median(a, la, buf);
    const double mb = resample_median(b, lb, buf);
    if (ma > 0) ratios.push_back(mb / ma);
  }
  if (ratios.empty()) return out;
  std::sort(ratios.begin(), ratios.end());
  const double tail = (1.0 - confidence) / 2.0;
  auto at = [&](double q) {
    const double pos = q * static_cast<double>(ratios.size() - 1);
    return ratios[static_cast<std::size_t>(std::lround(pos))];
  };
  out.low = at(tail);
  out.high = at(1.0 - tail);
  return out;
}

}  // namespace meshbench::analysis
