#include <gtest/gtest.h>

#include <sstream>

#include "analysis/doctor/doctor.hpp"
#include "common/error.hpp"
#include "doctor_test_facts.hpp"

namespace meshbench::analysis {
namespace {

using testing::kTemplateEnv;
using testing::p5_node;
using testing::rank_facts;

DoctorFindings healthy_p5_pair() {
  ClockMeasurement clock;
  clock.measured = true;
  clock.offsets = {{"b", 1, 0.03, 0.04, 64}};
  return evaluate_doctor({rank_facts(1, "b", kTemplateEnv), rank_facts(0, "a", kTemplateEnv)}, {p5_node("a", 0), p5_node("b", 1)}, clock,
                         DoctorOptions{});
}

TEST(DoctorFindings, ChecksInPrintedOrderAndAllPassOnHealthyP5Pair) {
  const auto r = healthy_p5_pair();
  std::vector<std::string> ids;
  for (const auto& c : r.checks) ids.push_back(c.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"env.template", "env.identical", "env.legacy", "versions.nccl", "versions.cuda_driver",
                                           "versions.cuda_runtime", "versions.nvidia_driver", "versions.libfabric", "versions.aws_ofi_nccl",
                                           "versions.efa_installer", "versions.mpi", "versions.hwloc", "versions.kernel", "fabric.provider",
                                           "devices.gpus", "devices.efa", "devices.mtu", "clock.offset", "gpu.health"}));
  for (const auto& c : r.checks) EXPECT_EQ(c.status, CheckStatus::pass) << c.id << ": " << c.reason;
  EXPECT_EQ(r.exit_status(), 0);
  EXPECT_EQ(r.ranks.front().rank, 0);  // sorted
  EXPECT_EQ(r.versions.at("nccl").at("a"), "2.27.7");
  EXPECT_EQ(r.versions.at("aws_ofi_nccl").at("b"), "1.16.3");
}

TEST(DoctorFindings, AnyFailMakesExitStatusOne) {
  ClockMeasurement clock;
  clock.measured = true;
  clock.offsets = {{"b", 1, 25.0, 0.04, 64}};
  const auto r = evaluate_doctor({rank_facts(0, "a", kTemplateEnv), rank_facts(1, "b", kTemplateEnv)}, {p5_node("a", 0), p5_node("b", 1)},
                                 clock, DoctorOptions{});
  EXPECT_EQ(r.find("clock.offset")->status, CheckStatus::fail);
  EXPECT_TRUE(r.failed());
  EXPECT_EQ(r.exit_status(), 1);
}

TEST(DoctorFindings, JsonRoundTripKeepsChecksVersionsAndFacts) {
  const auto r = healthy_p5_pair();
  const nlohmann::json j = r;
  EXPECT_EQ(j.at("schema"), "meshbench.doctor");
  EXPECT_EQ(j.at("summary").at("status"), "PASS");
  EXPECT_EQ(j.at("summary").at("pass"), 19);
  const auto back = doctor_findings_from_json(nlohmann::json::parse(j.dump()));
  ASSERT_EQ(back.checks.size(), r.checks.size());
  for (std::size_t i = 0; i < r.checks.size(); ++i) {
    EXPECT_EQ(back.checks[i].id, r.checks[i].id);
    EXPECT_EQ(back.checks[i].status, r.checks[i].status);
    EXPECT_EQ(back.checks[i].reason, r.checks[i].reason);
    EXPECT_EQ(back.checks[i].details, r.checks[i].details);
  }
  EXPECT_EQ(back.versions, r.versions);
  ASSERT_EQ(back.ranks.size(), 2U);
  EXPECT_EQ(back.ranks[1].env, r.ranks[1].env);
  EXPECT_EQ(back.ranks[1].versions.at("nccl").source, "/opt/nccl/lib/libnccl.so.2");
  ASSERT_EQ(back.nodes.size(), 2U);
  EXPECT_EQ(back.nodes[0].fabric.entries, r.nodes[0].fabric.entries);
  EXPECT_EQ(back.nodes[0].pci.efa, 32);
  EXPECT_EQ(back.nodes[0].interfaces[0].driver, "ena");
  EXPECT_EQ(*back.nodes[0].gpu.gpus[2].temperature_c, 42.0);
  EXPECT_EQ(back.clock.offsets.at(0).host, "b");
  EXPECT_EQ(nlohmann::json(back), j);  // nothing lost or added on the way
}

TEST(DoctorFindings, RefusesAnotherSchemaVersion) {
  nlohmann::json j = healthy_p5_pair();
  j["schema_version"] = 3;
  EXPECT_THROW(doctor_findings_from_json(j), InputError);
  EXPECT_THROW(doctor_findings_from_json(nlohmann::json::object()), InputError);
}

// Four ranks, rank 2 with another NCCL_PROTO: two stored entries, not four, each naming its
// ranks as ranges; reading them back gives every rank its facts and its node's host.
TEST(DoctorFindings, RankFactsAreStoredOncePerDistinctValue) {
  auto env = kTemplateEnv;
  auto other = kTemplateEnv;
  for (auto& [name, value] : other) {
    if (name == "NCCL_PROTO") value = "Simple";
  }
  auto a = p5_node("a", 0);
  a.ranks = {0, 1};
  auto b = p5_node("b", 2);
  b.ranks = {2, 3};
  const auto r = evaluate_doctor({rank_facts(0, "a", env), rank_facts(1, "a", env), rank_facts(2, "b", other), rank_facts(3, "b", env)},
                                 {a, b}, ClockMeasurement{}, DoctorOptions{});
  const nlohmann::json j = r;
  EXPECT_EQ(j.at("schema_version"), 2);
  EXPECT_FALSE(j.contains("ranks"));
  const auto& groups = j.at("rank_facts");
  ASSERT_EQ(groups.size(), 2U) << groups.dump();
  EXPECT_EQ(groups[0].at("ranks"), nlohmann::json::parse("[[0, 1], [3, 3]]"));
  EXPECT_EQ(groups[1].at("ranks"), nlohmann::json::parse("[[2, 2]]"));
  EXPECT_EQ(groups[1].at("env").at("NCCL_PROTO"), "Simple");
  const auto back = doctor_findings_from_json(nlohmann::json::parse(j.dump()));
  ASSERT_EQ(back.ranks.size(), 4U);
  for (int k = 0; k < 4; ++k) {
    EXPECT_EQ(back.ranks[static_cast<std::size_t>(k)].rank, k);
    EXPECT_EQ(back.ranks[static_cast<std::size_t>(k)].host, k < 2 ? "a" : "b");
    EXPECT_EQ(back.ranks[static_cast<std::size_t>(k)].env, r.ranks[static_cast<std::size_t>(k)].env) << "rank " << k;
  }
  EXPECT_EQ(nlohmann::json(back), j);
}

TEST(DoctorFacts, LauncherIdentityIsLeftOutOfTheComparedFacts) {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "PMIX_RANK", "PMIX_ID", "OMPI_MCA_ess_base_vpid",
                           "SLURM_PROCID", "SLURM_LOCALID", "SLURM_NODEID", "SLURMD_NODENAME", "PMIX_SERVER_URI41", "HOSTNAME"}) {
    EXPECT_TRUE(is_launcher_identity(name)) << name;
  }
  for (const char* name :
       {"NCCL_PROTO", "FI_PROVIDER", "OMPI_COMM_WORLD_SIZE", "SLURM_JOB_ID", "LD_LIBRARY_PATH", "NCCL_RANKS_PER_NODE_X"}) {
    EXPECT_FALSE(is_launcher_identity(name)) << name;
  }
}

// Version 1 listed every rank; such a report (in older results files) still reads.
TEST(DoctorFindings, ReadsVersionOneRankLists) {
  nlohmann::json j = healthy_p5_pair();
  j["schema_version"] = 1;
  j["ranks"] = nlohmann::json::parse(R"([{"rank": 0, "host": "a", "env": {"NCCL_PROTO": "LL128"}, "versions": {}},
                                          {"rank": 1, "host": "b", "env": {}, "versions": {}}])");
  j.erase("rank_facts");
  const auto back = doctor_findings_from_json(j);
  ASSERT_EQ(back.ranks.size(), 2U);
  EXPECT_EQ(back.ranks[0].env.at(0).second, "LL128");
  EXPECT_EQ(back.ranks[1].host, "b");
  EXPECT_EQ(back.schema_version, 2);
}

TEST(DoctorFindings, VersionChangesBetweenRuns) {
  const auto before = healthy_p5_pair();
  auto after = healthy_p5_pair();
  after.versions["nccl"] = {{"a", "2.28.9"}, {"b", "2.28.9"}};
  after.versions["aws_ofi_nccl"] = {{"a", "1.16.3"}, {"b", "1.17.0"}};
  after.versions.erase("nvidia_driver");
  const auto changes = version_changes(before, after);
  ASSERT_EQ(changes.size(), 3U);
  EXPECT_EQ(changes[0].component, "aws_ofi_nccl");
  EXPECT_EQ(changes[0].after, "mixed: 1.16.3, 1.17.0");
  EXPECT_EQ(changes[1].component, "nccl");
  EXPECT_EQ(changes[1].before, "2.27.7");
  EXPECT_EQ(changes[1].after, "2.28.9");
  EXPECT_EQ(changes[2].component, "nvidia_driver");
  EXPECT_EQ(changes[2].after, "absent");
}

TEST(DoctorFindings, TextLinesCarryStatusIdReasonAndFix) {
  auto r = healthy_p5_pair();
  r.checks[1].status = CheckStatus::fail;
  r.checks[1].reason = "NCCL_PROTO differs";
  r.checks[1].fix = "set it once";
  std::ostringstream out;
  print_doctor_text(r, out, false);
  const std::string text = out.str();
  EXPECT_NE(text.find("PASS  env.template"), std::string::npos) << text;
  EXPECT_NE(text.find("FAIL  env.identical"), std::string::npos) << text;
  EXPECT_NE(text.find("— NCCL_PROTO differs\n      fix: set it once\n"), std::string::npos) << text;
  EXPECT_NE(text.find("· b (rank 1): offset +0.030 ms"), std::string::npos) << text;  // clock details always
  EXPECT_NE(text.find("summary: 18 PASS, 0 WARN, 1 FAIL, 0 SKIP — exit status 1"), std::string::npos) << text;
}

}  // namespace
}  // namespace meshbench::analysis
