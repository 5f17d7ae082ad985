#include "mapping/plan_set.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "mapping/cost_model.hpp"
#include "synthetic_nodes.hpp"
#include "tests/unit/input_error_text.hpp"
#include "tests/unit/scratch_dir.hpp"

namespace meshbench::mapping {

namespace {

using test_support::error_of;

Plan plan_for(const Layout& layout, int nodes = 1) {
  const auto topo = topology::ClusterTopology::replicate(testing::p5_node(), nodes);
  const CostModel model(topo, default_cost_params(topo));
  return make_plan(layout, model, topo, generate_candidates(layout, topo, model, {.with_groups = false}));
}

const Layout kEp2{.world = 8, .tp = 1, .cp = 1, .pp = 1, .ep = 2, .etp = 1};
const Layout kEp4{.world = 8, .tp = 1, .cp = 1, .pp = 1, .ep = 4, .etp = 1};

}  // namespace

TEST(PlanSet, NamesLayoutsBySizesAboveOne) {
  EXPECT_EQ(layout_name(kEp4), "ep4");
  EXPECT_EQ(layout_name({.world = 16, .tp = 2, .cp = 1, .pp = 2, .ep = 4, .etp = 1}), "tp2-pp2-ep4-etp1");
  EXPECT_EQ(layout_name({.world = 8}), "dp8");
}

TEST(PlanSet, RoundTripsLayoutsAndEstimatesThroughTheFile) {
  const test_support::ScratchDir scratch("mb-plan-set");
  const std::string path = (scratch.path() / "layouts.json").string();
  const nlohmann::json estimate = {{"step_time_ms", 812.5}, {"memory_gib", {{"peak", 61.2}}}};
  const PlanSet set = make_plan_set({plan_for(kEp2), plan_for(kEp4)}, {estimate, std::nullopt});
  write_plan_set(set, path, false);

  const PlanSet back = load_plan_set(path);
  ASSERT_EQ(back.layouts.size(), 2U);
  EXPECT_EQ(back.layouts[0].name, "ep2");
  EXPECT_EQ(back.layouts[1].name, "ep4");
  ASSERT_TRUE(back.layouts[0].estimate.has_value());
  EXPECT_EQ(*back.layouts[0].estimate, estimate);
  EXPECT_FALSE(back.layouts[1].estimate.has_value());
  EXPECT_EQ(back.layouts[1].plan.layout, kEp4);
  ASSERT_EQ(back.layouts[1].plan.mappings.size(), set.layouts[1].plan.mappings.size());
  EXPECT_EQ(back.layouts[1].plan.mappings[0].mapping.slot_of_rank, set.layouts[1].plan.mappings[0].mapping.slot_of_rank);
  EXPECT_EQ(back.layouts[1].plan.mappings[0].mapping.name, set.layouts[1].plan.mappings[0].mapping.name);
  // Each placement on one line, as in a plan of one layout.
  std::ifstream in(path);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  EXPECT_NE(text.find("\"slot_of_rank\": [0,1,2,3,4,5,6,7]"), std::string::npos) << text.substr(0, 400);
  EXPECT_NE(error_of([&] { write_plan_set(set, path, false); }).find("pass --force"), std::string::npos);
}

TEST(PlanSet, ReadsAPlanOfOneLayoutAsASetOfOne) {
  const test_support::ScratchDir scratch("mb-plan-set");
  const std::string path = (scratch.path() / "plan.json").string();
  const Plan plan = plan_for(kEp2);
  write_plan(plan, path, false);
  const PlanSet set = load_plan_set(path);
  ASSERT_EQ(set.layouts.size(), 1U);
  EXPECT_EQ(set.layouts[0].name, "ep2");
  EXPECT_FALSE(set.layouts[0].estimate.has_value());
  EXPECT_EQ(set.layouts[0].plan.mappings.size(), plan.mappings.size());
  // And a set of one without an estimate is written as that plain plan, which load_plan reads.
  const std::string again = (scratch.path() / "again.json").string();
  write_plan_set(set, again, false);
  EXPECT_EQ(load_plan(again).mappings.size(), plan.mappings.size());
}

TEST(PlanSet, RefusesLayoutsOfDifferentWorldsAndTwiceTheSameLayout) {
  const std::string worlds = error_of([] { make_plan_set({plan_for(kEp2), plan_for({.world = 16, .ep = 4}, 2)}); });
  EXPECT_NE(worlds.find("layout 'ep4' is planned for 16 ranks and layout 'ep2' for 8"), std::string::npos) << worlds;
  EXPECT_NE(worlds.find("separate plan files"), std::string::npos) << worlds;
  const std::string twice = error_of([] { make_plan_set({plan_for(kEp2), plan_for(kEp2)}); });
  EXPECT_NE(twice.find("holds layout 'ep2' twice"), std::string::npos) << twice;
}

TEST(PlanSet, PrefixesMappingNamesWithTheirLayoutWhenThereAreSeveral) {
  PlanSet set = make_plan_set({plan_for(kEp2), plan_for(kEp4)});
  const std::string first = set.layouts[1].plan.mappings[0].mapping.name;
  prefix_mapping_names(set);
  EXPECT_EQ(set.layouts[1].plan.mappings[0].mapping.name, "ep4/" + first);
  EXPECT_NE(set.layouts[0].plan.find("ep2/order:tp-cp-ep-dp-pp"), nullptr);
  PlanSet one = make_plan_set({plan_for(kEp2)});
  prefix_mapping_names(one);
  EXPECT_EQ(one.layouts[0].plan.mappings[0].mapping.name.find('/'), std::string::npos);
}

}  // namespace meshbench::mapping
