// NCCL_ALGO and NCCL_PROTO as NCCL reads them, and NCCL's tuning model choosing only among what
// they allow.
#include <gtest/gtest.h>

#include "mapping/nccl_tuning.hpp"

namespace meshbench::mapping::nccl {
namespace {

constexpr int kTreeBit = 1 << static_cast<int>(Algorithm::tree);
constexpr int kRingBit = 1 << static_cast<int>(Algorithm::ring);
constexpr int kNvlsBit = 1 << static_cast<int>(Algorithm::nvls);
constexpr int kNvlsTreeBit = 1 << static_cast<int>(Algorithm::nvls_tree);
constexpr int kSimpleBit = 1 << static_cast<int>(Protocol::simple);
constexpr int kLLBit = 1 << static_cast<int>(Protocol::ll);
constexpr auto kAllReduce = static_cast<std::size_t>(Collective::all_reduce);
constexpr auto kAllGather = static_cast<std::size_t>(Collective::all_gather);
constexpr auto kReduceScatter = static_cast<std::size_t>(Collective::reduce_scatter);

// 8 H100 per node over NVSwitch, one 400 Gb/s device per GPU.
Communicator h100_allowed(int nodes) {
  return {.sm = 90, .ranks = 8 * nodes, .nodes = nodes, .intra_gbps = 370.8, .nvlink = true, .nvswitch = true, .nic_gbps = 50, .nics = 8};
}

TEST(NcclAllowed, ReadsTheFormsNcclReads) {
  EXPECT_EQ(parse_allowed("", ""), Allowed{});
  const Allowed ring = *parse_allowed("Ring", "");
  for (std::size_t c : {kAllReduce, kAllGather, kReduceScatter}) EXPECT_EQ(ring.algorithms[c], kRingBit);
  EXPECT_EQ(ring.protocols, Allowed{}.protocols);
  EXPECT_EQ(parse_allowed("ring", "")->algorithms, ring.algorithms);  // names in any case
  EXPECT_EQ(parse_allowed("tree,RING", "")->algorithms[kAllReduce], kTreeBit | kRingBit);
  EXPECT_EQ(parse_allowed("^NVLS,NVLSTree", "")->algorithms[kAllReduce], Allowed::kAllAlgorithms & ~(kNvlsBit | kNvlsTreeBit));
  // A collective's own list after the list for all of them; functions the model does not price are read.
  const Allowed mixed = *parse_allowed("ring;allreduce:tree,ring;broadcast:ring", "LL,Simple;AllGather:^LL");
  EXPECT_EQ(mixed.algorithms[kAllReduce], kTreeBit | kRingBit);
  EXPECT_EQ(mixed.algorithms[kAllGather], kRingBit);
  EXPECT_EQ(mixed.protocols[kAllReduce], kLLBit | kSimpleBit);
  EXPECT_EQ(mixed.protocols[kAllGather], Allowed::kAllProtocols & ~kLLBit);
  EXPECT_EQ(parse_allowed("", "^LL128")->protocols[kReduceScatter], kLLBit | kSimpleBit);
  for (const auto& [algo, proto] :
       {std::pair{"Rings", ""}, std::pair{"", "LL64"}, std::pair{"allreduce:rings", ""}, std::pair{"ring;tree:ring", ""}})
    EXPECT_FALSE(parse_allowed(algo, proto)) << algo << proto;
}

TEST(NcclAllowed, TheTuningChoosesOnlyAmongWhatIsAllowed) {
  Communicator two = h100_allowed(2);
  // Unrestricted, NCCL's tuning runs NVLS tree for a large all_reduce on two nodes.
  EXPECT_EQ(choose(two, Collective::all_reduce, 1ULL << 30).algorithm, Algorithm::nvls_tree);
  two.allowed = *parse_allowed("Ring", "");
  for (std::uint64_t bytes = 8; bytes <= (8ULL << 30); bytes *= 4) {
    const Choice c = choose(two, Collective::all_reduce, bytes);
    EXPECT_EQ(c.algorithm, Algorithm::ring) << bytes;
    // The ring's own choice of protocol, at the ring's own time.
    Communicator ring_simple = two;
    ring_simple.allowed = *parse_allowed("Ring", "Simple");
    EXPECT_GE(choose(ring_simple, Collective::all_reduce, bytes).time_us, c.time_us) << bytes;
    EXPECT_EQ(choose(ring_simple, Collective::all_reduce, bytes).protocol, Protocol::simple);
    EXPECT_EQ(choose(tuned(two), Collective::all_reduce, bytes).time_us, c.time_us);
  }
  // A list that leaves a collective nothing NCCL could run (NCCL refuses the op) prices it as
  // though the variables were not set.
  Communicator tree = h100_allowed(2);
  tree.allowed = *parse_allowed("Tree", "");
  const Choice gather = choose(tree, Collective::all_gather, 1ULL << 26);
  const Choice free_gather = choose(h100_allowed(2), Collective::all_gather, 1ULL << 26);
  EXPECT_EQ(gather.algorithm, free_gather.algorithm);
  EXPECT_EQ(gather.time_us, free_gather.time_us);
  EXPECT_EQ(choose(tree, Collective::all_reduce, 1ULL << 26).algorithm, Algorithm::tree);
}

}  // namespace
}  // namespace meshbench::mapping::nccl
