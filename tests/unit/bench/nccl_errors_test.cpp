// The one-line messages of NCCL and CUDA failures, version strings, and the backend's deadline.
#include <gtest/gtest.h>

#include "bench/backend_error.hpp"
#include "bench/nccl_backend.hpp"
#include "bench/watchdog.hpp"

namespace meshbench::bench {

namespace {

OpContext context(std::string op, std::uint64_t bytes, std::vector<int> ranks, int me, std::string device = "") {
  OpContext c;
  c.op = std::move(op);
  c.bytes = bytes;
  c.group_world_ranks = std::move(ranks);
  c.world_rank = me;
  c.device = std::move(device);
  return c;
}

}  // namespace

TEST(NcclErrors, MessageNamesOpSizeGroupAndRank) {
  const auto msg = op_error_message("NCCL", context("all_reduce", 16 << 20, {0, 2, 4, 6}, 2, "GPU 1 (0000:3b:00.0)"),
                                    "ncclRemoteError (remote process exited or there was a network error) in the op (asynchronous error)",
                                    "NET/OFI Request completed with error.\nNET/IB : Got completion from peer 10.0.0.2");
  EXPECT_EQ(msg,
            "NCCL error in all_reduce of 16 MiB, group of world ranks 0,2,4,6 (this rank: 2, GPU 1 (0000:3b:00.0)): "
            "ncclRemoteError (remote process exited or there was a network error) in the op (asynchronous error): "
            "NET/OFI Request completed with error. NET/IB : Got completion from peer 10.0.0.2");
}

TEST(NcclErrors, CudaMessageWithoutSize) {
  const auto msg =
      op_error_message("CUDA", context("communicator init", 0, {1, 3}, 3), "cudaErrorMemoryAllocation in cudaMalloc", "out of memory");
  EXPECT_EQ(
      msg,
      "CUDA error in communicator init, group of world ranks 1,3 (this rank: 3): cudaErrorMemoryAllocation in cudaMalloc: out of memory");
}

TEST(NcclErrors, DetailEqualToErrorNotRepeated) {
  const auto msg = op_error_message("NCCL", context("send_recv", 8, {0, 1}, 0), "did not complete within 91 s; communicator aborted", "");
  EXPECT_EQ(msg,
            "NCCL error in send_recv of 8 B, group of world ranks 0,1 (this rank: 0): did not complete within 91 s; communicator aborted");
}

TEST(NcclErrors, AlwaysOneLine) {
  const auto msg = op_error_message("NCCL", context("all_to_all", 1024, {0}, 0), "a\nb\r\n", "\n\n  c \t d\n");
  EXPECT_EQ(msg.find('\n'), std::string::npos);
  EXPECT_EQ(msg.find('\r'), std::string::npos);
  EXPECT_NE(msg.find(": a b: c d"), std::string::npos) << msg;
}

TEST(NcclErrors, LongRankListsShortened) {
  std::vector<int> ranks;
  for (int r = 0; r < 1024; r += 8) ranks.push_back(r);
  EXPECT_EQ(describe_ranks(ranks), "0,8,16,24,32,40,48,56,...,960,968,976,984,992,1000,1008,1016 (128 ranks)");
  EXPECT_EQ(describe_ranks(std::vector<int>{5}), "5");
}

TEST(NcclErrors, VersionStrings) {
  EXPECT_EQ(nccl_version_string(22809), "2.28.9");
  EXPECT_EQ(nccl_version_string(21903), "2.19.3");
  EXPECT_EQ(nccl_version_string(2708), "2.7.8");  // NCCL_VERSION's scheme before 2.9
  EXPECT_EQ(cuda_version_string(13000), "13.0");
  EXPECT_EQ(cuda_version_string(12040), "12.4");
}

TEST(NcclErrors, WaitDeadlineLiesBeyondTheWatchdog) {
  // The watchdog names a hang first; the backend's own deadline is the backstop.
  NcclOptions o;
  o.watchdog_base_s = 60;
  o.grace_s = 10;
  for (std::uint64_t bytes : {8ULL, 1ULL << 20, 1ULL << 30}) {
    EXPECT_GT(nccl_wait_limit_s(o, bytes, 1), default_op_limit_s(o.watchdog_base_s, bytes) + o.grace_s);
    // A batch: the runner arms floor + ops × (op limit − floor).
    const double batch_watchdog = o.watchdog_base_s + 20 * (default_op_limit_s(o.watchdog_base_s, bytes) - o.watchdog_base_s);
    EXPECT_GT(nccl_wait_limit_s(o, bytes, 20), batch_watchdog + o.grace_s);
  }
  o.watchdog_base_s = 5;
  EXPECT_LT(nccl_wait_limit_s(o, 8, 1), 60);  // a short watchdog shortens the backstop too
}

TEST(NcclErrors, CommunicatorInitLimitGrowsWithTheGroup) {
  EXPECT_DOUBLE_EQ(communicator_init_limit_s(60, 1), 60.1);
  EXPECT_GT(communicator_init_limit_s(60, 1024), 2 * 60);  // 1,000+ ranks get more than twice the floor
  EXPECT_LT(communicator_init_limit_s(60, 8), communicator_init_limit_s(60, 64));
}

TEST(NcclBackend, BuiltAsConfigured) {
#if defined(MESHBENCH_HAVE_NCCL)
  EXPECT_TRUE(nccl_backend_built());
#else
  EXPECT_FALSE(nccl_backend_built());
#endif
}

TEST(NcclBackend, GpuCountNeverThrows) {
  // Without a driver (CI) the CUDA runtime reports an error, which must read as "no GPU".
  int count = -1;
  EXPECT_NO_THROW(count = local_gpu_count());
  EXPECT_GE(count, 0);
  EXPECT_EQ(local_gpu_count(), count);  // no sticky error left behind by the first call
}

}  // namespace meshbench::bench
