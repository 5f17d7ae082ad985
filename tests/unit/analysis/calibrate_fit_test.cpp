// End to end: a results file whose medians follow known α, β and NIC sharing → the fit from
// results files → the calibration file → the parameters it holds are the ones planted.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "analysis/calibrate/calibrate.hpp"
#include "analysis/report/report.hpp"
#include "common/error.hpp"
#include "mapping/ops.hpp"
#include "report_fixture.hpp"

namespace meshbench::analysis {
namespace {

struct Planted {
  double alpha_us, bandwidth_gbps;
};

// t = steps·α + bytes·factor / (bandwidth·1e3) · k^exponent for an all-reduce of two ranks
// (steps 2, factor 1), with a fixed ±1% wobble so the fit sees noise.
double planted_time(const Planted& p, std::uint64_t bytes, int flows, double exponent, int wobble) {
  const double t = 2.0 * p.alpha_us + static_cast<double>(bytes) / (p.bandwidth_gbps * 1e3) * std::pow(flows, exponent);
  return t * (1.0 + 0.01 * ((wobble % 3) - 1));
}

const mapping::SizeSegment* segment_at(const mapping::Calibration& c, topology::LinkClass link, ops::Family family, std::uint64_t bytes) {
  for (const auto& l : c.links) {
    if (l.link != link || l.family != family) continue;
    const mapping::SizeSegment* at = nullptr;
    for (const auto& s : l.segments) {
      if (s.min_bytes <= bytes) at = &s;
    }
    return at;
  }
  return nullptr;
}

const Planted kNet{30.0, 0.1}, kPhb{2.0, 4.0};
constexpr double kExponent = 1.0;  // two flows on one NIC each get half of it

// TP inside a node (PHB), DP across (NET, 2 flows per NIC), from 8 B to 64 MiB.
void add_planted_points(testing::FixtureFile& f) {
  f.add_mapping("block", "tp-cp-ep-dp-pp");
  const Planted net = kNet, phb = kPhb;
  const double exponent = kExponent;
  int k = 0;
  for (std::uint64_t b = 8; b <= (64ULL << 20); b *= 4, ++k) {
    testing::make_isolated(f.add_point("block", "dp", "all_reduce", b, planted_time(net, b, 1, exponent, k)));
    f.add_point("block", "dp", "all_reduce", b, planted_time(net, b, 2, exponent, k + 1));
    testing::make_isolated(f.add_point("block", "tp", "all_reduce", b, planted_time(phb, b, 1, exponent, k + 2)));
  }
}

TEST(CalibrateFit, RecoversPlantedAlphaBandwidthAndNicSharing) {
  testing::ScratchDir dir;
  testing::FixtureFile f(testing::nic_cluster());
  add_planted_points(f);
  const Planted net = kNet, phb = kPhb;
  const double exponent = kExponent;
  const auto path = f.write(dir.path() / "run.h5");

  CalibrateRequest request;
  request.results_files = {path};
  request.require_sharing = true;
  const mapping::Calibration fitted = calibrate_from_results(request);
  EXPECT_EQ(fitted.sources, std::vector<std::string>{path});
  EXPECT_FALSE(fitted.topology_digest.empty());
  EXPECT_EQ(fitted.versions.at("meshbench"), "0.1.0");

  // Through the file, as `meshbench calibrate --out` writes it and `--cost-model` reads it.
  const auto json_path = dir.path() / "cost.json";
  std::ofstream(json_path) << mapping::to_json(fitted).dump(2);
  std::ifstream in(json_path);
  const mapping::Calibration c = mapping::calibration_from_json(nlohmann::json::parse(in), json_path.string());
  EXPECT_EQ(c, fitted);

  for (const auto& [link, planted] : {std::pair{topology::LinkClass::NET, net}, std::pair{topology::LinkClass::PHB, phb}}) {
    // Read where each parameter shows: α at the smallest size, the bandwidth at the largest.
    const auto* small = segment_at(c, link, ops::Family::ring_all_reduce, 8);
    const auto* large = segment_at(c, link, ops::Family::ring_all_reduce, 64ULL << 20);
    ASSERT_NE(small, nullptr) << topology::to_string(link);
    ASSERT_NE(large, nullptr) << topology::to_string(link);
    EXPECT_NEAR(small->alpha_us, planted.alpha_us, 0.1 * planted.alpha_us) << topology::to_string(link);
    EXPECT_NEAR(large->bandwidth_gbps, planted.bandwidth_gbps, 0.05 * planted.bandwidth_gbps) << topology::to_string(link);
  }
  ASSERT_TRUE(c.sharing.nic_exponent.has_value());
  EXPECT_NEAR(*c.sharing.nic_exponent, exponent, 0.1);
  EXPECT_GT(c.sharing.nic_quality.points, 0);
}

// The report judges a calibration beside the uncalibrated model: the one stored in the results
// file, or --cost-model's, which must come from the same topology.
TEST(CalibrateFit, TheReportJudgesTheStoredOrGivenCalibration) {
  testing::ScratchDir dir;
  testing::FixtureFile f(testing::nic_cluster());
  add_planted_points(f);
  const auto path = f.write(dir.path() / "run.h5");
  const mapping::Calibration c = calibrate_from_results({{path}, {}, true});
  const std::string json = mapping::to_json(c).dump();
  { std::ofstream(dir.path() / "cost.json") << json; }

  testing::FixtureFile stored(testing::nic_cluster());
  add_planted_points(stored);
  stored.set_calibration_json(json);
  const auto file = results::ResultsFile::open(stored.write(dir.path() / "stored.h5"));
  const auto predictors = report_predictors(file, "");
  ASSERT_EQ(predictors.size(), 2u);
  EXPECT_EQ(predictors[1].name, "calibrated");
  EXPECT_EQ(predictors[1].source, "the calibration stored in the results file");
  const Report r = build_report(file, std::nullopt, "", predictors);
  ASSERT_TRUE(r.accuracy.has_value());
  const auto& plain = r.accuracy->predictors[0];
  const auto& fitted = r.accuracy->predictors[1];
  // Fitted on these very points (±1% wobble): far closer than the defaults at 1 Gbit/s.
  EXPECT_LT(fitted.large.median_rel_error, 0.05);
  EXPECT_LT(fitted.shared_large.median_rel_error, 0.05);
  EXPECT_GT(fitted.shared_large.points, 0);
  EXPECT_LT(fitted.all.median_rel_error, plain.all.median_rel_error);

  const auto given = report_predictors(results::ResultsFile::open(path), (dir.path() / "cost.json").string());
  ASSERT_EQ(given.size(), 2u);
  EXPECT_TRUE(given[1].params.calibration.has_value());

  // A calibration of another topology (NICs ten times faster) is refused in one line.
  testing::FixtureFile other(testing::nic_cluster(10.0));
  add_planted_points(other);
  const auto other_path = other.write(dir.path() / "other.h5");
  try {
    report_predictors(results::ResultsFile::open(other_path), (dir.path() / "cost.json").string());
    FAIL() << "a calibration of another topology was used";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cost.json"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace meshbench::analysis
