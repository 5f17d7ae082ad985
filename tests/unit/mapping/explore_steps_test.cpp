// explore's three steps one at a time: which size combinations are generated, which rule each
// broken layout is counted against (every rule has a case), what the pricer keeps per shape, and
// the command line's size lists.
#include <gtest/gtest.h>

#include <set>

#include "common/error.hpp"
#include "mapping/src/explore_options.hpp"
#include "mapping/src/explore_steps.hpp"
#include "topology/gpu_specs.hpp"
#include "topology/options.hpp"

namespace meshbench::mapping {
namespace {

std::vector<ExploreLayout> generated(int world, const Workload& w, const ExploreConstraints& c) {
  std::vector<ExploreLayout> out;
  generate_layouts(world, w, c, [&](const ExploreLayout& e) { out.push_back(e); });
  return out;
}

Workload dense(int layers) {
  Workload w;
  w.experts = 0;
  w.layers = layers;
  return w;
}

TEST(ExploreGenerate, DenseWorldOfFourHasTenShapes) {
  // TP×CP×PP dividing 4: 1×1×1, the three ways to place a 2, and the six ways to make 4.
  ExploreConstraints c;
  c.vpp = {1};
  const auto all = generated(4, dense(8), c);
  ASSERT_EQ(all.size(), 10U);
  std::set<std::tuple<int, int, int>> shapes;
  for (const auto& e : all) {
    EXPECT_EQ(4 % (e.layout.tp * e.layout.cp * e.layout.pp), 0);
    EXPECT_EQ(e.layout.ep, 1);
    EXPECT_EQ(e.layout.expert_tp(), e.layout.tp);
    EXPECT_EQ(e.layout.world, 4);
    shapes.emplace(e.layout.tp, e.layout.cp, e.layout.pp);
  }
  EXPECT_EQ(shapes.size(), 10U);
  // TP outermost, then CP, PP: the first is all ones, the last TP 4.
  EXPECT_EQ(std::make_tuple(all.front().layout.tp, all.front().layout.cp, all.front().layout.pp), std::make_tuple(1, 1, 1));
  EXPECT_EQ(all.back().layout.tp, 4);
}

TEST(ExploreGenerate, ExpertSizesMustDivideTheWorldWithPipeline) {
  Workload w = dense(8);
  w.experts = 4;
  ExploreConstraints c;
  c.tp = {1};
  c.cp = {1};
  c.pp = {1};
  c.vpp = {1};
  // ETP×EP dividing 4: (1,1) (1,2) (1,4) (2,1) (2,2) (4,1).
  EXPECT_EQ(generated(4, w, c).size(), 6U);
  c.pp = {2};
  // With PP 2: ETP×EP must divide 2: (1,1) (1,2) (2,1).
  EXPECT_EQ(generated(4, w, c).size(), 3U);
}

TEST(ExploreGenerate, VirtualStagesUpToOneLayerPerChunk) {
  ExploreConstraints c;
  c.tp = {1};
  c.cp = {1};
  c.pp = {1, 2};
  std::vector<int> vpps_of_pp2;
  for (const auto& e : generated(2, dense(6), c)) {
    if (e.layout.pp == 1) {
      EXPECT_EQ(e.vpp, 1);
    } else {
      vpps_of_pp2.push_back(e.vpp);
    }
  }
  EXPECT_EQ(vpps_of_pp2, (std::vector<int>{1, 2, 3}));  // 6 layers over 2 stages: at most 3 chunks each
  c.max_vpp = 2;
  EXPECT_EQ(generated(2, dense(6), c).size(), 3U);
  c.vpp = {1};
  EXPECT_EQ(generated(2, dense(6), c).size(), 2U);
}

// A layout on 64 GPUs that keeps every rule, and one change per case that breaks one.
struct RuleCase {
  std::string rule;
  std::function<void(Workload&, TrainingSettings&, ExploreLayout&)> change;
};

TEST(ExploreRules, EachBrokenRuleIsNamedFirst) {
  Workload base;
  base.layers = 32;
  base.hidden = 4096;
  base.ffn_hidden = 14336;
  base.heads = 32;
  base.kv_heads = 8;
  base.experts = 8;
  base.seq_len = 4096;
  TrainingSettings base_settings;
  base_settings.global_batch = 64;
  ExploreLayout valid;
  valid.layout.world = 64;
  valid.layout.tp = 2;
  valid.layout.pp = 2;
  valid.layout.ep = 8;
  valid.layout.etp = 1;
  const ExploreConstraints c;
  const std::vector<RuleCase> cases{
      {"TP or ETP beyond a node (--tp-across-nodes lifts it)", [](auto&, auto&, auto& e) { e.layout.tp = 16; }},
      {"attention heads (or K/V heads) not divisible by TP", [](auto& w, auto&, auto&) { w.kv_heads = 5; }},
      {"hidden or FFN width not divisible by TP", [](auto& w, auto&, auto&) { w.ffn_hidden = 14337; }},
      {"EP or ETP on a dense model", [](auto& w, auto&, auto&) { w.experts = 0; }},
      {"experts not divisible by EP", [](auto&, auto&, auto& e) { e.layout.ep = 16; }},
      {"expert width not divisible by ETP",
       [](auto& w, auto&, auto& e) {
         e.layout.etp = 2;
         w.moe_ffn_hidden = 1001;
       }},
      {"sequence not divisible by 2×CP (load-balanced context parallelism)",
       [](auto& w, auto&, auto& e) {
         e.layout.cp = 2;
         w.seq_len = 4098;
       }},
      {"sequence shard not divisible by TP (sequence parallelism)", [](auto& w, auto&, auto&) { w.seq_len = 4097; }},
      {"virtual stages without PP",
       [](auto&, auto&, auto& e) {
         e.layout.pp = 1;
         e.vpp = 2;
       }},
      {"layers do not split over PP×VPP", [](auto&, auto&, auto& e) { e.vpp = 64; }},
      {"global batch not a multiple of micro-batch×DP", [](auto&, auto& s, auto&) { s.global_batch = 65; }},
      {"micro-batches not a multiple of PP (interleaved schedule)",
       [](auto&, auto& s, auto& e) {
         e.vpp = 2;
         s.global_batch = 48;  // DP 16: 3 micro-batches over PP 2
       }},
      {"Megatron's order rules", [](auto&, auto&, auto& e) { e.layout.order = "tp-cp-ep-dp"; }},
  };
  EXPECT_TRUE(broken_rule({base, base_settings, c, 8}, valid).empty()) << broken_rule({base, base_settings, c, 8}, valid);
  std::set<std::string> covered;
  for (const RuleCase& k : cases) {
    Workload w = base;
    TrainingSettings s = base_settings;
    ExploreLayout e = valid;
    k.change(w, s, e);
    EXPECT_EQ(broken_rule({w, s, c, 8}, e), k.rule);
    covered.insert(k.rule);
  }
  std::set<std::string> rules;
  for (const LayoutRule& r : layout_rules()) rules.emplace(r.name);
  EXPECT_EQ(covered, rules) << "every rule needs a case here";
  // Lifting the node rule lets TP 16 through to the next rule it breaks (8 K/V heads).
  ExploreConstraints across = c;
  across.tp_in_node = false;
  ExploreLayout wide = valid;
  wide.layout.tp = 16;
  EXPECT_EQ(broken_rule({base, base_settings, across, 8}, wide), "attention heads (or K/V heads) not divisible by TP");
}

topology::ClusterTopology p5_nodes(int nodes) {
  topology::TopologyOptions o;
  o.node_type = "p5.48xlarge";
  o.nodes = nodes;
  return topology::load_offline_topology(o, true);
}

TEST(ExplorePrice, ShapesShareCommunicationAndVirtualStagesShrinkTheBubble) {
  const auto topo = p5_nodes(2);
  Workload w;
  w.layers = 16;
  w.experts = 8;
  w.heads = 32;
  w.kv_heads = 8;
  TrainingSettings s;
  s.global_batch = 64;
  const auto spec = topology::find_gpu_spec("H100");
  ASSERT_TRUE(spec);
  const ExploreHardware hw{"H100", spec->memory_gib, spec->bf16_tflops, spec->fp8_tflops, spec->hbm_tbps, 8};
  const CostModel model(topo, default_cost_params(topo), w);
  StepPricer pricer(w, s, {}, hw, model);
  ExploreLayout one;
  one.layout.world = 16;
  one.layout.tp = 2;
  one.layout.pp = 2;
  one.layout.ep = 8;
  one.layout.etp = 1;
  ExploreLayout four = one;
  four.vpp = 4;
  LayoutEstimate a = pricer.size_up(one), b = pricer.size_up(four);
  EXPECT_EQ(a.micro_batches, 16);  // 64 sequences over DP 4
  pricer.price(a);
  pricer.price(b);
  EXPECT_EQ(a.comm.dim_us, b.comm.dim_us);  // the same shape: priced once
  EXPECT_GT(a.comm.dim_us[static_cast<std::size_t>(Dim::ep)], 0);
  EXPECT_NEAR(b.bubble_us * 4, a.bubble_us, 1e-6 * a.bubble_us);  // (PP − 1) / VPP micro-batches
  EXPECT_GT(b.step_us, b.compute_us);
  // MFU's numerator: forward and backward, every layer and the logits.
  double forward = 2.0 * w.vocab * w.hidden;
  for (int i = 0; i < w.layers; ++i) forward += layer_forward_flops(w, is_moe_layer(w, i));
  EXPECT_DOUBLE_EQ(pricer.model_flops_per_token(), 3 * forward);
}

TEST(ExploreOptions, SizeListsAndSettings) {
  ExploreOptions o;
  o.tp = "1-4,8";
  o.ep = "16";
  const ExploreConstraints c = constraints_of(o);
  EXPECT_EQ(c.tp, (std::vector<int>{1, 2, 3, 4, 8}));
  EXPECT_EQ(c.ep, (std::vector<int>{16}));
  EXPECT_TRUE(c.cp.empty());
  o.pp = "4-2";
  EXPECT_THROW(constraints_of(o), InputError);
  o.pp = "0";
  EXPECT_THROW(constraints_of(o), InputError);
  Workload w;
  w.micro_batch = 2;
  w.global_batch = 512;
  ExploreOptions defaults;
  EXPECT_EQ(settings_of(defaults, w).micro_batch, 2);
  EXPECT_EQ(settings_of(defaults, w).global_batch, 512);
  w.global_batch = 0;
  EXPECT_EQ(settings_of(defaults, w).global_batch, 1024);
  defaults.global_batch = 256;
  EXPECT_EQ(settings_of(defaults, w).global_batch, 256);
}

TEST(ExploreOptions, ValuesCheckedBeforeAnyFileIsRead) {
  auto error_of = [](const Args& args) {
    try {
      parse_explore_options(args);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error_of({}).find("--workload"), std::string::npos);
  EXPECT_NE(error_of({"--workload", "/nonexistent", "--recompute", "some"}).find("none"), std::string::npos);
  EXPECT_NE(error_of({"--workload", "/nonexistent", "--efficiency", "1.5"}).find("--efficiency"), std::string::npos);
  EXPECT_NE(error_of({"--workload", "/nonexistent", "--headroom", "-1"}).find("--headroom"), std::string::npos);
  const auto o = parse_explore_options({"--workload", "/nonexistent", "--format", "json", "--peak-tflops", "500"});
  ASSERT_TRUE(o);
  EXPECT_EQ(o->output, OutputFormat::json);
  EXPECT_DOUBLE_EQ(o->peak_tflops, 500);
}

}  // namespace
}  // namespace meshbench::mapping
