// The shared topology options and the offline loader behind them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.hpp"
#include "tests/unit/launcher_env.hpp"
#include "tests/unit/scratch_dir.hpp"
#include "topology/options.hpp"
#include "topology_test_data.hpp"

namespace meshbench::topology {
namespace {

TopologyOptions parse(const Args& args) {
  TopologyOptions values;
  po::options_description options;
  add_topology_options(options, values);
  std::ostringstream help;
  parse_command("topo", "test", options, args, help);
  return values;
}

std::string error_of(const TopologyOptions& o, bool require_gpus = true) {
  try {
    load_offline_topology(o, require_gpus);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(TopologyOptions, DefaultsMeanLiveDiscovery) {
  const TopologyOptions o = parse({});
  EXPECT_FALSE(o.given());
  EXPECT_EQ(o.nodes, 0);
}

TEST(TopologyOptions, HelpListsEveryOptionWithItsDefault) {
  TopologyOptions values;
  po::options_description options;
  add_topology_options(options, values);
  std::ostringstream help;
  EXPECT_FALSE(parse_command("topo", "test", options, {"--help"}, help).has_value());
  for (const char* text : {"--topology", "--node-type", "--nodes", "(=none)", "default: 1", "p5.48xlarge"}) {
    EXPECT_NE(help.str().find(text), std::string::npos) << text;
  }
}

TEST(TopologyOptions, NodesZeroIsAnInputError) {
  EXPECT_THROW(parse({"--node-type", "p5.48xlarge", "--nodes", "0"}), InputError);
  EXPECT_THROW(parse({"--nodes", "-3"}), InputError);
  EXPECT_EQ(parse({"--nodes", "64", "--node-type", "p5.48xlarge"}).nodes, 64);
}

TEST(TopologyOptions, SixtyFourNodeP5ClusterFromFileAndNodeType) {
  const ClusterTopology c =
      load_offline_topology(parse({"--topology", test::data(test::kP5), "--node-type", "p5.48xlarge", "--nodes", "64"}), true);
  EXPECT_EQ(c.node_count(), 64);
  EXPECT_EQ(c.slot_count(), 512);
  EXPECT_EQ(c.hostname(0), "p5.48xlarge-0");
  EXPECT_EQ(c.node(0).source, "nccl-xml+catalog");
}

TEST(TopologyOptions, BadInputsAreOneLineInputErrorsNamingTheWayOut) {
  TopologyOptions o;
  o.file = test::data("nccl-topo/missing.xml");
  std::string e = error_of(o);
  EXPECT_NE(e.find("missing.xml"), std::string::npos) << e;
  EXPECT_NE(e.find("--topology"), std::string::npos) << e;

  const std::string malformed = (test_support::temp_dir("topology_options_test") / "malformed.xml").string();
  std::ofstream(malformed) << "<system version=\"1\">\n  <cpu numaid=\"0\">\n</system>\n";
  o.file = malformed;
  e = error_of(o);
  EXPECT_NE(e.find("malformed XML"), std::string::npos) << e;
  EXPECT_NE(e.find("line"), std::string::npos) << e;
  std::filesystem::remove(malformed);

  o.file = test::data(test::kP5);
  e = error_of(o);
  EXPECT_NE(e.find("no GPUs"), std::string::npos) << e;
  EXPECT_NE(e.find("--node-type p5.48xlarge"), std::string::npos) << e;

  o = TopologyOptions{};
  o.node_type = "p9";
  e = error_of(o);
  EXPECT_NE(e.find("unknown node type 'p9'"), std::string::npos) << e;

  o = TopologyOptions{};
  o.nodes = 4;
  e = error_of(o);
  EXPECT_NE(e.find("--node-type"), std::string::npos) << e;

  for (const TopologyOptions& bad : {TopologyOptions{test::data(test::kP5), "", 0}, TopologyOptions{"", "nope", 0}}) {
    EXPECT_EQ(error_of(bad).find('\n'), std::string::npos);
  }
}

TEST(TopologyOptions, WithoutRequiringGpusAFileWithoutGpusGivesCpuSlots) {
  TopologyOptions o;
  o.file = test::data(test::kP5);
  const ClusterTopology c = load_offline_topology(o, false);
  EXPECT_EQ(c.slot_count(), 2);  // one per NUMA node
  EXPECT_EQ(c.node(0).slots[0].kind, SlotKind::cpu);
}

using test_support::LauncherEnv;

TEST_F(LauncherEnv, RecognisesMpirunPmixPmiAndSrun) {
  EXPECT_FALSE(launched_by_mpi_launcher());
  EXPECT_EQ(launcher_rank(), 0);
  setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
  setenv("OMPI_COMM_WORLD_RANK", "3", 1);
  EXPECT_TRUE(launched_by_mpi_launcher());
  EXPECT_EQ(launcher_rank(), 3);
  unsetenv("OMPI_COMM_WORLD_SIZE");
  unsetenv("OMPI_COMM_WORLD_RANK");
  setenv("PMI_RANK", "1", 1);
  EXPECT_FALSE(launched_by_mpi_launcher());  // PMI needs both
  setenv("PMI_SIZE", "2", 1);
  EXPECT_TRUE(launched_by_mpi_launcher());
  unsetenv("PMI_RANK");
  unsetenv("PMI_SIZE");
  setenv("SLURM_PROCID", "5", 1);
  EXPECT_FALSE(launched_by_mpi_launcher());  // inside sbatch, not a step
  EXPECT_EQ(launcher_rank(), 0);
  setenv("SLURM_STEP_ID", "0", 1);
  setenv("SLURM_STEP_NUM_TASKS", "1", 1);
  EXPECT_FALSE(launched_by_mpi_launcher());  // one task, no MPI plugin: a process on its own
  EXPECT_EQ(launcher_rank(), 5);
  setenv("SLURM_STEP_NUM_TASKS", "8", 1);
  try {
    launched_by_mpi_launcher();
    ADD_FAILURE() << "a multi-task srun step without an MPI plugin was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("srun --mpi=pmix"), std::string::npos) << e.what();
  }
  setenv("PMIX_RANK", "2", 1);
  EXPECT_TRUE(launched_by_mpi_launcher());  // the same step with the plugin
  EXPECT_EQ(launcher_rank(), 2);            // the MPI launcher's variable wins over the inherited SLURM one
}

}  // namespace
}  // namespace meshbench::topology
