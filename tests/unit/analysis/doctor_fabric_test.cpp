#include <gtest/gtest.h>

#include "analysis/doctor/doctor_checks.hpp"
#include "doctor_test_facts.hpp"

namespace meshbench::analysis {
namespace {

// Canned fi_getinfo lists, as libfabric returns them on the machines that matter.
std::vector<FabricEntry> efa_p4d() {
  std::vector<FabricEntry> e;
  for (int d = 0; d < 4; ++d) {
    e.push_back({"efa", "efa", "rdmap" + std::to_string(16 + d) + "s27-rdm", "FI_EP_RDM"});
    e.push_back({"efa", "efa", "rdmap" + std::to_string(16 + d) + "s27-dgrm", "FI_EP_DGRAM"});
  }
  e.push_back({"shm", "shm", "shm", "FI_EP_RDM"});
  e.push_back({"tcp;ofi_rxm", "172.31.0.0/16", "ens32", "FI_EP_RDM"});
  return e;
}

const std::vector<FabricEntry> kTcpOnly = {{"tcp;ofi_rxm", "172.31.0.0/16", "ens32", "FI_EP_RDM"},
                                           {"sockets", "172.31.0.0/16", "ens32", "FI_EP_RDM"},
                                           {"tcp", "172.31.0.0/16", "ens32", "FI_EP_MSG"},
                                           {"udp;ofi_rxd", "172.31.0.0/16", "ens32", "FI_EP_RDM"}};

TEST(DoctorFabric, EfaWithRdmPasses) {
  const auto v = evaluate_fabric(efa_p4d(), {4, true, ""});
  EXPECT_EQ(v.status, CheckStatus::pass) << v.reason;
  EXPECT_NE(v.reason.find("FI_EP_RDM on 4 domain(s)"), std::string::npos) << v.reason;
}

TEST(DoctorFabric, FewerRdmDomainsThanEfaDevicesWarns) {
  const auto v = evaluate_fabric(efa_p4d(), {8, true, ""});
  EXPECT_EQ(v.status, CheckStatus::warn);
  EXPECT_NE(v.reason.find("PCI shows 8 EFA devices"), std::string::npos) << v.reason;
}

TEST(DoctorFabric, OnlyTcpAndSocketsWhereEfaExistsFailsNamingTheFallback) {
  const auto v = evaluate_fabric(kTcpOnly, {4, true, ""});
  EXPECT_EQ(v.status, CheckStatus::fail);
  EXPECT_NE(v.reason.find("no efa provider although 4 EFA device(s) on PCI"), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find("sockets"), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find("tcp;ofi_rxm"), std::string::npos) << v.reason;
  EXPECT_FALSE(v.fix.empty());
  // The node type alone (devices not visible yet) is enough to expect efa.
  EXPECT_EQ(evaluate_fabric(kTcpOnly, {0, true, ""}).status, CheckStatus::fail);
}

TEST(DoctorFabric, EfaWithOnlyDgramFails) {
  const std::vector<FabricEntry> dgram = {{"efa", "efa", "efa_0-dgrm", "FI_EP_DGRAM"}, {"tcp;ofi_rxm", "10.0.0.0/8", "eth0", "FI_EP_RDM"}};
  const auto v = evaluate_fabric(dgram, {1, false, ""});
  EXPECT_EQ(v.status, CheckStatus::fail);
  EXPECT_NE(v.reason.find("no FI_EP_RDM"), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find("tcp;ofi_rxm"), std::string::npos) << v.reason;
}

TEST(DoctorFabric, MixedEfaAndEfaDirectCountsEachDeviceOnce) {
  std::vector<FabricEntry> mixed = {{"efa", "efa-direct", "rdmap16s27-rdm", "FI_EP_RDM"},
                                    {"efa", "efa-direct", "rdmap17s27-rdm", "FI_EP_RDM"},
                                    {"efa", "efa", "rdmap16s27-rdm", "FI_EP_RDM"},
                                    {"efa", "efa", "rdmap17s27-rdm", "FI_EP_RDM"},
                                    {"efa", "efa", "rdmap16s27-dgrm", "FI_EP_DGRAM"}};
  mixed.insert(mixed.end(), kTcpOnly.begin(), kTcpOnly.end());
  const auto v = evaluate_fabric(mixed, {2, true, ""});
  EXPECT_EQ(v.status, CheckStatus::pass) << v.reason;
  EXPECT_NE(v.reason.find("on 2 domain(s), fabric efa, efa-direct"), std::string::npos) << v.reason;
}

TEST(DoctorFabric, NoEfaAnywhereSkipsOrWarnsWhenFiProviderAsksForIt) {
  auto v = evaluate_fabric(kTcpOnly, {0, false, ""});
  EXPECT_EQ(v.status, CheckStatus::skip);
  EXPECT_NE(v.reason.find("no EFA device"), std::string::npos) << v.reason;
  // FI_PROVIDER=efa makes fi_getinfo list nothing on such a node.
  v = evaluate_fabric({}, {0, false, "efa"});
  EXPECT_EQ(v.status, CheckStatus::warn);
  EXPECT_NE(v.reason.find("FI_PROVIDER=efa is set"), std::string::npos) << v.reason;
}

TEST(DoctorFabric, ProviderListInOneLine) {
  EXPECT_EQ(summarise_providers(efa_p4d()), "efa: DGRAM x4, RDM x4; shm: RDM x1; tcp;ofi_rxm: RDM x1");
  EXPECT_EQ(summarise_providers({}), "none");
}

TEST(DoctorFabric, CheckAcrossNodesNamesTheBrokenNode) {
  auto good = testing::p5_node("a", 0);
  auto bad = testing::p5_node("b", 8);
  bad.fabric.entries = kTcpOnly;
  const auto c = check_fabric({good, bad}, {"p5", "p5"});
  EXPECT_EQ(c.status, CheckStatus::fail);
  EXPECT_NE(c.reason.find("b: no efa provider"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("a: efa provider with FI_EP_RDM on 32"), std::string::npos) << c.reason;
  EXPECT_EQ(check_fabric({good, testing::p5_node("c", 8)}, {"p5", "p5"}).status, CheckStatus::pass);
  auto unbuilt = testing::p5_node("d", 16);
  unbuilt.fabric = {false, "meshbench was built without libfabric", "", {}};
  EXPECT_EQ(check_fabric({good, unbuilt}, {"p5", "p5"}).status, CheckStatus::warn);
  EXPECT_EQ(check_fabric({unbuilt}, {"p5"}).status, CheckStatus::skip);
}

}  // namespace
}  // namespace meshbench::analysis
