#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "analysis/doctor/doctor_checks.hpp"
#include "analysis/doctor/doctor_devices.hpp"
#include "doctor_test_facts.hpp"
#include "tests/unit/scratch_dir.hpp"

namespace meshbench::analysis {
namespace {

namespace fs = std::filesystem;
using testing::dev_box;
using testing::p5_node;

// A fake /sys with the files count_pci_devices and read_net_interfaces read.
class FakeSysfs : public ::testing::Test {
 protected:
  void pci(const std::string& bdf, const std::string& vendor, const std::string& device, const std::string& cls) {
    const auto dir = root_ / "bus/pci/devices" / bdf;
    fs::create_directories(dir);
    std::ofstream(dir / "vendor") << vendor << "\n";
    std::ofstream(dir / "device") << device << "\n";
    std::ofstream(dir / "class") << cls << "\n";
  }
  void nic(const std::string& name, int mtu, const std::string& driver) {
    const auto dir = root_ / "class/net" / name;
    fs::create_directories(dir);
    std::ofstream(dir / "mtu") << mtu << "\n";
    if (!driver.empty()) {
      const auto drv = root_ / "bus/pci/drivers" / driver;
      fs::create_directories(drv);
      fs::create_directories(dir / "device");
      fs::create_directory_symlink(drv, dir / "device/driver");
    }
  }
  test_support::ScratchDir scratch_{"meshbench-sysfs"};
  fs::path root_ = scratch_.path();
};

TEST_F(FakeSysfs, CountsGpusAndEfaButNotNvSwitchEnaOrNvme) {
  pci("0000:53:00.0", "0x10de", "0x2330", "0x030200");  // H100
  pci("0000:64:00.0", "0x10de", "0x2330", "0x030000");  // a GPU in VGA class
  pci("0000:05:00.0", "0x10de", "0x22a3", "0x068000");  // NVSwitch
  pci("0000:10:1c.0", "0x1d0f", "0xefa1", "0x020000");  // EFA
  pci("0000:10:1d.0", "0x1d0f", "0xefa2", "0x020000");  // EFA (p5en generation)
  pci("0000:00:05.0", "0x1d0f", "0xec20", "0x020000");  // ENA
  pci("0000:00:04.0", "0x1d0f", "0x8061", "0x010802");  // EBS NVMe
  const auto counts = count_pci_devices(root_);
  EXPECT_EQ(counts.gpus, 2);
  EXPECT_EQ(counts.efa, 2);
  EXPECT_EQ(count_pci_devices(root_ / "missing").gpus, 0);
}

TEST_F(FakeSysfs, InterfacesWithMtuAndDriver) {
  nic("lo", 65536, "");
  nic("enp71s0", 9001, "ena");
  nic("docker0", 1500, "");
  const auto nics = read_net_interfaces(root_);
  ASSERT_EQ(nics.size(), 2U);
  EXPECT_EQ(nics[0].name, "docker0");
  EXPECT_EQ(nics[1].name, "enp71s0");
  EXPECT_EQ(nics[1].mtu, 9001);
  EXPECT_EQ(nics[1].driver, "ena");
}

TEST(DoctorDevices, NodeTypeCatalog) {
  EXPECT_EQ(find_node_type("p5")->efa, 32);
  EXPECT_EQ(find_node_type("p5.48xlarge")->gpus, 8);
  EXPECT_EQ(find_node_type("p5en")->efa, 16);
  EXPECT_EQ(find_node_type("p4d.24xlarge")->efa, 4);
  EXPECT_EQ(find_node_type("p6-b200")->efa, 8);
  EXPECT_EQ(find_node_type("g5")->efa, 1);
  EXPECT_FALSE(find_node_type("m5.large"));
  // topology's catalog is the source: its EFA types, in its order; InfiniBand nodes are not the doctor's.
  EXPECT_EQ(node_type_names(), "p4d, p4de, p5, p5e, p5en, p6-b200, g5");
  EXPECT_FALSE(find_node_type("dgx-h100"));
  const std::vector<NodeFacts> nodes = {p5_node("a", 0), dev_box("b", 1)};
  EXPECT_EQ(resolve_node_types(nodes, "auto"), (std::vector<std::string>{"p5", ""}));
  EXPECT_EQ(resolve_node_types(nodes, "p4d"), (std::vector<std::string>{"p4d", "p4d"}));
}

TEST(DoctorDevices, CountsAsTheNodeTypeSaysPass) {
  const std::vector<NodeFacts> nodes = {p5_node("a", 0), p5_node("b", 8)};
  const auto gpus = check_gpu_count(nodes, {"p5", "p5"});
  EXPECT_EQ(gpus.status, CheckStatus::pass) << gpus.reason;
  EXPECT_EQ(gpus.reason, "8 GPUs on each of 2 nodes as p5 has");
  EXPECT_EQ(check_efa_count(nodes, {"p5", "p5"}).status, CheckStatus::pass);
}

TEST(DoctorDevices, DifferentCountsAcrossNodesFail) {
  const std::vector<NodeFacts> nodes = {p5_node("a", 0), p5_node("b", 8, 7, 32), p5_node("c", 16, 8, 31)};
  const auto gpus = check_gpu_count(nodes, {"", "", ""});
  EXPECT_EQ(gpus.status, CheckStatus::fail);
  EXPECT_EQ(gpus.reason, "GPU counts differ between nodes: 8 on a, c; 7 on b");
  const auto efa = check_efa_count(nodes, {"", "", ""});
  EXPECT_EQ(efa.status, CheckStatus::fail);
  EXPECT_NE(efa.reason.find("31 on c"), std::string::npos);
}

TEST(DoctorDevices, CountsNotMatchingTheNodeTypeFail) {
  const auto efa = check_efa_count({p5_node("a", 0, 8, 16), p5_node("b", 8, 8, 16)}, {"p5", "p5"});
  EXPECT_EQ(efa.status, CheckStatus::fail);
  EXPECT_NE(efa.reason.find("a has 16, p5 has 32"), std::string::npos) << efa.reason;
  EXPECT_EQ(check_efa_count({p5_node("a", 0, 8, 16)}, {"p5en"}).status, CheckStatus::pass);
}

TEST(DoctorDevices, DevBoxWarnsForGpusAndSkipsEfa) {
  const auto gpus = check_gpu_count({dev_box("d", 0)}, {""});
  EXPECT_EQ(gpus.status, CheckStatus::warn);
  EXPECT_NE(gpus.reason.find("no NVIDIA GPU"), std::string::npos);
  const auto efa = check_efa_count({dev_box("d", 0)}, {""});
  EXPECT_EQ(efa.status, CheckStatus::skip);
  // A dev box claimed to be a p5 is missing everything.
  EXPECT_EQ(check_gpu_count({dev_box("d", 0)}, {"p5"}).status, CheckStatus::fail);
  EXPECT_EQ(check_efa_count({dev_box("d", 0)}, {"p5"}).status, CheckStatus::fail);
}

TEST(DoctorDevices, MtuRules) {
  EXPECT_EQ(check_mtu({p5_node("a", 0), p5_node("b", 8)}).status, CheckStatus::pass);
  auto low = p5_node("b", 8);
  low.interfaces[0].mtu = 1500;
  const auto c = check_mtu({p5_node("a", 0), low});
  EXPECT_EQ(c.status, CheckStatus::warn);
  EXPECT_NE(c.reason.find("enp71s0 MTU 1500 on b"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("enp71s0 MTU differs: 9001 on a; 1500 on b"), std::string::npos) << c.reason;
  const auto dev = check_mtu({dev_box("d", 0)});
  EXPECT_EQ(dev.status, CheckStatus::skip);
  EXPECT_EQ(dev.details.at("d"), "eth0=1500 (virtio_net)");
}

}  // namespace
}  // namespace meshbench::analysis
