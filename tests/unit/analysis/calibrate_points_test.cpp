// The fit's view of results files: which link class and how many flows each row's point gets,
// which rows it leaves out, and the one-line refusals when a parameter cannot be determined.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/calibrate/calibrate.hpp"
#include "common/error.hpp"
#include "report_fixture.hpp"

namespace meshbench::analysis {
namespace {

using mapping::CalibrationPoint;
using topology::LinkClass;

const CalibrationPoint* find_point(const std::vector<CalibrationPoint>& points, mapping::Op op, std::uint64_t bytes, int flows) {
  for (const auto& p : points) {
    if (p.op == op && p.bytes == bytes && p.flows == flows) return &p;
  }
  return nullptr;
}

std::string refusal(const CalibrateRequest& r) {
  try {
    calibrate_from_results(r);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no refusal)";
}

class CalibratePointsTest : public ::testing::Test {
 protected:
  testing::ScratchDir dir_;
};

// Identity placement: TP pairs inside a node (PHB), DP pairs across the two nodes, both DP
// groups through each node's one NIC at once (2 flows), one alone when isolated.
TEST_F(CalibratePointsTest, LinkClassAndFlowsOfIsolatedAndConcurrentRows) {
  testing::FixtureFile f(testing::nic_cluster());
  f.add_mapping("block", "tp-cp-ep-dp-pp");
  f.add_point("block", "dp", "all_reduce", 65536, 900.0);
  testing::make_isolated(f.add_point("block", "dp", "all_reduce", 65536, 500.0));
  f.add_point("block", "tp", "all_reduce", 65536, 40.0);
  const auto points = calibration_points({f.write(dir_ / "run.h5")});
  ASSERT_EQ(points.size(), 3u);

  const auto* shared = find_point(points, mapping::Op::all_reduce, 65536, 2);
  ASSERT_NE(shared, nullptr);
  EXPECT_EQ(shared->link, LinkClass::NET);
  EXPECT_EQ(shared->t_us, 900.0);
  EXPECT_EQ(shared->group_size, 2);

  const CalibrationPoint* alone = nullptr;
  for (const auto& p : points) {
    if (p.link == LinkClass::NET && p.flows == 1) alone = &p;
  }
  ASSERT_NE(alone, nullptr);
  EXPECT_EQ(alone->t_us, 500.0);

  const CalibrationPoint* tp = nullptr;
  for (const auto& p : points) {
    if (p.t_us == 40.0) tp = &p;
  }
  ASSERT_NE(tp, nullptr);
  EXPECT_EQ(tp->link, LinkClass::PHB);  // inside a node, the slowest class between its members
  EXPECT_EQ(tp->bytes, 65536u);
}

// Ranks 0,1 on slots 0,2: TP now spans both nodes (NET, 2 flows per NIC), DP stays in a node.
TEST_F(CalibratePointsTest, TwoNodeMappingMovesTheLinkClassWithItsGroups) {
  testing::FixtureFile f(testing::nic_cluster());
  f.add_mapping("spread", "tp-cp-ep-dp-pp", {0, 2, 1, 3});
  f.add_point("spread", "tp", "all_gather", 4096, 300.0);
  f.add_point("spread", "dp", "reduce_scatter", 4096, 20.0);
  const auto points = calibration_points({f.write(dir_ / "run.h5")});
  ASSERT_EQ(points.size(), 2u);
  for (const auto& p : points) {
    if (p.op == mapping::Op::all_gather) {
      EXPECT_EQ(p.link, LinkClass::NET);
      EXPECT_EQ(p.flows, 2);
    } else {
      EXPECT_EQ(p.op, mapping::Op::reduce_scatter);
      EXPECT_EQ(p.link, LinkClass::PHB);
    }
  }
}

TEST_F(CalibratePointsTest, LeavesOutWrongResultsAllToAllvAndTheOtherTimingMode) {
  testing::FixtureFile f(testing::nic_cluster());
  f.add_mapping("block", "tp-cp-ep-dp-pp");
  f.add_point("block", "dp", "all_reduce", 1024, 100.0);
  f.add_point("block", "dp", "all_reduce", 2048, 100.0).row.wrong = 3;
  f.add_point("block", "ep", "all_to_allv", 1024, 100.0);
  f.add_point("block", "ep", "all_to_all", 1024, 90.0);
  f.add_point("block", "dp", "all_reduce", 4096, 50.0, {}, {}, "batched");
  const auto points = calibration_points({f.write(dir_ / "run.h5")});
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].op, mapping::Op::all_reduce);
  EXPECT_EQ(points[0].bytes, 1024u);
  EXPECT_EQ(points[1].op, mapping::Op::all_to_all);
}

TEST_F(CalibratePointsTest, RefusesFilesOfDifferentTopologies) {
  testing::FixtureFile slow(testing::nic_cluster(1.0)), fast(testing::nic_cluster(10.0));
  for (auto* f : {&slow, &fast}) {
    f->add_mapping("block", "tp-cp-ep-dp-pp");
    f->add_point("block", "dp", "all_reduce", 1024, 100.0);
  }
  const auto a = slow.write(dir_ / "slow.h5"), b = fast.write(dir_ / "fast.h5");
  try {
    calibration_points({a, b});
    FAIL() << "two topologies were mixed";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(a), std::string::npos) << what;
    EXPECT_NE(what.find(b), std::string::npos) << what;
    EXPECT_NE(what.find("another topology"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST_F(CalibratePointsTest, RefusesAFileWithoutUsablePoints) {
  testing::FixtureFile f(testing::nic_cluster());
  f.add_mapping("block", "tp-cp-ep-dp-pp");
  f.add_point("block", "ep", "all_to_allv", 1024, 100.0);
  f.add_point("block", "dp", "all_reduce", 2048, 100.0).row.wrong = 1;
  const auto path = f.write(dir_ / "run.h5");
  const std::string what = refusal({{path}, {}, false});
  EXPECT_NE(what.find(path + ": no measured point the fit can use"), std::string::npos) << what;
  EXPECT_NE(what.find("1 with wrong results, 1 all_to_allv"), std::string::npos) << what;
  EXPECT_NE(what.find("-b 8 -e 64M"), std::string::npos) << what;
}

TEST_F(CalibratePointsTest, RefusesTooFewSizesNamingTheLinkClassAndFamily) {
  testing::FixtureFile f(testing::nic_cluster());
  f.add_mapping("block", "tp-cp-ep-dp-pp");
  for (std::uint64_t b : {65536ULL, 1048576ULL})
    testing::make_isolated(f.add_point("block", "dp", "all_reduce", b, 100.0 + static_cast<double>(b) / 100.0));
  const auto path = f.write(dir_ / "run.h5");
  const std::string what = refusal({{path}, {}, false});
  EXPECT_NE(what.find(path + ": NET ring_all_reduce has one-flow points at 2 size(s) (64 KiB, 1 MiB)"), std::string::npos) << what;
  EXPECT_NE(what.find("-b 8 -e 64M"), std::string::npos) << what;
}

TEST_F(CalibratePointsTest, RefusesSizesThatMissTheLatencyEnd) {
  testing::FixtureFile f(testing::nic_cluster());
  f.add_mapping("block", "tp-cp-ep-dp-pp");
  for (std::uint64_t b : {16384ULL, 65536ULL, 1048576ULL})
    testing::make_isolated(f.add_point("block", "dp", "all_gather", b, 100.0 + static_cast<double>(b) / 100.0));
  const std::string what = refusal({{f.write(dir_ / "run.h5")}, {}, false});
  EXPECT_NE(what.find("NET ring_gather has one-flow points at 3 size(s)"), std::string::npos) << what;
  EXPECT_NE(what.find("one <= 4 KiB and one >= 64 KiB"), std::string::npos) << what;
}

TEST_F(CalibratePointsTest, RefusesOnlySharedPointsPointingAtIsolated) {
  testing::FixtureFile f(testing::nic_cluster());
  f.add_mapping("block", "tp-cp-ep-dp-pp");
  for (std::uint64_t b : {1024ULL, 65536ULL, 1048576ULL})
    f.add_point("block", "dp", "all_reduce", b, 100.0 + static_cast<double>(b) / 100.0);
  const std::string what = refusal({{f.write(dir_ / "run.h5")}, {}, false});
  EXPECT_NE(what.find("NET ring_all_reduce has only points where 2 flows share the NIC or uplink"), std::string::npos) << what;
  EXPECT_NE(what.find("--isolated"), std::string::npos) << what;
}

TEST_F(CalibratePointsTest, RefusesMissingSharingWhenRequired) {
  testing::FixtureFile f(testing::nic_cluster());
  f.add_mapping("block", "tp-cp-ep-dp-pp");
  for (std::uint64_t b : {1024ULL, 65536ULL, 1048576ULL})
    testing::make_isolated(f.add_point("block", "dp", "all_reduce", b, 100.0 + static_cast<double>(b) / 100.0));
  const auto path = f.write(dir_ / "run.h5");
  const std::string what = refusal({{path}, {}, true});
  EXPECT_NE(what.find(path + ": no concurrent point of 64 KiB or more where several flows share a NIC"), std::string::npos) << what;
  EXPECT_NE(what.find("the sharing term needs them"), std::string::npos) << what;
}

}  // namespace
}  // namespace meshbench::analysis
