// The fitted cost model (docs/mapping.md, "Calibration"). Per (link class, op family):
//   t = latency_steps(op, n)·α + bytes·busbw_factor(op, n)·u·sharing(k),   u = 1/(GB/s·1e3) µs/B,
// the same two terms the α-β model prices with (op_terms.hpp). α and u are fitted on the
// isolated points by least squares on relative error — each row divided by its measured time,
// so a 10 µs point weighs as much as a 10 ms one — which is a linear 2×2 solve; size segments
// split the range where one line does not fit (protocol changes); the sharing exponent γ of
// sharing(k) = k^γ is then fitted on the concurrent points with α and u held. Where the points
// name their links' line rates, u is fitted at the median line rate L₀ and each point's load is
// scaled by L₀ / its line rate: one fit for a class whose links differ in speed (a slow node).
#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "calibration_stats.hpp"
#include "mapping/calibration.hpp"
#include "op_terms.hpp"

namespace meshbench::mapping {

using topology::LinkClass;

namespace {

// The fastest bandwidth a segment may claim: where its points show no size dependence at all,
// the bandwidth term is held at this floor instead of vanishing (u > 0 keeps the file finite).
constexpr double kMaxGbps = 1e6;
const double kMinUsPerByte = detail::us_per_byte(kMaxGbps);
// Boundaries tried per segment: every size step up to this many, else this many spread evenly.
constexpr std::size_t kMaxCandidateSplits = 64;

// One isolated point as the linear fit sees it: t ≈ steps·α + load·u.
struct Row {
  std::uint64_t bytes;
  double steps, load, t;
};

// The normal equations' sums of rows (steps/t, load/t) against the target 1.
struct Sums {
  double aa = 0, ab = 0, bb = 0, a = 0, b = 0, n = 0;
  void add(const Row& r) {
    const double x = r.steps / r.t, y = r.load / r.t;
    aa += x * x;
    ab += x * y;
    bb += y * y;
    a += x;
    b += y;
    n += 1;
  }
  Sums operator-(const Sums& o) const { return {aa - o.aa, ab - o.ab, bb - o.bb, a - o.a, b - o.b, n - o.n}; }
  // Σ(rel. error)² of (α, u), from the sums alone.
  double sse(double alpha, double u) const { return alpha * alpha * aa + 2 * alpha * u * ab + u * u * bb - 2 * alpha * a - 2 * u * b + n; }
};

struct Line {
  double alpha = 0, u = kMinUsPerByte;
};

// Minimises Σ((steps·α + load·u − t)/t)² with α ≥ 0, u ≥ the floor: the unconstrained solution
// when it is feasible, else the better of the two one-term fits on the boundary.
Line solve(const Sums& s) {
  std::vector<Line> tries;
  const double det = s.aa * s.bb - s.ab * s.ab;
  if (det > 1e-12 * s.aa * s.bb) {
    const Line free{(s.a * s.bb - s.b * s.ab) / det, (s.b * s.aa - s.a * s.ab) / det};
    if (free.alpha >= 0 && free.u >= kMinUsPerByte) return free;
  }
  if (s.bb > 0) tries.push_back({0, std::max(kMinUsPerByte, s.b / s.bb)});                             // bandwidth only
  if (s.aa > 0) tries.push_back({std::max(0.0, (s.a - kMinUsPerByte * s.ab) / s.aa), kMinUsPerByte});  // latency only
  Line best;
  double best_sse = s.sse(best.alpha, best.u);
  for (const Line& l : tries) {
    if (const double e = s.sse(l.alpha, l.u); e < best_sse) {
      best = l;
      best_sse = e;
    }
  }
  return best;
}

double predict(const Line& l, const Row& r) { return r.steps * l.alpha + r.load * l.u; }

double log_residual(double predicted, double measured) { return std::log(std::max(predicted, 1e-300) / measured); }

// Σ ln(t̂/t)² of rows [lo, hi) under `l`.
double log_sse(const std::vector<Row>& rows, std::size_t lo, std::size_t hi, const Line& l) {
  double sum = 0;
  for (std::size_t i = lo; i < hi; ++i) {
    const double r = log_residual(predict(l, rows[i]), rows[i].t);
    sum += r * r;
  }
  return sum;
}

struct Segment {
  std::size_t lo, hi;
  Line line;
  double sse;  // Σ ln(t̂/t)²
};

// The best split of one segment: where it goes and what the two sides fit.
struct Split {
  std::size_t at = 0;
  Segment left, right;
  bool found = false;
};

// Tries every boundary between two sizes of `seg` (or kMaxCandidateSplits of them) that leaves
// each side with enough points at two sizes or more; keeps the one with the least Σ ln².
Split best_split(const std::vector<Row>& rows, const std::vector<int>& distinct_before, const Segment& seg, const FitOptions& o) {
  std::vector<Sums> prefix(seg.hi - seg.lo + 1);
  for (std::size_t i = seg.lo; i < seg.hi; ++i) {
    prefix[i - seg.lo + 1] = prefix[i - seg.lo];
    prefix[i - seg.lo + 1].add(rows[i]);
  }
  std::vector<std::size_t> boundaries;
  const auto min_points = static_cast<std::size_t>(std::max(1, o.min_points_per_segment));
  for (std::size_t i = seg.lo + 1; i < seg.hi; ++i) {
    if (rows[i - 1].bytes == rows[i].bytes) continue;
    if (i - seg.lo < min_points || seg.hi - i < min_points) continue;
    // Two sizes or more on each side: a line through one size is no fit.
    if (distinct_before[i] - distinct_before[seg.lo] < 2 || distinct_before[seg.hi] - distinct_before[i] < 2) continue;
    boundaries.push_back(i);
  }
  if (boundaries.size() > kMaxCandidateSplits) {
    std::vector<std::size_t> spread;
    for (std::size_t k = 0; k < kMaxCandidateSplits; ++k) spread.push_back(boundaries[k * boundaries.size() / kMaxCandidateSplits]);
    boundaries = std::move(spread);
  }
  Split best;
  double best_sse = 0;
  for (std::size_t at : boundaries) {
    const Line left = solve(prefix[at - seg.lo]);
    const Line right = solve(prefix.back() - prefix[at - seg.lo]);
    const double l = log_sse(rows, seg.lo, at, left), r = log_sse(rows, at, seg.hi, right);
    if (!best.found || l + r < best_sse) {
      best = {at, {seg.lo, at, left, l}, {at, seg.hi, right, r}, true};
      best_sse = l + r;
    }
  }
  return best;
}

FitQuality quality_of(const std::vector<Row>& rows, const Segment& seg) {
  std::vector<double> rel;
  double sum = 0;
  for (std::size_t i = seg.lo; i < seg.hi; ++i) {
    const double p = predict(seg.line, rows[i]);
    rel.push_back(std::abs(p - rows[i].t) / rows[i].t);
    const double r = log_residual(p, rows[i].t);
    sum += r * r;
  }
  return detail::fit_quality(rel, sum);
}

// Binary segmentation of the rows (sorted by size): split where the rms log residual drops most,
// while it drops by min_segment_gain and max_segments allows.
std::vector<SizeSegment> segment_fit(const std::vector<Row>& rows, const FitOptions& o) {
  std::vector<int> distinct_before(rows.size() + 1, 0);  // distinct sizes among rows [0, i)
  for (std::size_t i = 0; i < rows.size(); ++i)
    distinct_before[i + 1] = distinct_before[i] + (i == 0 || rows[i].bytes != rows[i - 1].bytes ? 1 : 0);
  Sums all;
  for (const Row& r : rows) all.add(r);
  std::vector<Segment> segments{{0, rows.size(), solve(all), 0}};
  segments.front().sse = log_sse(rows, 0, rows.size(), segments.front().line);
  std::vector<Split> splits{best_split(rows, distinct_before, segments.front(), o)};  // per segment, computed once
  while (static_cast<int>(segments.size()) < o.max_segments) {
    double total = 0;
    for (const auto& s : segments) total += s.sse;
    std::size_t pick = segments.size();
    double pick_total = total;
    for (std::size_t k = 0; k < segments.size(); ++k) {
      if (!splits[k].found) continue;
      const double t = total - segments[k].sse + splits[k].left.sse + splits[k].right.sse;
      if (t < pick_total) {
        pick = k;
        pick_total = t;
      }
    }
    // The rms over all rows falls by the factor sqrt(new Σ / old Σ).
    if (pick == segments.size() || total <= 0 || std::sqrt(pick_total / total) > 1 - o.min_segment_gain) break;
    const Split chosen = splits[pick];
    segments[pick] = chosen.left;
    segments.insert(segments.begin() + static_cast<std::ptrdiff_t>(pick) + 1, chosen.right);
    splits[pick] = best_split(rows, distinct_before, chosen.left, o);
    splits.insert(splits.begin() + static_cast<std::ptrdiff_t>(pick) + 1, best_split(rows, distinct_before, chosen.right, o));
  }
  std::vector<SizeSegment> out;
  for (const auto& s : segments) {
    out.push_back({out.empty() ? 0 : rows[s.lo].bytes, s.line.alpha, 1.0 / (s.line.u * 1e3), quality_of(rows, s)});
  }
  return out;
}

using LinkFamily = std::pair<LinkClass, ops::Family>;

// The class whose sharing a concurrent point measures: the NIC across nodes, a PCIe switch's
// uplink inside one; none for the others.
enum class Bottleneck { none, nic, uplink };
Bottleneck bottleneck_of(LinkClass c) {
  if (c == LinkClass::NET) return Bottleneck::nic;
  if (c == LinkClass::PIX || c == LinkClass::PXB || c == LinkClass::PHB) return Bottleneck::uplink;
  return Bottleneck::none;
}

const SizeSegment& segment_for(const LinkFit& fit, std::uint64_t bytes) {
  const auto it = std::upper_bound(fit.segments.begin(), fit.segments.end(), bytes,
                                   [](std::uint64_t b, const SizeSegment& s) { return b < s.min_bytes; });
  return it == fit.segments.begin() ? fit.segments.front() : *std::prev(it);
}

// A concurrent point with its isolated terms: t ≈ latency + bandwidth·k^γ.
struct SharedRow {
  double latency, bandwidth, log_k, t;
};

double shared_log_sse(const std::vector<SharedRow>& rows, double gamma) {
  double sum = 0;
  for (const auto& r : rows) {
    const double e = log_residual(r.latency + r.bandwidth * std::exp(gamma * r.log_k), r.t);
    sum += e * e;
  }
  return sum;
}

// γ on [0, 2] minimising the rms log residual: a coarse grid finds the valley (the objective need
// not be unimodal over the whole range), golden section refines it.
double fit_exponent(const std::vector<SharedRow>& rows) {
  constexpr int kGrid = 40;
  constexpr double kHi = 2.0;
  int best = 0;
  double best_sse = shared_log_sse(rows, 0);
  for (int i = 1; i <= kGrid; ++i) {
    if (const double e = shared_log_sse(rows, kHi * i / kGrid); e < best_sse) {
      best = i;
      best_sse = e;
    }
  }
  double lo = kHi * std::max(0, best - 1) / kGrid, hi = kHi * std::min(kGrid, best + 1) / kGrid;
  const double phi = (std::sqrt(5.0) - 1) / 2;
  double x1 = hi - phi * (hi - lo), x2 = lo + phi * (hi - lo);
  double f1 = shared_log_sse(rows, x1), f2 = shared_log_sse(rows, x2);
  for (int i = 0; i < 60 && hi - lo > 1e-9; ++i) {
    if (f1 < f2) {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - phi * (hi - lo);
      f1 = shared_log_sse(rows, x1);
    } else {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + phi * (hi - lo);
      f2 = shared_log_sse(rows, x2);
    }
  }
  const double g = (lo + hi) / 2;
  return shared_log_sse(rows, g) <= best_sse ? g : kHi * best / kGrid;
}

FitQuality shared_quality(const std::vector<SharedRow>& rows, double gamma) {
  std::vector<double> rel;
  double sum = 0;
  for (const auto& r : rows) {
    const double p = r.latency + r.bandwidth * std::exp(gamma * r.log_k);
    rel.push_back(std::abs(p - r.t) / r.t);
    const double e = log_residual(p, r.t);
    sum += e * e;
  }
  return detail::fit_quality(rel, sum);
}

const LinkFit* find_fit(const Calibration& c, LinkClass link, ops::Family family) {
  for (const auto& f : c.links) {
    if (f.link == link && f.family == family) return &f;
  }
  return nullptr;
}

// The line rate a fit's bandwidths hold at: the median of its points' line rates, 0 unless
// every point names one (a mix would scale some points and not others).
double reference_line_gbps(const std::vector<const CalibrationPoint*>& points) {
  std::vector<double> lines;
  for (const CalibrationPoint* p : points) {
    if (!(p->line_gbps > 0) || !std::isfinite(p->line_gbps)) return 0;
    lines.push_back(p->line_gbps);
  }
  if (lines.empty()) return 0;
  std::nth_element(lines.begin(), lines.begin() + static_cast<std::ptrdiff_t>(lines.size() / 2), lines.end());
  return lines[lines.size() / 2];
}

// How much longer a byte takes on a link of `line_gbps` than at the fit's `reference_gbps`: 1
// where either is unknown.
double line_scale(double reference_gbps, double line_gbps) {
  return reference_gbps > 0 && line_gbps > 0 && std::isfinite(line_gbps) ? reference_gbps / line_gbps : 1.0;
}

// A point the fit can use: a group, a positive finite time, and an op whose traffic is uniform
// (all_to_allv's skew belongs to the run's traffic matrix; the model applies its own).
bool usable(const CalibrationPoint& p) {
  return p.group_size >= 2 && p.t_us > 0 && std::isfinite(p.t_us) && !ops::info(p.op).traffic_matrix;
}

}  // namespace

Calibration fit_calibration(std::span<const CalibrationPoint> points, const FitOptions& options) {
  std::map<LinkFamily, std::vector<const CalibrationPoint*>> isolated;
  for (const auto& p : points) {
    if (usable(p) && p.flows <= 1) isolated[{p.link, ops::info(p.op).family}].push_back(&p);
  }
  Calibration c;
  for (const auto& [key, chosen] : isolated) {
    const double line = reference_line_gbps(chosen);
    std::vector<Row> rows;
    for (const CalibrationPoint* p : chosen) {
      rows.push_back({p->bytes, detail::latency_steps(p->op, p->group_size),
                      static_cast<double>(p->bytes) * ops::busbw_factor(p->op, p->group_size) * line_scale(line, p->line_gbps), p->t_us});
    }
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.bytes < b.bytes; });
    const bool two_sizes = rows.front().bytes != rows.back().bytes;
    // A (link, family) with too few isolated points is left to the α-β model (no fit from
    // concurrent points alone: their sharing and their α-β could not be told apart).
    if (static_cast<int>(rows.size()) < options.min_points_per_segment || !two_sizes) continue;
    c.links.push_back({key.first, key.second, segment_fit(rows, options), line});
  }
  std::vector<SharedRow> nic, uplink;
  for (const auto& p : points) {
    if (!usable(p) || p.flows <= 1 || p.bytes < options.min_sharing_bytes) continue;
    const Bottleneck b = bottleneck_of(p.link);
    const LinkFit* fit = find_fit(c, p.link, ops::info(p.op).family);
    if (b == Bottleneck::none || fit == nullptr) continue;
    const SizeSegment& s = segment_for(*fit, p.bytes);
    const SharedRow row{detail::latency_steps(p.op, p.group_size) * s.alpha_us,
                        static_cast<double>(p.bytes) * ops::busbw_factor(p.op, p.group_size) * detail::us_per_byte(s.bandwidth_gbps) *
                            line_scale(fit->line_gbps, p.line_gbps),
                        std::log(static_cast<double>(p.flows)), p.t_us};
    (b == Bottleneck::nic ? nic : uplink).push_back(row);
  }
  if (!nic.empty()) {
    c.sharing.nic_exponent = fit_exponent(nic);
    c.sharing.nic_quality = shared_quality(nic, *c.sharing.nic_exponent);
  }
  if (!uplink.empty()) {
    c.sharing.uplink_exponent = fit_exponent(uplink);
    c.sharing.uplink_quality = shared_quality(uplink, *c.sharing.uplink_exponent);
  }
  return c;
}

std::optional<double> calibrated_time_us(const Calibration& calibration, LinkClass link, ops::Op op, int group_size, std::uint64_t bytes,
                                         int flows, double line_gbps) {
  const LinkFit* fit = find_fit(calibration, link, ops::info(op).family);
  if (fit == nullptr || fit->segments.empty()) return std::nullopt;
  if (group_size <= 1) return 0.0;
  const SizeSegment& s = segment_for(*fit, bytes);
  double sharing = 1;
  if (flows > 1) {
    // The bottleneck's fitted exponent; a fair share (k^1) where it is unknown.
    const Bottleneck b = bottleneck_of(link);
    const std::optional<double> gamma = b == Bottleneck::nic      ? calibration.sharing.nic_exponent
                                        : b == Bottleneck::uplink ? calibration.sharing.uplink_exponent
                                                                  : std::nullopt;
    sharing = std::pow(static_cast<double>(flows), gamma.value_or(1.0));
  }
  return detail::latency_steps(op, group_size) * s.alpha_us + static_cast<double>(bytes) * ops::busbw_factor(op, group_size) *
                                                                  detail::us_per_byte(s.bandwidth_gbps) *
                                                                  line_scale(fit->line_gbps, line_gbps) * sharing;
}

}  // namespace meshbench::mapping
