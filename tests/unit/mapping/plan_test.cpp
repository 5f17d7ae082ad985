#include "mapping/plan.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "mapping/exports.hpp"
#include "mapping/plan_text.hpp"
#include "synthetic_nodes.hpp"
#include "tests/unit/input_error_text.hpp"
#include "tests/unit/scratch_dir.hpp"

namespace meshbench::mapping {

namespace {

namespace fs = std::filesystem;

std::string temp_path(const std::string& name) {
  const auto dir = test_support::temp_dir("mapping_plan_test");
  const auto p = dir / name;
  fs::remove_all(p);
  return p.string();
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

using test_support::error_of;

struct P5Plan {
  topology::ClusterTopology topo = topology::ClusterTopology::replicate(testing::p5_node(), 4);
  Layout layout{.world = 32, .tp = 8, .cp = 1, .pp = 4, .ep = 8, .etp = 1};
  Plan plan;
  P5Plan() {
    const CostModel model(topo, default_cost_params(topo));
    plan = make_plan(layout, model, topo, generate_candidates(layout, topo, model, {.with_groups = false}));
  }
};

// 2 nodes "a", "b" of 2 GPUs; local 0 on NUMA 0, local 1 on NUMA 1.
PlanTopology two_by_two() {
  PlanTopology t;
  t.hostnames = {"a", "b"};
  t.slots_per_node = {2, 2};
  t.node_types = {"", ""};
  t.gpu_index = {{0, 1}, {0, 1}};
  t.numa = {{0, 1}, {0, 1}};
  return t;
}

}  // namespace

TEST(Plan, RoundTripsThroughTheFile) {
  const P5Plan p;
  const auto path = temp_path("plan.json");
  write_plan(p.plan, path, false);
  const Plan back = load_plan(path);
  ASSERT_EQ(back.mappings.size(), p.plan.mappings.size());
  EXPECT_EQ(back.layout, p.plan.layout);
  EXPECT_EQ(back.cost_model, p.plan.cost_model);
  EXPECT_EQ(back.topology.hostnames, p.plan.topology.hostnames);
  EXPECT_EQ(back.time_basis, "sweep");
  for (std::size_t i = 0; i < back.mappings.size(); ++i) {
    const auto& a = p.plan.mappings[i];
    const auto& b = back.mappings[i];
    EXPECT_EQ(b.mapping.name, a.mapping.name);
    EXPECT_EQ(b.mapping.slot_of_rank, a.mapping.slot_of_rank);
    EXPECT_EQ(b.mapping.aliases, a.mapping.aliases);
    EXPECT_EQ(b.mapping.layout.order, a.mapping.layout.order);
    EXPECT_EQ(b.digest, a.digest);
    EXPECT_EQ(b.rank, static_cast<int>(i) + 1);
    EXPECT_DOUBLE_EQ(b.predicted_total_us, a.predicted_total_us);
    EXPECT_EQ(b[Dim::tp].crosses_nodes, a[Dim::tp].crosses_nodes);
    // load_plan fills the group lists for run.
    EXPECT_EQ(b.mapping.groups[Dim::tp], rank_groups(b.mapping.layout)[Dim::tp]);
  }
  EXPECT_NO_THROW(check_plan_matches(back, p.topo));
  EXPECT_NE(error_of([&] {
              check_plan_matches(back, topology::ClusterTopology::replicate(testing::p5_node(), 2));
            }).find("made for 4 nodes x 8 slots"),
            std::string::npos);
}

TEST(Plan, WritesAtomicallyAndRefusesToOverwrite) {
  const P5Plan p;
  const auto path = temp_path("exists.json");
  write_plan(p.plan, path, false);
  EXPECT_NE(error_of([&] { write_plan(p.plan, path, false); }).find("pass --force"), std::string::npos);
  EXPECT_NO_THROW(write_plan(p.plan, path, true));
  for (const auto& e : fs::directory_iterator(fs::path(path).parent_path())) EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos);
  EXPECT_NE(error_of([&] { write_plan(p.plan, temp_path("no/such/dir/plan.json"), false); }).find("cannot write"), std::string::npos);
}

TEST(Plan, LoadRejectsBadFiles) {
  const P5Plan p;
  const auto good = temp_path("good.json");
  write_plan(p.plan, good, false);
  const auto original = nlohmann::json::parse(read(good));
  auto variant = [&](const std::string& name, const std::function<void(nlohmann::json&)>& edit) {
    auto j = original;
    edit(j);
    const auto path = temp_path(name);
    std::ofstream(path) << j.dump();
    return error_of([&] { (void)load_plan(path); });
  };
  EXPECT_NE(error_of([&] { (void)load_plan(temp_path("missing.json")); }).find("cannot read plan file"), std::string::npos);
  {
    const auto path = temp_path("broken.json");
    std::ofstream(path) << "{\"format\": ";
    EXPECT_NE(error_of([&] { (void)load_plan(path); }).find("not valid JSON"), std::string::npos);
  }
  EXPECT_NE(variant("format.json", [](auto& j) { j["format"] = "other"; }).find("not a meshbench plan"), std::string::npos);
  EXPECT_NE(variant("version.json", [](auto& j) { j["version"] = 99; }).find("format version 99"), std::string::npos);
  EXPECT_NE(variant("swap.json", [](auto& j) { std::swap(j["mappings"][0]["slot_of_rank"][0], j["mappings"][0]["slot_of_rank"][9]); })
                .find("does not match its digest"),
            std::string::npos);
  EXPECT_NE(variant("dup.json",
                    [](auto& j) {
                      j["mappings"][0]["slot_of_rank"][0] = 1;
                      j["mappings"][0]["slot_of_rank"][1] = 1;
                    })
                .find("not a permutation"),
            std::string::npos);
  EXPECT_NE(variant("layout.json", [](auto& j) { j["layout"]["tp"] = 3; }).find("not divisible"), std::string::npos);
  EXPECT_NE(variant("nomap.json", [](auto& j) { j["mappings"] = nlohmann::json::array(); }).find("lists no mappings"), std::string::npos);
  EXPECT_NE(variant("type.json", [](auto& j) { j["layout"]["world"] = "32"; }).find("layout.world must be an integer"), std::string::npos);
  // 2^32 + 8 once read as tp 8, the plan's own value, and passed.
  EXPECT_NE(variant("wrap.json", [](auto& j) { j["layout"]["tp"] = 4294967304ULL; }).find("layout.tp must be an integer that fits an int"),
            std::string::npos);
}

// Hand-checked exports for a 2×2 cluster and slot_of_rank [3, 0, 2, 1]: rank 0 on b/GPU 1,
// rank 1 on a/GPU 0, rank 2 on b/GPU 0, rank 3 on a/GPU 1. On a the local ranks are 1, 3
// (GPUs 0, 1); on b they are 0, 2 (GPUs 1, 0).
TEST(Exports, LaunchFilesFollowTheSlots) {
  const PlanTopology t = two_by_two();
  const Mapping m = make_mapping("m", "test", {.world = 4, .tp = 2}, {3, 0, 2, 1});
  EXPECT_EQ(slurm_hostfile(t, m), "b\na\nb\na\n");
  EXPECT_EQ(cuda_visible_devices(t, m), (std::vector<std::string>{"0,1", "1,0"}));
  EXPECT_EQ(openmpi_rankfile(t, m), "rank 0=b slot=1:0\nrank 1=a slot=0:0\nrank 2=b slot=0:0\nrank 3=a slot=1:0\n");
}

TEST(Exports, MegatronArgumentsNameTheOrder) {
  Plan p;
  p.layout = {.world = 16, .tp = 2, .cp = 1, .pp = 2, .ep = 2, .etp = 1};
  auto planned = [&p](const std::string& order, std::vector<int> slots) {
    PlannedMapping pm;
    Layout l = p.layout;
    l.order = order;
    pm.mapping = make_mapping("m", "test", l, std::move(slots));
    pm.digest = structure_digest(pm.mapping);
    pm.rank = 1;
    return pm;
  };
  std::vector<int> identity(16);
  std::iota(identity.begin(), identity.end(), 0);
  const auto text = megatron_arguments(p, planned(kDefaultOrder, identity));
  EXPECT_NE(
      text.find("--tensor-model-parallel-size 2 --context-parallel-size 1 --pipeline-model-parallel-size 2 --expert-model-parallel-size 2 "
                "--expert-tensor-parallel-size 1"),
      std::string::npos);
  EXPECT_NE(text.find("no flag needed"), std::string::npos);
  EXPECT_NE(text.find("A pure Megatron order"), std::string::npos);
  // ETP·EP = TP·CP here, so tp-cp-ep-pp-dp is valid and reachable with the flag.
  EXPECT_NE(megatron_arguments(p, planned("tp-cp-ep-pp-dp", identity)).find("--use-tp-pp-dp-mapping"), std::string::npos);
  // The same structure written another way is still the flag's order.
  EXPECT_NE(megatron_arguments(p, planned("tp-ep-pp-dp", identity)).find("--use-tp-pp-dp-mapping"), std::string::npos);
  EXPECT_NE(megatron_arguments(p, planned("pp-tp-ep-dp", identity)).find("initialize_model_parallel"), std::string::npos);
  std::vector<int> shuffled = identity;
  std::swap(shuffled[1], shuffled[8]);
  const auto placed = megatron_arguments(p, planned(kDefaultOrder, shuffled));
  EXPECT_NE(placed.find("Not a pure order"), std::string::npos);
  EXPECT_NE(placed.find("no flag needed"), std::string::npos);
}

TEST(Exports, WritesTheFilesAndRefusesToOverwrite) {
  const P5Plan p;
  const auto dir = temp_path("export");
  const auto written = export_mapping(p.plan, p.plan.mappings.front(), dir, false);
  EXPECT_EQ(written.size(), 5U);
  EXPECT_EQ(read(dir + "/cuda_visible_devices.txt").substr(0, 16), "p5-0 0,1,2,3,4,5");
  EXPECT_NE(error_of([&] { (void)export_mapping(p.plan, p.plan.mappings.front(), dir, false); }).find("pass --force"), std::string::npos);
  EXPECT_NO_THROW((void)export_mapping(p.plan, p.plan.mappings.front(), dir, true));
}

TEST(Report, SaysWhyTheBestWinsAndWhereTpIs) {
  const P5Plan p;
  const auto why = why_best(p.plan);
  EXPECT_EQ(why.rfind(p.plan.mappings.front().mapping.name, 0), 0U) << why;
  EXPECT_NE(why.find("keeps tp, ep inside a node"), std::string::npos) << why;
  EXPECT_NE(why.find("the runner-up " + p.plan.mappings[1].mapping.name), std::string::npos) << why;
  EXPECT_NE(why.find("x slower"), std::string::npos) << why;
  const auto text = plan_text(p.plan, 2);
  EXPECT_NE(text.find("TP stays inside one node in the best mapping."), std::string::npos) << text;
  EXPECT_NE(text.find("more; --top 0 lists all"), std::string::npos) << text;
  EXPECT_EQ(format_time_us(850), "850.0 us");
  EXPECT_EQ(format_time_us(1234), "1.23 ms");
  EXPECT_EQ(format_time_us(3.4e6), "3.40 s");
}

}  // namespace meshbench::mapping
