#include <gtest/gtest.h>

#include "common/error.hpp"
#include "slurm/hostfile.hpp"
#include "test_util.hpp"

namespace meshbench::slurm {
namespace {

TEST(slurmHostfile, OneHostPerTaskInRankOrder) {
  const auto hf = parse_hostfile("/x/hf", "# mapping tp-across\nnode-b\nnode-a  \n\n  node-b # rank 2\nnode-a\n");
  EXPECT_EQ(hf.hosts, (std::vector<std::string>{"node-b", "node-a", "node-b", "node-a"}));
  EXPECT_EQ(hf.nodes, (std::vector<std::string>{"node-b", "node-a"}));
  EXPECT_EQ(hf.tasks_per_node, 2);
  EXPECT_EQ(hf.path, "/x/hf");
}

TEST(slurmHostfile, RejectsWhatSlurmOrTheScriptCouldMisread) {
  EXPECT_THROW(parse_hostfile("hf", ""), InputError);
  EXPECT_THROW(parse_hostfile("hf", "# only a comment\n"), InputError);
  EXPECT_THROW(parse_hostfile("hf", "node[1-2]\n"), InputError);
  EXPECT_THROW(parse_hostfile("hf", "a,b\n"), InputError);
  EXPECT_THROW(parse_hostfile("hf", "a b\n"), InputError);
  EXPECT_THROW(parse_hostfile("hf", "$(id)\n"), InputError);
  EXPECT_THROW(parse_hostfile("hf", "-n\n"), InputError);
}

TEST(slurmHostfile, EveryNodeMustHaveTheSameTaskCount) {
  try {
    (void)parse_hostfile("hf", "a\na\nb\n");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("a 2 task(s) but b 1"), std::string::npos) << e.what();
  }
}

TEST(slurmHostfile, ReadsFromDiskAndNamesAMissingFile) {
  testing::ScratchDir dir;
  testing::write_file(dir / "hf", "n0\nn1\n");
  const auto hf = read_hostfile(dir / "hf");
  EXPECT_EQ(hf.nodes.size(), 2U);
  EXPECT_EQ(hf.path, dir / "hf");
  EXPECT_THROW(read_hostfile(dir / "missing"), InputError);
}

}  // namespace
}  // namespace meshbench::slurm
