#pragma once
// A results file's measurements as curves (time and busbw against size), the lookup that lets a
// dimension the run skipped borrow the curve of the dimension with the same groups, and the
// interpolation that reads a curve at any size.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "results/point_key.hpp"
#include "results/reader.hpp"

namespace meshbench::analysis {

struct CurvePoint {
  std::uint64_t bytes = 0;
  double t_median_us = 0;
  double busbw_gbps = 0;
  int iters = 0;
  std::int64_t wrong = -1;
};

// One op of one mapping's dimension in one timing mode and concurrency, sorted by size.
struct Curve {
  // The key its points share: a point's key with bytes 0 and no layout (key_of(row); the mapping
  // names its layout). A PointKey rather than a key type of its own: a curve is one point's
  // series over sizes, as the report groups points elsewhere too (spreads_at_largest_size);
  // with bytes set to a size it is the key of the curve's point there (the CSV writer's rows);
  // and one type leaves no second list of fields to keep in step with PointKey's.
  results::PointKey key;
  int group_size = 0;
  std::vector<CurvePoint> points;
};

// How a curve was read at a size.
enum class ReadHow { measured, interpolated, below_range, extrapolated };
const char* to_string(ReadHow how);

struct CurveRead {
  double t_us = 0;
  ReadHow how = ReadHow::measured;
};

// Log-log interpolation between the measured sizes around `bytes`; below the smallest size the
// smallest size's time (latency dominates there); beyond the largest, linear in bytes through
// the last two points (bandwidth dominates there), or proportional to bytes when those two
// points do not rise (noise). A curve without points reads as 0.
CurveRead read_curve(const Curve& curve, std::uint64_t bytes);

class CurveSet {
 public:
  // Every curve of the file, per timing and concurrency.
  explicit CurveSet(const results::ResultsFile& file);

  const std::vector<Curve>& curves() const { return curves_; }
  // The curve of (mapping, dim, op) in `timing`/`concurrency`. Where that dimension was not
  // measured because its groups equal another dimension's (run skips etp when ETP = TP, edp
  // when its groups equal dp's), the other dimension's curve (its `dim` says which); nullptr
  // when neither exists.
  const Curve* find(const std::string& mapping, const std::string& dim, const std::string& op, const std::string& timing,
                    const std::string& concurrency) const;
  // The timing mode to rank with: per_iteration where the file has it, else batched.
  const std::string& preferred_timing() const { return preferred_timing_; }
  // Dimensions whose group sets equal `dim`'s in `mapping` (dim itself excluded), in the
  // order of mapping::kAllDims.
  std::vector<std::string> same_groups(const std::string& mapping, const std::string& dim) const;

 private:
  std::vector<Curve> curves_;
  std::map<results::PointKey, std::size_t> index_;                                                // a curve's key -> its index in curves_
  std::map<std::string, std::map<std::string, std::vector<std::vector<int>>>> canonical_groups_;  // mapping -> dim -> sorted groups
  std::string preferred_timing_ = "per_iteration";
};

// Canonical form of a dimension's groups: ranks sorted in each group, groups sorted.
std::vector<std::vector<int>> canonical(std::vector<std::vector<int>> groups);

}  // namespace meshbench::analysis
