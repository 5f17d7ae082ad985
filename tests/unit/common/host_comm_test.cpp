// The split into the ranks of one host, without MPI: which member of a host each rank joins
// (common.mpi.helpers_* run split_by_host itself under mpirun).
#include "common/mpi/host_comm.hpp"

#include <gtest/gtest.h>

namespace meshbench::mpi {

TEST(HostColors, EachRankTakesItsHostsFirstIndex) {
  EXPECT_EQ(host_colors({"a", "b", "a", "c", "b"}), (std::vector<int>{0, 1, 0, 3, 1}));
  EXPECT_EQ(host_colors({"n0", "n0", "n0"}), (std::vector<int>{0, 0, 0}));
  EXPECT_EQ(host_colors({"n2", "n1", "n0"}), (std::vector<int>{0, 1, 2}));
  EXPECT_TRUE(host_colors({}).empty());
}

// Names are compared whole: one is never taken for another it begins with, nor for one of
// another case.
TEST(HostColors, NamesAreComparedWhole) {
  EXPECT_EQ(host_colors({"node1", "node10", "node1 x", "Node1", "node1"}), (std::vector<int>{0, 1, 2, 3, 0}));
}

TEST(HostId, BeginsWithTheHostName) {
  const std::string name = this_host_name();
  ASSERT_FALSE(name.empty());
  EXPECT_EQ(this_host_id().rfind(name, 0), 0U) << this_host_id();
}

}  // namespace meshbench::mpi
