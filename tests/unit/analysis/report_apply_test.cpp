// How to apply a mapping: Megatron order and arguments, rankfile, SLURM_HOSTFILE, CUDA order.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>

#include "analysis/report_apply.hpp"
#include "common/error.hpp"
#include "report_fixture.hpp"

namespace meshbench::analysis {
namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A file holding one mapping of order tp-cp-ep-dp-pp with `placement`, and its hint.
struct OneMapping {
  explicit OneMapping(std::vector<int> placement) {
    f.add_mapping("m", "tp-cp-ep-dp-pp", std::move(placement));
    f.add_point("m", "tp", "all_reduce", 1024, 1.0);
  }
  ApplyHint hint() {
    file = std::make_unique<results::ResultsFile>(results::ResultsFile::open(f.write(dir / "run.h5")));
    return apply_hint(*file, "m");
  }
  testing::ScratchDir dir;
  testing::FixtureFile f;
  std::unique_ptr<results::ResultsFile> file;
};

TEST(ReportApply, DefaultPlacementOfAnOrderNeedsOnlyMegatronArguments) {
  OneMapping one({});
  const auto h = one.hint();
  EXPECT_EQ(h.pure_order, "tp-cp-ep-dp-pp");
  EXPECT_FALSE(h.needs_placement());
  EXPECT_TRUE(h.megatron_order_note.empty()) << h.megatron_order_note;
  EXPECT_EQ(h.megatron_args.front(), "--tensor-model-parallel-size 2");
  EXPECT_NE(std::find(h.megatron_args.begin(), h.megatron_args.end(), "--expert-model-parallel-size 2"), h.megatron_args.end());
  EXPECT_NE(std::find(h.megatron_args.begin(), h.megatron_args.end(), "--expert-tensor-parallel-size 1"), h.megatron_args.end());
  EXPECT_THROW(apply_hint(*one.file, "absent"), InputError);
}

TEST(ReportApply, PlacementNoOrderGivesComesWithRankfileHostfileAndDeviceOrder) {
  // TP groups on slots {0,3} and {1,2}: no Megatron order puts ranks 0 and 1 that far apart.
  OneMapping one({0, 3, 1, 2});
  const auto h = one.hint();
  const auto& dir = one.dir;
  EXPECT_TRUE(h.needs_placement());
  EXPECT_EQ(h.logical_order, "tp-cp-ep-dp-pp");
  EXPECT_EQ(h.rankfile, (std::vector<std::string>{"rank 0=node-0 slot=0", "rank 1=node-1 slot=1", "rank 2=node-0 slot=1", "rank 3=node-1 slot=0"}));
  EXPECT_EQ(h.slurm_hostfile, (std::vector<std::string>{"node-0", "node-1", "node-0", "node-1"}));
  ASSERT_EQ(h.cuda_visible_devices.size(), 2U);
  EXPECT_EQ(h.cuda_visible_devices[0], (std::pair<std::string, std::string>{"node-0", "0,1"}));
  EXPECT_EQ(h.cuda_visible_devices[1], (std::pair<std::string, std::string>{"node-1", "1,0"}));

  const auto written = export_apply_hint(h, (dir / "export").string());
  EXPECT_EQ(written.size(), 4U);
  EXPECT_EQ(slurp(dir / "export" / "slurm_hostfile"), "node-0\nnode-1\nnode-0\nnode-1\n");
  EXPECT_NE(slurp(dir / "export" / "rankfile").find("rank 3=node-1 slot=0\n"), std::string::npos);
  EXPECT_NE(slurp(dir / "export" / "megatron_args.txt").find("--tensor-model-parallel-size 2"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir / "export" / "rankfile.tmp"));
}

TEST(ReportApply, AnotherPureOrderIsRecognisedFromThePlacement) {
  // Order tp-cp-ep-dp-pp placed with ranks 1 and 2 swapped equals identity placement of an
  // order with dp fastest; Megatron then needs that order, not a rankfile.
  OneMapping one({0, 2, 1, 3});
  const auto h = one.hint();
  EXPECT_FALSE(h.needs_placement());
  EXPECT_EQ(h.pure_order.rfind("dp", 0), 0U) << h.pure_order;
  EXPECT_NE(h.megatron_order_note.find("initialize_model_parallel"), std::string::npos) << h.megatron_order_note;
}

}  // namespace
}  // namespace meshbench::analysis
