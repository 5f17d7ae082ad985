#include <gtest/gtest.h>

#include <sstream>

#include "analysis/doctor/doctor_checks.hpp"
#include "common/error.hpp"
#include "doctor_test_facts.hpp"

namespace meshbench::analysis {
namespace {

using testing::dev_box;
using testing::kTemplateEnv;
using testing::p5_node;
using testing::rank_facts;

EnvTemplate parse(const std::string& text) {
  std::istringstream in(text);
  return parse_env_template(in, "team.env");
}

results::Environment with(results::Environment env, const std::string& name, const std::string& value) {
  for (auto& kv : env) {
    if (kv.first == name) {
      kv.second = value;
      return env;
    }
  }
  env.emplace_back(name, value);
  return env;
}

results::Environment without(results::Environment env, const std::string& name) {
  std::erase_if(env, [&](const auto& kv) { return kv.first == name; });
  return env;
}

TEST(DoctorEnvTemplate, BuiltInIsTheSeedChecklist) {
  const auto t = builtin_env_template();
  EXPECT_TRUE(t.builtin);
  ASSERT_EQ(t.entries.size(), 6U);
  EXPECT_EQ(t.entries[0].name, "FI_PROVIDER");
  EXPECT_EQ(t.entries[0].value, "efa");
  EXPECT_EQ(t.entries[2].name, "NCCL_PROTO");
  EXPECT_EQ(t.entries[2].value, "LL128");
}

TEST(DoctorEnvTemplate, ParsesExportsQuotesCommentsAndUnset) {
  const auto t = parse(
      "# team template for p5\n"
      "\n"
      "export FI_PROVIDER=efa\n"
      "NCCL_PROTO=LL128   # inline comment\n"
      "export NCCL_SOCKET_IFNAME=\"^docker,lo,veth\"\n"
      "NCCL_DEBUG='INFO'\n"
      "export NCCL_TUNER_PLUGIN=/opt/amazon/ofi-nccl/lib/$(uname -m)-linux-gnu/libnccl-ofi-tuner.so\n"
      "unset FI_EFA_FORK_SAFE RDMAV_FORK_SAFE\n"
      "NCCL_PROTO=Simple\n"
      "export HF_TOKEN=hf_should_never_be_printed\n");
  ASSERT_EQ(t.entries.size(), 7U);
  EXPECT_EQ(t.entries[0].name, "FI_PROVIDER");
  EXPECT_EQ(t.entries[0].line, 3);
  EXPECT_EQ(t.entries[1].value, "Simple");  // the later line wins, as in the shell
  EXPECT_EQ(t.entries[2].value, "^docker,lo,veth");
  EXPECT_EQ(t.entries[3].value, "INFO");
  EXPECT_TRUE(t.entries[4].shell_expansion);
  EXPECT_TRUE(t.entries[5].must_be_unset);
  EXPECT_EQ(t.entries[6].name, "RDMAV_FORK_SAFE");
  EXPECT_EQ(t.ignored_secret_names, std::vector<std::string>{"HF_TOKEN"});
}

TEST(DoctorEnvTemplate, BadLinesNameFileAndLine) {
  try {
    parse("FI_PROVIDER=efa\nif [ -x foo ]; then\n");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("team.env:2"), std::string::npos);
  }
  EXPECT_THROW(parse("NCCL_PROTO=LL128 Simple\n"), InputError);
  EXPECT_THROW(parse("NCCL_PROTO=\"LL128\n"), InputError);
  EXPECT_THROW(parse("1BAD=x\n"), InputError);
}

TEST(DoctorEnvTemplate, AllSetAsTemplatePasses) {
  const std::vector<RankFacts> ranks = {rank_facts(0, "a", kTemplateEnv), rank_facts(1, "b", kTemplateEnv)};
  const auto c = check_env_template(ranks, builtin_env_template(), false);
  EXPECT_EQ(c.status, CheckStatus::pass) << c.reason;
  EXPECT_NE(c.reason.find("all 6"), std::string::npos);
}

TEST(DoctorEnvTemplate, UnsetIsWarnUnlessStrict) {
  const std::vector<RankFacts> ranks = {rank_facts(0, "a", without(kTemplateEnv, "NCCL_PROTO"))};
  auto c = check_env_template(ranks, builtin_env_template(), false);
  EXPECT_EQ(c.status, CheckStatus::warn);
  EXPECT_NE(c.reason.find("NCCL_PROTO"), std::string::npos);
  EXPECT_NE(c.fix.find("--strict"), std::string::npos);
  c = check_env_template(ranks, builtin_env_template(), true);
  EXPECT_EQ(c.status, CheckStatus::fail);
}

TEST(DoctorEnvTemplate, DifferentValueWarnsForBuiltInFailsForTeamTemplate) {
  const std::vector<RankFacts> ranks = {rank_facts(0, "a", kTemplateEnv), rank_facts(1, "b", with(kTemplateEnv, "NCCL_PROTO", "Simple"))};
  auto c = check_env_template(ranks, builtin_env_template(), false);
  EXPECT_EQ(c.status, CheckStatus::warn);
  EXPECT_NE(c.reason.find("NCCL_PROTO=Simple (template: LL128) on rank 1 on b"), std::string::npos) << c.reason;
  c = check_env_template(ranks, parse("NCCL_PROTO=LL128\n"), false);
  EXPECT_EQ(c.status, CheckStatus::fail);
}

TEST(DoctorEnvTemplate, ShellExpansionChecksPresenceAndUnsetChecksAbsence) {
  const auto t = parse("NCCL_TUNER_PLUGIN=/opt/$(uname -m)/tuner.so\nunset FI_EFA_FORK_SAFE\n");
  const std::vector<RankFacts> ok = {rank_facts(0, "a", {{"NCCL_TUNER_PLUGIN", "/opt/x86_64/tuner.so"}})};
  EXPECT_EQ(check_env_template(ok, t, false).status, CheckStatus::pass);
  const std::vector<RankFacts> bad = {rank_facts(0, "a", {{"NCCL_TUNER_PLUGIN", "/x"}, {"FI_EFA_FORK_SAFE", "1"}})};
  const auto c = check_env_template(bad, t, false);
  EXPECT_EQ(c.status, CheckStatus::fail);
  EXPECT_NE(c.reason.find("FI_EFA_FORK_SAFE=1 (template: unset)"), std::string::npos) << c.reason;
}

TEST(DoctorEnvIdentical, SameOnAllRanksPasses) {
  const std::vector<RankFacts> ranks = {rank_facts(0, "a", with(kTemplateEnv, "OMPI_COMM_WORLD_RANK", "0")),
                                        rank_facts(1, "b", with(kTemplateEnv, "OMPI_COMM_WORLD_RANK", "1"))};
  const auto c = check_env_identical(ranks);
  EXPECT_EQ(c.status, CheckStatus::pass) << c.reason;
  EXPECT_NE(c.reason.find("6 NCCL/FI/CUDA/loader variables"), std::string::npos) << c.reason;
}

TEST(DoctorEnvIdentical, DifferenceAcrossRanksFailsNamingVariableRanksAndHosts) {
  const std::vector<RankFacts> ranks = {rank_facts(0, "node-a", kTemplateEnv), rank_facts(1, "node-a", kTemplateEnv),
                                        rank_facts(2, "node-b", with(kTemplateEnv, "NCCL_PROTO", "Simple")),
                                        rank_facts(3, "node-b", without(kTemplateEnv, "FI_PROVIDER"))};
  const auto c = check_env_identical(ranks);
  EXPECT_EQ(c.status, CheckStatus::fail);
  EXPECT_NE(c.reason.find("NCCL_PROTO differs: LL128 on ranks 0-1 on node-a, 3 on node-b; Simple on rank 2 on node-b"), std::string::npos)
      << c.reason;
  EXPECT_NE(c.reason.find("FI_PROVIDER differs: efa on ranks 0-1 on node-a, 2 on node-b; (unset) on rank 3 on node-b"), std::string::npos)
      << c.reason;
  EXPECT_FALSE(c.fix.empty());
}

TEST(DoctorEnvIdentical, PerRankVariablesAreNotCompared) {
  EXPECT_TRUE(is_behaviour_variable("NCCL_PROTO"));
  EXPECT_TRUE(is_behaviour_variable("FI_EFA_USE_DEVICE_RDMA"));
  EXPECT_TRUE(is_behaviour_variable("OFI_NCCL_PROTOCOL"));
  EXPECT_TRUE(is_behaviour_variable("LD_PRELOAD"));
  EXPECT_FALSE(is_behaviour_variable("CUDA_VISIBLE_DEVICES"));
  EXPECT_FALSE(is_behaviour_variable("OMPI_COMM_WORLD_RANK"));
  EXPECT_FALSE(is_behaviour_variable("SLURM_PROCID"));
  EXPECT_FALSE(is_behaviour_variable("MESHBENCH_TEST_CLOCK_OFFSET_MS"));
  const std::vector<RankFacts> ranks = {rank_facts(0, "a", {{"CUDA_VISIBLE_DEVICES", "0"}, {"SLURM_LOCALID", "0"}}),
                                        rank_facts(1, "a", {{"CUDA_VISIBLE_DEVICES", "1"}, {"SLURM_LOCALID", "1"}})};
  EXPECT_EQ(check_env_identical(ranks).status, CheckStatus::pass);
}

TEST(DoctorEnvIdentical, OneRankSkips) { EXPECT_EQ(check_env_identical({rank_facts(0, "a")}).status, CheckStatus::skip); }

TEST(DoctorEnvLegacy, FindingsFollowTheVersionsFound) {
  const results::Environment env = {{"FI_PROVIDER", "efa"},
                                    {"FI_EFA_FORK_SAFE", "1"},
                                    {"NCCL_PROTO", "simple"},
                                    {"RDMAV_FORK_SAFE", "1"},
                                    {"FI_EFA_USE_DEVICE_RDMA", "1"}};
  EnvLegacyInput in{&env, "1.22", "1.16.3", "1.38.0", "2.27.7", 32};
  auto names = [](const std::vector<EnvFinding>& fs) {
    std::vector<std::string> n;
    for (const auto& f : fs) n.push_back(f.variable);
    return n;
  };
  EXPECT_EQ(names(legacy_env_findings(in)),
            (std::vector<std::string>{"FI_EFA_USE_DEVICE_RDMA", "FI_PROVIDER", "NCCL_PROTO", "FI_EFA_FORK_SAFE", "RDMAV_FORK_SAFE"}));
  // Without the plugin (a dev box), FI_PROVIDER and NCCL_PROTO=simple may be what the node needs.
  EnvLegacyInput no_plugin{&env, "1.17", "", "", "2.28.9", 0};
  EXPECT_EQ(names(legacy_env_findings(no_plugin)), (std::vector<std::string>{"FI_EFA_FORK_SAFE", "RDMAV_FORK_SAFE"}));
}

TEST(DoctorEnvLegacy, OldEfaInstallerWithNewNcclIsHarmful) {
  const results::Environment env;
  EnvLegacyInput in{&env, "1.18", "1.7.4", "1.28.0", "2.19.3", 4};
  auto f = legacy_env_findings(in);
  ASSERT_EQ(f.size(), 1U);
  EXPECT_TRUE(f[0].harmful);
  EXPECT_EQ(f[0].variable, "FI_EFA_SET_CUDA_SYNC_MEMOPS");
  const results::Environment fixed = {{"FI_EFA_SET_CUDA_SYNC_MEMOPS", "0"}};
  in.env = &fixed;
  EXPECT_TRUE(legacy_env_findings(in).empty());
}

TEST(DoctorEnvLegacy, CheckWarnsButLeavesTemplateChoicesToTheTemplateCheck) {
  const std::vector<RankFacts> ranks = {rank_facts(0, "a", kTemplateEnv), rank_facts(1, "a", with(kTemplateEnv, "FI_EFA_FORK_SAFE", "1"))};
  const auto c = check_env_legacy(ranks, {p5_node("a", 0)}, builtin_env_template());
  EXPECT_EQ(c.status, CheckStatus::warn);
  EXPECT_NE(c.reason.find("FI_EFA_FORK_SAFE=1"), std::string::npos) << c.reason;
  // FI_PROVIDER=efa and NCCL_BUFFSIZE are legacy with this plugin, but the template sets them.
  EXPECT_EQ(c.reason.find("FI_PROVIDER"), std::string::npos) << c.reason;
  EXPECT_EQ(c.reason.find("NCCL_BUFFSIZE"), std::string::npos) << c.reason;
  bool noted = false;
  for (const auto& [k, v] : c.details) noted = noted || (k.rfind("FI_PROVIDER", 0) == 0 && v.find("template") != std::string::npos);
  EXPECT_TRUE(noted);
  EXPECT_EQ(check_env_legacy({rank_facts(0, "d")}, {dev_box("d", 0)}, builtin_env_template()).status, CheckStatus::pass);
}

}  // namespace
}  // namespace meshbench::analysis
