// The fitted cost model on seeded synthetic points with known answers: what the fit recovers,
// its segments and sharing exponents, the file format and what it refuses.
#include "mapping/calibration.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "synthetic_nodes.hpp"
#include "synthetic_points.hpp"
#include "tests/unit/input_error_text.hpp"

namespace meshbench::mapping {

namespace {

using ops::Family;
using ops::Op;
using testing::Sampling;
using testing::synthetic_points;
using testing::Truth;
using topology::LinkClass;

const LinkFit* fit_of(const Calibration& c, LinkClass link, Family family) {
  for (const auto& f : c.links) {
    if (f.link == link && f.family == family) return &f;
  }
  return nullptr;
}

using test_support::error_of;

// NET all-reduce and send/recv, NVL all-gather: three (link, family) pairs of known α and β.
const std::vector<Truth> kThreeLines = {
    {.link = LinkClass::NET, .op = Op::all_reduce, .alpha_us = 12, .gbps = 11},
    {.link = LinkClass::NET, .op = Op::send_recv, .alpha_us = 6, .gbps = 23},
    {.link = LinkClass::NVL, .op = Op::all_gather, .alpha_us = 1.5, .gbps = 320},
};

Calibration fitted_three_lines() {
  Calibration c = fit_calibration(synthetic_points(kThreeLines, {}));
  c.topology_digest = "0123456789abcdef";
  c.topology_summary = "4 nodes x 8 slots (NVL), 32 NICs per node at 100 Gbit/s";
  c.versions = {{"meshbench", "0.0-test"}, {"mpi", "Open MPI 4.1.4"}};
  c.sources = {"run.h5"};
  c.created_at = "2026-12-01T15:00:00Z";
  c.sharing.nic_exponent = 0.75;
  c.sharing.nic_quality = {.points = 9, .median_rel_error = 0.02, .p90_rel_error = 0.05, .rms_log_residual = 0.03};
  return c;
}

}  // namespace

// 216 points per line (24 sizes 8 B–64 MiB × group sizes 2, 4, 8 × 3 repeats), 3% log-normal noise.
TEST(Calibration, FitRecoversAlphaAndBetaFromNoisyPoints) {
  const Calibration c = fit_calibration(synthetic_points(kThreeLines, {}));
  ASSERT_EQ(c.links.size(), 3U);
  for (const auto& t : kThreeLines) {
    const LinkFit* f = fit_of(c, t.link, ops::info(t.op).family);
    ASSERT_NE(f, nullptr) << topology::to_string(t.link);
    ASSERT_EQ(f->segments.size(), 1U) << "one line fits one segment";
    const auto& s = f->segments.front();
    EXPECT_NEAR(s.alpha_us / t.alpha_us, 1.0, 0.04) << topology::to_string(t.link);
    EXPECT_NEAR(s.bandwidth_gbps / t.gbps, 1.0, 0.03) << topology::to_string(t.link);
    EXPECT_EQ(s.quality.points, 216);
    // The residuals are the noise's: σ = 0.03, so the median |error| is about 0.67σ.
    EXPECT_GT(s.quality.rms_log_residual, 0.02);
    EXPECT_LT(s.quality.rms_log_residual, 0.04);
    EXPECT_LT(s.quality.median_rel_error, 0.03);
    EXPECT_LT(s.quality.p90_rel_error, 0.07);
  }
  EXPECT_FALSE(c.sharing.nic_exponent) << "no concurrent points, no sharing exponent";
  EXPECT_FALSE(c.sharing.uplink_exponent);
}

TEST(Calibration, WithoutNoiseTheFitIsExact) {
  const Calibration c = fit_calibration(synthetic_points(kThreeLines, {.noise = 0}));
  for (const auto& t : kThreeLines) {
    const auto& s = fit_of(c, t.link, ops::info(t.op).family)->segments.front();
    EXPECT_NEAR(s.alpha_us, t.alpha_us, 1e-6 * t.alpha_us);
    EXPECT_NEAR(s.bandwidth_gbps, t.gbps, 1e-6 * t.gbps);
    EXPECT_LT(s.quality.rms_log_residual, 1e-9);
  }
}

// Below 64 KiB a low-latency protocol (5 µs, 2 GB/s), from 64 KiB on a high-bandwidth one (40 µs,
// 12 GB/s): the fit finds the change where it was planted.
TEST(Calibration, AProtocolSwitchBecomesTwoSegmentsAtItsBoundary) {
  const Truth t{
      .link = LinkClass::NET, .op = Op::all_reduce, .alpha_us = 5, .gbps = 2, .switch_bytes = 64 * 1024, .alpha2_us = 40, .gbps2 = 12};
  const Calibration c = fit_calibration(synthetic_points({t}, {.seed = 7}));
  const LinkFit* f = fit_of(c, LinkClass::NET, Family::ring_all_reduce);
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(f->segments.size(), 2U);
  EXPECT_EQ(f->segments[0].min_bytes, 0U);
  EXPECT_EQ(f->segments[1].min_bytes, 64U * 1024);
  EXPECT_NEAR(f->segments[0].alpha_us / 5, 1.0, 0.05);
  EXPECT_NEAR(f->segments[0].bandwidth_gbps / 2, 1.0, 0.05);
  EXPECT_NEAR(f->segments[1].alpha_us / 40, 1.0, 0.10);
  EXPECT_NEAR(f->segments[1].bandwidth_gbps / 12, 1.0, 0.03);
  EXPECT_EQ(f->segments[0].quality.points + f->segments[1].quality.points, 24 * 3 * 3);
  // The time is read off the segment of its size.
  EXPECT_NEAR(*calibrated_time_us(c, LinkClass::NET, Op::all_reduce, 2, 1024, 1), 2 * 5 + 1024 / 2e3, 0.05 * 10.5);
  EXPECT_NEAR(*calibrated_time_us(c, LinkClass::NET, Op::all_reduce, 2, 1 << 20, 1), 2 * 40 + (1 << 20) / 12e3, 0.03 * 167);
}

TEST(Calibration, OneLineStaysOneSegmentEvenWithSegmentsAllowed) {
  const Truth t{.link = LinkClass::NET, .op = Op::all_reduce, .alpha_us = 5, .gbps = 2};
  for (std::uint32_t seed = 1; seed <= 5; ++seed) {
    const Calibration c = fit_calibration(synthetic_points({t}, {.seed = seed}), {.max_segments = 4});
    EXPECT_EQ(fit_of(c, LinkClass::NET, Family::ring_all_reduce)->segments.size(), 1U) << "seed " << seed;
  }
}

TEST(Calibration, SegmentsRespectTheirMinimumPoints) {
  // Two sizes per segment at least: with three sizes, a planted switch at the third cannot split.
  const Truth t{.link = LinkClass::NET, .op = Op::all_reduce, .alpha_us = 5, .gbps = 2, .switch_bytes = 4096, .alpha2_us = 400, .gbps2 = 1};
  const Calibration c = fit_calibration(synthetic_points({t}, {.sizes = {1024, 2048, 4096}, .group_sizes = {2}, .repeats = 2}));
  EXPECT_EQ(fit_of(c, LinkClass::NET, Family::ring_all_reduce)->segments.size(), 1U);
}

// Concurrent points at k = 2, 4, 8 flows per NIC from 64 KiB up, beside the isolated ones.
TEST(Calibration, RecoversTheNicSharingExponent) {
  for (const double gamma : {1.0, 0.5}) {
    const Truth t{.link = LinkClass::NET, .op = Op::all_reduce, .alpha_us = 10, .gbps = 12, .gamma = gamma};
    auto points = synthetic_points({t}, {.seed = 3});
    const auto shared = synthetic_points({t}, {.sizes = testing::doubling_sizes(64 * 1024), .flows = {2, 4, 8}, .seed = 4});
    points.insert(points.end(), shared.begin(), shared.end());
    const Calibration c = fit_calibration(points);
    ASSERT_TRUE(c.sharing.nic_exponent) << gamma;
    EXPECT_NEAR(*c.sharing.nic_exponent, gamma, 0.05);
    EXPECT_FALSE(c.sharing.uplink_exponent);
    EXPECT_EQ(c.sharing.nic_quality.points, static_cast<int>(shared.size()));
    EXPECT_LT(c.sharing.nic_quality.rms_log_residual, 0.05);
    // The base fit used only the isolated points: the concurrent ones would have biased it.
    EXPECT_NEAR(fit_of(c, LinkClass::NET, Family::ring_all_reduce)->segments.front().bandwidth_gbps / 12, 1.0, 0.03);
    const double one = *calibrated_time_us(c, LinkClass::NET, Op::all_reduce, 4, 16 << 20, 1);
    const double four = *calibrated_time_us(c, LinkClass::NET, Op::all_reduce, 4, 16 << 20, 4);
    EXPECT_NEAR(four / one, std::pow(4, gamma), 0.1 * std::pow(4, gamma));
  }
}

TEST(Calibration, RecoversTheUplinkSharingExponent) {
  const Truth t{.link = LinkClass::PXB, .op = Op::all_gather, .alpha_us = 3, .gbps = 20, .gamma = 0.8};
  auto points = synthetic_points({t}, {.seed = 5});
  const auto shared = synthetic_points({t}, {.sizes = testing::doubling_sizes(1 << 20), .flows = {2, 4}, .seed = 6});
  points.insert(points.end(), shared.begin(), shared.end());
  const Calibration c = fit_calibration(points);
  ASSERT_TRUE(c.sharing.uplink_exponent);
  EXPECT_NEAR(*c.sharing.uplink_exponent, 0.8, 0.05);
  EXPECT_FALSE(c.sharing.nic_exponent);
}

TEST(Calibration, SharingIgnoresSmallPointsAndClassesWithoutAShare) {
  const Truth net{.link = LinkClass::NET, .op = Op::all_reduce, .gamma = 0.5};
  const Truth nvl{.link = LinkClass::NVL, .op = Op::all_reduce, .alpha_us = 1, .gbps = 300};
  auto points = synthetic_points({net, nvl}, {});
  // Concurrent points below min_sharing_bytes (latency-bound) and on NVL (no NIC or uplink).
  const auto small = synthetic_points({net}, {.sizes = testing::doubling_sizes(8, 32 * 1024), .flows = {4}});
  const auto nvl_shared = synthetic_points({nvl}, {.flows = {4}});
  points.insert(points.end(), small.begin(), small.end());
  points.insert(points.end(), nvl_shared.begin(), nvl_shared.end());
  const Calibration c = fit_calibration(points);
  EXPECT_FALSE(c.sharing.nic_exponent);
  EXPECT_FALSE(c.sharing.uplink_exponent);
}

TEST(Calibration, TimeIsNulloptWhereNothingWasFittedAndAFairShareWhereSharingIsUnknown) {
  const Calibration c = fit_calibration(synthetic_points(kThreeLines, {.noise = 0}));
  EXPECT_FALSE(calibrated_time_us(c, LinkClass::NET, Op::all_to_all, 4, 1024, 1));
  EXPECT_FALSE(calibrated_time_us(c, LinkClass::PXB, Op::all_reduce, 4, 1024, 1));
  // Same family, other op: all-gather's fit prices reduce-scatter.
  const double ag = *calibrated_time_us(c, LinkClass::NVL, Op::all_gather, 8, 1 << 20, 1);
  EXPECT_DOUBLE_EQ(*calibrated_time_us(c, LinkClass::NVL, Op::reduce_scatter, 8, 1 << 20, 1), ag);
  EXPECT_NEAR(ag, 7 * 1.5 + (1 << 20) * 7.0 / 8 / 320e3, 1e-6 * ag);
  // No exponent fitted: k flows get a fair share, bandwidth term × k.
  const double one = *calibrated_time_us(c, LinkClass::NET, Op::all_reduce, 2, 64 << 20, 1);
  const double three = *calibrated_time_us(c, LinkClass::NET, Op::all_reduce, 2, 64 << 20, 3);
  EXPECT_NEAR(three - 2 * 12, 3 * (one - 2 * 12), 1e-6 * three);
}

TEST(Calibration, PointsTheFitCannotUseAreSkipped) {
  std::vector<CalibrationPoint> points = synthetic_points(kThreeLines, {.noise = 0});
  const auto clean = fit_calibration(points);
  points.push_back({LinkClass::NET, Op::all_reduce, 4, 1, 1024, 0.0});   // no time
  points.push_back({LinkClass::NET, Op::all_reduce, 4, 1, 1024, -3.0});  // negative
  points.push_back({LinkClass::NET, Op::all_reduce, 1, 1, 1024, 50.0});  // a group of one
  // all_to_allv's skew is the run's traffic matrix, not the model's: its points are not fitted.
  points.push_back({LinkClass::NET, Op::all_to_allv, 4, 1, 1024, 50.0});
  points.push_back({LinkClass::NET, Op::all_to_allv, 4, 1, 4096, 60.0});
  points.push_back({LinkClass::NET, Op::all_to_allv, 4, 1, 8192, 70.0});
  EXPECT_EQ(fit_calibration(points), clean);
  // Too few points, or one size only: nothing fitted for that pair.
  EXPECT_TRUE(fit_calibration(synthetic_points(kThreeLines, {.sizes = {4096}})).links.empty());
  EXPECT_TRUE(fit_calibration(synthetic_points(kThreeLines, {.sizes = {4096, 8192}, .group_sizes = {2}, .repeats = 1})).links.empty());
}

// NET links at two line rates, as on a cluster with one slow node: the same 80% of the line and
// the same α on both. Points that name their line rate fit one line scaled per link.
std::vector<CalibrationPoint> two_line_rates(int flows, double gamma, std::uint64_t from_bytes) {
  std::vector<CalibrationPoint> out;
  for (const double line : {10.0, 5.0}) {
    const Truth t{.link = LinkClass::NET, .op = Op::all_reduce, .alpha_us = 20, .gbps = 0.8 * line, .gamma = gamma};
    for (auto p : synthetic_points({t}, {.sizes = testing::doubling_sizes(from_bytes), .flows = {flows}, .noise = 0})) {
      p.line_gbps = line;
      out.push_back(p);
    }
  }
  return out;
}

TEST(Calibration, LinksOfAnotherLineRateScaleTheFittedBandwidth) {
  auto points = two_line_rates(1, 1, 8);
  const auto shared = two_line_rates(4, 0.5, 64 * 1024);
  points.insert(points.end(), shared.begin(), shared.end());
  const Calibration c = fit_calibration(points);
  const LinkFit* f = fit_of(c, LinkClass::NET, Family::ring_all_reduce);
  ASSERT_NE(f, nullptr);
  // The median of 10 and 5 GB/s points, half of each: the upper one.
  EXPECT_DOUBLE_EQ(f->line_gbps, 10);
  EXPECT_NEAR(f->segments.front().bandwidth_gbps, 8, 8e-3);
  ASSERT_TRUE(c.sharing.nic_exponent);
  EXPECT_NEAR(*c.sharing.nic_exponent, 0.5, 1e-3);
  const Truth slow{.link = LinkClass::NET, .op = Op::all_reduce, .alpha_us = 20, .gbps = 4};
  for (const std::uint64_t bytes : {std::uint64_t{4096}, std::uint64_t{64} << 20}) {
    EXPECT_NEAR(*calibrated_time_us(c, LinkClass::NET, Op::all_reduce, 4, bytes, 1, 5.0), testing::true_time_us(slow, 4, bytes, 1),
                1e-3 * testing::true_time_us(slow, 4, bytes, 1));
    EXPECT_NEAR(*calibrated_time_us(c, LinkClass::NET, Op::all_reduce, 4, bytes, 4, 5.0),
                6 * 20 + (testing::true_time_us(slow, 4, bytes, 1) - 6 * 20) * 2, 1e-3 * testing::true_time_us(slow, 4, bytes, 4));
  }
  // A link of unknown rate gets the bandwidth as fitted, at the reference line.
  EXPECT_DOUBLE_EQ(*calibrated_time_us(c, LinkClass::NET, Op::all_reduce, 4, 1 << 20, 1, 0),
                   *calibrated_time_us(c, LinkClass::NET, Op::all_reduce, 4, 1 << 20, 1, 10.0));

  // Without the line rates the two links blur into one fit that misprices both by tens of percent.
  auto blind = points;
  for (auto& p : blind) p.line_gbps = 0;
  const Calibration b = fit_calibration(blind);
  EXPECT_EQ(fit_of(b, LinkClass::NET, Family::ring_all_reduce)->line_gbps, 0);
  const double truth = testing::true_time_us(slow, 4, 64 << 20, 1);
  EXPECT_GT(std::abs(*calibrated_time_us(b, LinkClass::NET, Op::all_reduce, 4, 64 << 20, 1, 5.0) - truth), 0.2 * truth);

  // The reference line travels through the file; a file without the key reads as 0.
  Calibration file = c;
  file.topology_digest = "0123456789abcdef";
  const auto text = to_json(file).dump();
  EXPECT_EQ(calibration_from_json(nlohmann::json::parse(text), "'c.json'"), file);
  auto old = nlohmann::json::parse(text);
  for (auto& link : old["links"]) link.erase("line_gbps");
  EXPECT_EQ(calibration_from_json(old, "'c.json'").links.front().line_gbps, 0);
  EXPECT_FALSE(to_json(b)["links"][0].contains("line_gbps"));
}

TEST(Calibration, JsonRoundTripsExactly) {
  const Calibration c = fitted_three_lines();
  const auto text = to_json(c).dump(2);
  const auto back = calibration_from_json(nlohmann::json::parse(text), "'c.json'");
  EXPECT_EQ(back, c);
  EXPECT_EQ(to_json(back).dump(2), text);
  EXPECT_TRUE(is_calibration_json(nlohmann::json::parse(text)));
  EXPECT_FALSE(is_calibration_json(nlohmann::json::parse(R"({"links": {"NET": {"alpha_us": 12}}})")));
  EXPECT_EQ(to_json(c)["calibration_version"], 1);
  EXPECT_TRUE(to_json(c)["sharing"]["uplink"]["exponent"].is_null());
}

TEST(Calibration, MalformedFilesAreRefusedNamingTheFileAndTheKey) {
  const nlohmann::json good = to_json(fitted_three_lines());
  const auto refusal = [](nlohmann::json j) { return error_of([&j] { calibration_from_json(j, "'cost.json'"); }); };
  struct Case {
    std::function<void(nlohmann::json&)> edit;
    std::string says;
  };
  const std::vector<Case> cases = {
      {[](nlohmann::json& j) { j["calibration_version"] = 2; }, "has calibration_version 2; this meshbench reads version 1"},
      {[](nlohmann::json& j) { j["calibration_version"] = "1"; }, "'calibration_version' must be an integer"},
      {[](nlohmann::json& j) { j["colour"] = "blue"; }, "'colour' is not a calibration key"},
      // A key with a line break (found by fuzzing): shown as '?', the refusal stays one line.
      {[](nlohmann::json& j) { j["created_a\nt"] = "2026"; }, "'created_a?t' is not a calibration key"},
      {[](nlohmann::json& j) { j.erase("sharing"); }, "'sharing' is missing"},
      {[](nlohmann::json& j) { j["links"][0]["link"] = "QPI"; }, "'links[0].link' names no link class: 'QPI'"},
      {[](nlohmann::json& j) { j["links"][1]["family"] = "tree"; }, "'links[1].family' names no op family: 'tree'"},
      {[](nlohmann::json& j) { j["links"][0]["segments"][0]["alpha_us"] = "fast"; }, "'links[0].segments[0].alpha_us' must be a number"},
      {[](nlohmann::json& j) { j["links"][0]["segments"][0]["bandwidth_gbps"] = 0; },
       "'links[0].segments[0].bandwidth_gbps' must be a finite number above 0"},
      {[](nlohmann::json& j) { j["links"][0]["segments"][0]["min_bytes"] = 8; }, "'links[0].segments[0].min_bytes' must be 0"},
      {[](nlohmann::json& j) { j["links"][0]["segments"][0]["quality"]["points"] = -1; },
       "'links[0].segments[0].quality.points' must be an integer >= 0"},
      {[](nlohmann::json& j) { j["links"][0]["segments"][0]["slope"] = 1; }, "'links[0].segments[0].slope' is not a calibration key"},
      {[](nlohmann::json& j) { j["links"][0]["segments"] = nlohmann::json::array(); },
       "'links[0].segments' must hold at least one segment"},
      {[](nlohmann::json& j) { j["links"].push_back(j["links"][0]); }, "'links[3]' fits"},
      {[](nlohmann::json& j) { j["sharing"]["nic"]["exponent"] = -0.5; }, "'sharing.nic.exponent' must be a finite number >= 0"},
      {[](nlohmann::json& j) { j["links"][0]["line_gbps"] = "fast"; }, "'links[0].line_gbps' must be a number"},
      {[](nlohmann::json& j) { j["topology"]["digest"] = "xyz"; }, "'topology.digest' must be 16 lower-case hex digits"},
      {[](nlohmann::json& j) { j["sources"] = "run.h5"; }, "'sources' must be a list"},
      {[](nlohmann::json& j) { j["versions"]["nccl"] = 2; }, "'versions.nccl' must be a string"},
      {[](nlohmann::json& j) { j = nlohmann::json::array(); }, "'calibration_version' is missing"},
  };
  for (const auto& c : cases) {
    nlohmann::json j = good;
    c.edit(j);
    const std::string e = refusal(j);
    EXPECT_NE(e.find("calibration 'cost.json'"), std::string::npos) << e;
    EXPECT_NE(e.find(c.says), std::string::npos) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
  // Segments out of order.
  nlohmann::json j = good;
  j["links"][0]["segments"].push_back(j["links"][0]["segments"][0]);
  EXPECT_NE(refusal(j).find("'links[0].segments[1].min_bytes' must be above the previous segment's"), std::string::npos) << refusal(j);
}

TEST(Calibration, DigestFollowsWhatTheFitDependsOn) {
  const auto p5 = testing::p5_node();
  const auto four = topology::ClusterTopology::replicate(p5, 4);
  EXPECT_EQ(calibration_digest(four), calibration_digest(topology::ClusterTopology::replicate(p5, 4)));
  EXPECT_EQ(calibration_digest(four).size(), 16U);
  // Per-node descriptions of the same hardware, other hostnames: the same digest.
  std::vector<topology::NodeTopology> nodes;
  for (int i = 0; i < 4; ++i) nodes.push_back(testing::make_node({}, "host" + std::to_string(i)));
  EXPECT_EQ(calibration_digest(topology::ClusterTopology::from_nodes(nodes)), calibration_digest(four));
  // Node count, NIC speed, NIC count, link classes: each changes it.
  EXPECT_NE(calibration_digest(topology::ClusterTopology::replicate(p5, 2)), calibration_digest(four));
  nodes[3].nics[0].speed_gbps = 3.125;
  EXPECT_NE(calibration_digest(topology::ClusterTopology::from_nodes(nodes)), calibration_digest(four));
  EXPECT_NE(calibration_digest(topology::ClusterTopology::replicate(testing::make_node({.nics = 16}), 4)), calibration_digest(four));
  EXPECT_NE(calibration_digest(topology::ClusterTopology::replicate(testing::make_node({.nvlink = false}), 4)), calibration_digest(four));
  EXPECT_EQ(calibration_summary(four), "4 nodes x 8 slots (NVL), 32 NICs per node at 100 Gbit/s");
}

TEST(Calibration, AnotherTopologyIsRefused) {
  const auto four = topology::ClusterTopology::replicate(testing::p5_node(), 4);
  const auto two = topology::ClusterTopology::replicate(testing::p5_node(), 2);
  Calibration c = fitted_three_lines();
  c.topology_digest = calibration_digest(four);
  c.topology_summary = calibration_summary(four);
  EXPECT_NO_THROW(check_calibration_topology(c, four, "'cost.json'"));
  const std::string e = error_of([&] { check_calibration_topology(c, two, "'cost.json'"); });
  EXPECT_NE(e.find("calibration 'cost.json' was measured on 4 nodes x 8 slots"), std::string::npos) << e;
  EXPECT_NE(e.find("not on this 2 nodes x 8 slots"), std::string::npos) << e;
  EXPECT_NE(e.find("re-run meshbench calibrate on this allocation"), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
}

}  // namespace meshbench::mapping
