// How a command launched on every rank ends on bad input: under an MPI launcher no rank may exit
// before MPI has started (mpirun would end rank 0 before it printed), so every rank keeps the
// error for the command's first collective; without one, rank 0 throws it and the others end.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

#include "bench/launch.hpp"
#include "common/error.hpp"
#include "tests/unit/launcher_env.hpp"

namespace meshbench::bench {
namespace {

class LaunchedParse : public test_support::LauncherEnv {
 protected:
  // A command with one option, --count, that must be at least 1.
  std::optional<int> parse(const Args& args) {
    po::options_description options("test");
    options.add_options()("count", po::value<int>(&count_)->default_value(1), "how many");
    return parse_launched_command(
        "test", "a test command", options, args,
        [&](const po::variables_map&) {
          if (count_ < 1) throw InputError("--count must be at least 1");
        },
        deferred_);
  }
  void under_mpirun(const char* rank) {
    setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
    setenv("OMPI_COMM_WORLD_RANK", rank, 1);
  }
  int count_ = 0;
  std::string deferred_;
};

TEST_F(LaunchedParse, UnderMpirunEveryRankKeepsTheErrorAndGoesOn) {
  for (const char* rank : {"0", "3"}) {
    under_mpirun(rank);
    deferred_.clear();
    EXPECT_EQ(parse({"--count", "0"}), std::nullopt) << "rank " << rank;
    EXPECT_EQ(deferred_, "--count must be at least 1") << "rank " << rank;
    deferred_.clear();
    EXPECT_EQ(parse({"--no-such-option"}), std::nullopt) << "rank " << rank;
    EXPECT_NE(deferred_.find("no-such-option"), std::string::npos) << "rank " << rank << ": " << deferred_;
  }
}

TEST_F(LaunchedParse, UnderMpirunGoodInputAndHelpAreUnchanged) {
  under_mpirun("2");
  EXPECT_EQ(parse({"--count", "3"}), std::nullopt);
  EXPECT_EQ(count_, 3);
  EXPECT_EQ(deferred_, "");
  EXPECT_EQ(parse({"--help"}), kExitOk);
  EXPECT_EQ(deferred_, "");
}

TEST_F(LaunchedParse, WithoutAnMpiLauncherTheErrorEndsTheCommandAtOnce) {
  EXPECT_THROW(parse({"--count", "0"}), InputError);  // a process on its own: rank 0, it prints
  EXPECT_EQ(deferred_, "");
  // srun without an MPI plugin: no MPI job to start; rank 0 says why, the others end quietly.
  setenv("SLURM_STEP_ID", "0", 1);
  setenv("SLURM_STEP_NUM_TASKS", "4", 1);
  setenv("SLURM_PROCID", "1", 1);
  EXPECT_EQ(parse({"--count", "2"}), kExitBadInput);
  setenv("SLURM_PROCID", "0", 1);
  EXPECT_THROW(parse({"--count", "2"}), InputError);
  EXPECT_EQ(deferred_, "");
}

}  // namespace
}  // namespace meshbench::bench
