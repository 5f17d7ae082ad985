#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/doctor/doctor_checks.hpp"
#include "analysis/doctor/versions.hpp"
#include "doctor_test_facts.hpp"

namespace meshbench::analysis {
namespace {

using testing::p5_node;
using testing::rank_facts;

const Check& by_id(const std::vector<Check>& checks, const std::string& id) {
  for (const auto& c : checks) {
    if (c.id == id) return c;
  }
  throw std::runtime_error("no check " + id);
}

TEST(DoctorVersions, ParseAndCompare) {
  EXPECT_EQ(parse_version("2.27.7+cuda12.9"), (std::vector<int>{2, 27, 7}));
  EXPECT_EQ(parse_version("Open MPI v4.1.4"), (std::vector<int>{4, 1, 4}));
  EXPECT_EQ(parse_version("1.17"), (std::vector<int>{1, 17}));
  EXPECT_TRUE(parse_version("none").empty());
  EXPECT_EQ(compare_versions("1.17", "1.17.0"), 0);
  EXPECT_LT(compare_versions("1.16.3", "1.17"), 0);
  EXPECT_GT(compare_versions("2.28.9", "2.18.5"), 0);
  EXPECT_LT(compare_versions("1.9", "1.10"), 0);
}

TEST(DoctorVersions, DecodeVendorCodes) {
  EXPECT_EQ(decode_nccl_version(22707), "2.27.7");
  EXPECT_EQ(decode_nccl_version(22809), "2.28.9");
  EXPECT_EQ(decode_nccl_version(2708), "2.7.8");  // before NCCL 2.9 the code was X*1000+Y*100+Z
  EXPECT_EQ(decode_cuda_version(12090), "12.9");
  EXPECT_EQ(decode_cuda_version(13000), "13.0");
  EXPECT_EQ(decode_cuda_version(11080), "11.8");
}

TEST(DoctorVersions, ParseVendorTexts) {
  using namespace std::string_literals;
  const std::string blob =
      "\x7f"
      "ELF\0\0junk\0NET/OFI Initializing aws-ofi-nccl 1.16.3\0more"s;
  EXPECT_EQ(parse_ofi_plugin_version(blob), "1.16.3");
  EXPECT_EQ(parse_ofi_plugin_version("x\0aws-ofi-nccl 1.13.2-aws\0"s), "1.13.2-aws");
  EXPECT_EQ(parse_ofi_plugin_version("no version here"), "");
  EXPECT_EQ(parse_efa_installer_version("# EFA installer version: 1.47.0\n# Debug packages installed: no\n"), "1.47.0");
  EXPECT_EQ(parse_efa_installer_version("rdma-core 50.0\n"), "");
  EXPECT_EQ(parse_nvidia_driver_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\n"),
            "550.54.15");
  EXPECT_EQ(short_mpi_version("Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4"), "Open MPI v4.1.4");
  EXPECT_EQ(short_mpi_version("MPICH Version:\t4.0\nMPICH Release date: ..."), "MPICH Version:\t4.0");
}

TEST(DoctorVersions, PluginSearchCoversBothInstallerLayouts) {
  const auto c = ofi_plugin_candidates("x86_64", nullptr);
  EXPECT_EQ(c.front(), "/opt/amazon/ofi-nccl/lib/libnccl-net.so");
  EXPECT_NE(std::find(c.begin(), c.end(), "/opt/amazon/ofi-nccl/lib/x86_64-linux-gnu/libnccl-net.so"), c.end());
  EXPECT_EQ(ofi_plugin_candidates("x86_64", "/custom/libnccl-net.so").front(), "/custom/libnccl-net.so");
  EXPECT_EQ(ofi_plugin_candidates("x86_64", "aws-ofi").front(), "/opt/amazon/ofi-nccl/lib/libnccl-net.so");
}

TEST(DoctorVersions, IdenticalEverywherePasses) {
  const auto checks = check_versions({rank_facts(0, "a"), rank_facts(1, "b")}, {p5_node("a", 0), p5_node("b", 1)}, {"p5", "p5"});
  ASSERT_EQ(checks.size(), 10U);
  for (const auto& c : checks) EXPECT_EQ(c.status, CheckStatus::pass) << c.id << ": " << c.reason;
  EXPECT_EQ(by_id(checks, "versions.nccl").reason, "2.27.7 on all 2 ranks");
  EXPECT_EQ(by_id(checks, "versions.aws_ofi_nccl").reason, "1.16.3 on all 2 nodes");
}

TEST(DoctorVersions, DifferenceAcrossNodesFailsNamingHosts) {
  auto r1 = rank_facts(1, "b");
  r1.versions["nccl"] = {"2.28.9", "/other/libnccl.so.2"};
  auto nb = p5_node("b", 1);
  nb.versions["aws_ofi_nccl"] = {"1.13.2", "/opt/amazon/ofi-nccl/lib/x86_64-linux-gnu/libnccl-net.so"};
  const auto checks = check_versions({rank_facts(0, "a"), r1}, {p5_node("a", 0), nb}, {"p5", "p5"});
  const auto& nccl = by_id(checks, "versions.nccl");
  EXPECT_EQ(nccl.status, CheckStatus::fail);
  EXPECT_EQ(nccl.reason, "differs: 2.27.7 on rank 0 on a; 2.28.9 on rank 1 on b");
  const auto& ofi = by_id(checks, "versions.aws_ofi_nccl");
  EXPECT_EQ(ofi.status, CheckStatus::fail);
  EXPECT_EQ(ofi.reason, "differs: 1.16.3 on a; 1.13.2 on b");
  EXPECT_FALSE(ofi.fix.empty());
}

TEST(DoctorVersions, AbsentEverywhereSkipsAbsentSomewhereFails) {
  auto r0 = rank_facts(0, "a");
  auto r1 = rank_facts(1, "b");
  r0.versions["cuda_driver"] = {"", "not found (libcuda.so.1): no NVIDIA driver on this node"};
  r1.versions["cuda_driver"] = r0.versions["cuda_driver"];
  r1.versions["nccl"] = {"", "not found (libnccl.so.2, libnccl.so): NCCL is not on the library path"};
  const auto checks = check_versions({r0, r1}, {p5_node("a", 0), p5_node("b", 1)}, {"", ""});
  const auto& driver = by_id(checks, "versions.cuda_driver");
  EXPECT_EQ(driver.status, CheckStatus::skip);
  EXPECT_NE(driver.reason.find("no NVIDIA driver"), std::string::npos) << driver.reason;
  const auto& nccl = by_id(checks, "versions.nccl");
  EXPECT_EQ(nccl.status, CheckStatus::fail);
  EXPECT_EQ(nccl.reason, "differs: 2.27.7 on rank 0 on a; absent on rank 1 on b");
}

TEST(DoctorVersions, OldLibfabricWarnsWithoutEfaAndFailsWithIt) {
  auto r = rank_facts(0, "a");
  r.versions["libfabric"] = {"1.16", "/usr/lib/libfabric.so.1"};
  auto dev = testing::dev_box("a", 0);
  EXPECT_EQ(by_id(check_versions({r}, {dev}, {""}), "versions.libfabric").status, CheckStatus::warn);
  const auto p5_checks = check_versions({r}, {p5_node("a", 0)}, {"p5"});  // by_id returns a reference into it
  const auto& c = by_id(p5_checks, "versions.libfabric");
  EXPECT_EQ(c.status, CheckStatus::fail);
  EXPECT_NE(c.reason.find("older than 1.17"), std::string::npos);
}

TEST(DoctorVersions, P5MinimumsFail) {
  auto r = rank_facts(0, "a");
  r.versions["nccl"] = {"2.17.1", "x"};
  auto n = p5_node("a", 0);
  n.versions["efa_installer"] = {"1.28.0", "x"};
  const auto checks = check_versions({r}, {n}, {"p5"});
  EXPECT_EQ(by_id(checks, "versions.nccl").status, CheckStatus::fail);
  EXPECT_NE(by_id(checks, "versions.nccl").reason.find("below the p5 minimum 2.18.5"), std::string::npos);
  EXPECT_EQ(by_id(checks, "versions.efa_installer").status, CheckStatus::fail);
  // The same versions on a p4d are fine.
  EXPECT_EQ(by_id(check_versions({r}, {n}, {"p4d"}), "versions.nccl").status, CheckStatus::pass);
}

TEST(DoctorVersions, ProbesOnThisMachine) {
  const auto v = read_process_versions();
  ASSERT_TRUE(v.count("mpi"));
  EXPECT_TRUE(v.at("mpi").present());
  EXPECT_TRUE(v.at("hwloc").present());
  for (const char* key : {"nccl", "cuda_driver", "cuda_runtime", "libfabric"}) {
    ASSERT_TRUE(v.count(key)) << key;
    // Present with a version, or absent with the reason: never both empty.
    EXPECT_FALSE(v.at(key).source.empty()) << key;
  }
  const auto n = read_node_versions();
  EXPECT_TRUE(n.at("kernel").present());
  EXPECT_TRUE(n.count("efa_installer") && n.count("aws_ofi_nccl") && n.count("nvidia_driver"));
}

}  // namespace
}  // namespace meshbench::analysis
