// Slot -> CUDA device: the rules of choose_device and the node-wide check, without a GPU.
#include "bench/device_choice.hpp"

#include <gtest/gtest.h>

namespace meshbench::bench {

namespace {

// Four GPUs in PCI order, as CUDA spells their bus ids (upper case, 4-digit domain).
const std::vector<std::string> kFour = {"0000:19:00.0", "0000:3B:00.0", "0000:4C:00.0", "0000:5D:00.0"};

DeviceRequest request(int index, std::string pci, std::optional<std::string> visible, std::vector<std::string> devices) {
  DeviceRequest r;
  r.slot_index = index;
  r.slot_pci = std::move(pci);
  r.visible = std::move(visible);
  r.device_pci = std::move(devices);
  return r;
}

RankDevice rank_device(int rank, std::vector<std::string> visible, std::string chosen, std::string error = "") {
  return {rank, std::move(visible), std::move(chosen), std::move(error)};
}

}  // namespace

TEST(DeviceChoice, PciNormalisationAcceptsEverySpelling) {
  EXPECT_EQ(normalize_pci("0000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(normalize_pci("00000000:3B:00.0"), "0000:3b:00.0");  // nvidia-smi's 8-digit domain
  EXPECT_EQ(normalize_pci("0000:3b:00"), "0000:3b:00.0");
  EXPECT_EQ(normalize_pci("device 2"), "device 2");
}

TEST(DeviceChoice, VisibleDevicesSplitAndTrimmed) {
  EXPECT_EQ(split_visible_devices(" 2, 3 ,5"), (std::vector<std::string>{"2", "3", "5"}));
  EXPECT_TRUE(split_visible_devices("").empty());
  EXPECT_EQ(split_visible_devices("GPU-8f3a,1"), (std::vector<std::string>{"GPU-8f3a", "1"}));
}

TEST(DeviceChoice, SlotIndexWithoutVisibleDevices) {
  const auto c = choose_device(request(2, "", std::nullopt, kFour));
  ASSERT_TRUE(c.ok()) << c.error;
  EXPECT_EQ(c.ordinal, 2);
}

TEST(DeviceChoice, SlotNotLocalRankDecides) {
  // Rank placement is the topology's: a rank on slot 3 opens GPU 3 whatever its local rank is.
  EXPECT_EQ(choose_device(request(3, "", std::nullopt, kFour)).ordinal, 3);
  EXPECT_EQ(choose_device(request(0, "", std::nullopt, kFour)).ordinal, 0);
}

TEST(DeviceChoice, PciBusIdWinsOverIndex) {
  // CUDA_DEVICE_ORDER=FASTEST_FIRST may order devices unlike PCI: the bus id still finds the GPU.
  const std::vector<std::string> shuffled = {"0000:4C:00.0", "0000:19:00.0", "0000:5D:00.0", "0000:3B:00.0"};
  const auto c = choose_device(request(1, "0000:3b:00.0", std::nullopt, shuffled));
  ASSERT_TRUE(c.ok()) << c.error;
  EXPECT_EQ(c.ordinal, 3);
  EXPECT_NE(c.how.find("0000:3b:00.0"), std::string::npos);
}

TEST(DeviceChoice, VisibleDevicesRenumber) {
  // CUDA_VISIBLE_DEVICES=2,3: CUDA device 0 is GPU 2, device 1 is GPU 3.
  const auto c = choose_device(request(3, "", "2,3", {kFour[2], kFour[3]}));
  ASSERT_TRUE(c.ok()) << c.error;
  EXPECT_EQ(c.ordinal, 1);
  EXPECT_EQ(choose_device(request(2, "", "2,3", {kFour[2], kFour[3]})).ordinal, 0);
}

TEST(DeviceChoice, VisibleListWithoutTheSlotIsAnError) {
  const auto c = choose_device(request(3, "", "0,1", {kFour[0], kFour[1]}));
  EXPECT_FALSE(c.ok());
  EXPECT_EQ(c.ordinal, -1);
  EXPECT_NE(c.error.find("GPU 3"), std::string::npos) << c.error;
  EXPECT_NE(c.error.find("CUDA_VISIBLE_DEVICES=0,1"), std::string::npos) << c.error;
  EXPECT_EQ(c.error.find('\n'), std::string::npos);
}

TEST(DeviceChoice, PerTaskBindingToAnotherGpuIsAnError) {
  // srun --gpus-per-task: the rank sees one GPU, not its slot's; it must not measure that one.
  const auto c = choose_device(request(3, "0000:5d:00.0", "0", {kFour[0]}));
  EXPECT_FALSE(c.ok());
  EXPECT_NE(c.error.find("0000:5d:00.0"), std::string::npos) << c.error;
  EXPECT_NE(c.error.find("0000:19:00.0"), std::string::npos) << c.error;
}

TEST(DeviceChoice, PerTaskBindingToTheSlotsGpuWorks) {
  const auto c = choose_device(request(3, "0000:5d:00.0", "3", {kFour[3]}));
  ASSERT_TRUE(c.ok()) << c.error;
  EXPECT_EQ(c.ordinal, 0);
}

TEST(DeviceChoice, UuidListNeedsAPciBusId) {
  EXPECT_FALSE(choose_device(request(1, "", "GPU-aaaa,GPU-bbbb", {kFour[0], kFour[1]})).ok());
  EXPECT_EQ(choose_device(request(1, "0000:3b:00.0", "GPU-aaaa,GPU-bbbb", {kFour[0], kFour[1]})).ordinal, 1);
}

TEST(DeviceChoice, TooFewGpus) {
  const auto c = choose_device(request(5, "", std::nullopt, kFour));
  EXPECT_FALSE(c.ok());
  EXPECT_NE(c.error.find("only 4 GPU"), std::string::npos) << c.error;
}

TEST(DeviceChoice, NoGpuAtAll) {
  const auto c = choose_device(request(0, "", std::nullopt, {}));
  EXPECT_FALSE(c.ok());
  EXPECT_NE(c.error.find("no CUDA device"), std::string::npos) << c.error;
  EXPECT_NE(c.error.find("--backend mpi"), std::string::npos) << c.error;
  EXPECT_FALSE(choose_device(request(0, "", "", {})).ok());  // CUDA_VISIBLE_DEVICES="" hides all
}

TEST(NodeDevices, OneGpuPerRankPasses) {
  EXPECT_EQ(check_node_devices("n1", {rank_device(0, kFour, kFour[0]), rank_device(1, kFour, kFour[1])}), "");
  // Per-task binding that matches the slots: each rank sees one GPU, together they see two.
  EXPECT_EQ(check_node_devices("n1", {rank_device(0, {kFour[0]}, kFour[0]), rank_device(1, {kFour[1]}, kFour[1])}), "");
}

TEST(NodeDevices, SharedGpuNamesBothRanks) {
  const auto e =
      check_node_devices("n1", {rank_device(4, kFour, kFour[1]), rank_device(2, kFour, kFour[0]), rank_device(3, kFour, "0000:3b:00.0")});
  EXPECT_NE(e.find("ranks 3 and 4 on n1 would share GPU 0000:3b:00.0"), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos);
}

TEST(NodeDevices, MoreRanksThanGpusComesFirst) {
  const std::vector<std::string> one = {kFour[0]};
  const auto e = check_node_devices(
      "n2", {rank_device(0, one, kFour[0]), rank_device(1, one, "", "slot GPU 1 ..."), rank_device(2, one, "", "slot GPU 2 ...")});
  EXPECT_NE(e.find("node n2 runs 3 ranks but its ranks see only 1 GPU(s)"), std::string::npos) << e;
}

TEST(NodeDevices, NoGpuAnywhereSaysSo) {
  const auto e = check_node_devices("cpu1", {rank_device(1, {}, "", "no CUDA device is visible to this rank"),
                                             rank_device(0, {}, "", "no CUDA device is visible to this rank")});
  EXPECT_EQ(e, "rank 0 on cpu1: no CUDA device is visible to this rank");
}

TEST(NodeDevices, LowestRankErrorReported) {
  const auto e =
      check_node_devices("n3", {rank_device(7, kFour, "", "late"), rank_device(5, kFour, "", "early"), rank_device(6, kFour, kFour[2])});
  EXPECT_EQ(e, "rank 5 on n3: early");
}

}  // namespace meshbench::bench
