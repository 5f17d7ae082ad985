// How to apply a mapping: Megatron order and arguments, rankfile, SLURM_HOSTFILE, CUDA order.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>

#include "analysis/report/report_apply.hpp"
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

// A file holding one mapping of order tp-cp-ep-dp-pp with `placement` (no kept plan: the
// plan is rebuilt from the file), and its hint.
struct OneMapping {
  explicit OneMapping(std::vector<int> placement) {
    f.add_mapping("m", "tp-cp-ep-dp-pp", std::move(placement));
    f.add_point("m", "tp", "all_reduce", 1024, 1.0);
  }
  ApplyHint hint() {
    file = std::make_unique<results::ResultsFile>(results::ResultsFile::open(f.write(dir / "run.h5")));
    plan = plan_of(*file);
    return apply_hint(*file, plan, "m");
  }
  testing::ScratchDir dir;
  testing::FixtureFile f;
  std::unique_ptr<results::ResultsFile> file;
  FilePlan plan;
};

TEST(ReportApply, DefaultPlacementOfAnOrderNeedsOnlyMegatronArguments) {
  OneMapping one({});
  const auto h = one.hint();
  EXPECT_EQ(h.plan_source, "rebuilt from the results file");
  EXPECT_EQ(h.pure_order, "tp-cp-ep-dp-pp");
  EXPECT_FALSE(h.needs_placement());
  EXPECT_NE(h.megatron.find("--tensor-model-parallel-size 2"), std::string::npos) << h.megatron;
  EXPECT_NE(h.megatron.find("--expert-model-parallel-size 2 --expert-tensor-parallel-size 1"), std::string::npos) << h.megatron;
  EXPECT_NE(h.megatron.find("Megatron's default"), std::string::npos) << h.megatron;
  EXPECT_TRUE(h.cuda_visible_devices.empty());  // CPU slots
  EXPECT_THROW(apply_hint(*one.file, one.plan, "absent"), InputError);
}

TEST(ReportApply, PlacementNoOrderGivesComesWithRankfileAndHostfile) {
  // TP groups on slots {0,3} and {1,2}: no Megatron order puts ranks 0 and 1 that far apart.
  OneMapping one({0, 3, 1, 2});
  const auto h = one.hint();
  const auto& dir = one.dir;
  EXPECT_TRUE(h.needs_placement());
  EXPECT_NE(h.megatron.find("Not a pure order"), std::string::npos) << h.megatron;
  // The mapping module's rankfile binds each rank on its slot's NUMA node (0 here), cores in turn.
  EXPECT_EQ(h.rankfile, (std::vector<std::string>{"rank 0=node-0 slot=0:0", "rank 1=node-1 slot=0:0", "rank 2=node-0 slot=0:1",
                                                  "rank 3=node-1 slot=0:1"}));
  EXPECT_EQ(h.slurm_hostfile, (std::vector<std::string>{"node-0", "node-1", "node-0", "node-1"}));

  const auto written = export_apply_files(one.plan, "m", (dir / "export").string(), false);
  EXPECT_EQ(written.size(), 3U);  // no CUDA_VISIBLE_DEVICES files for CPU slots
  EXPECT_EQ(slurp(dir / "export" / "slurm_hostfile"), "node-0\nnode-1\nnode-0\nnode-1\n");
  EXPECT_NE(slurp(dir / "export" / "rankfile").find("rank 3=node-1 slot=0:1\n"), std::string::npos);
  EXPECT_NE(slurp(dir / "export" / "megatron_args.txt").find("--tensor-model-parallel-size 2"), std::string::npos);
  EXPECT_THROW(export_apply_files(one.plan, "m", (dir / "export").string(), false), InputError);  // exists: needs force
  EXPECT_NO_THROW(export_apply_files(one.plan, "m", (dir / "export").string(), true));
}

TEST(ReportApply, AnotherPureOrderIsRecognisedFromThePlacement) {
  // Order tp-cp-ep-dp-pp placed with ranks 1 and 2 swapped equals identity placement of an
  // order with dp fastest: Megatron given that order needs no rankfile.
  OneMapping one({0, 2, 1, 3});
  const auto h = one.hint();
  EXPECT_FALSE(h.needs_placement());
  EXPECT_EQ(h.pure_order.rfind("dp", 0), 0U) << h.pure_order;
}

}  // namespace
}  // namespace meshbench::analysis
