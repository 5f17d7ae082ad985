#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/doctor/doctor_devices.hpp"
#include "analysis/doctor/doctor_env.hpp"
#include "analysis/doctor/doctor_gpu.hpp"
#include "analysis/doctor/fabric.hpp"
#include "analysis/doctor/versions.hpp"
#include "results/environment.hpp"

namespace meshbench::analysis {

// What one rank (process) reports: its environment and the libraries it loads.
struct RankFacts {
  int rank = 0;
  std::string host;
  // The recorded (allow-listed, secret-filtered) environment plus the template's variables
  // that pass the same secret filter: never anything else.
  results::Environment env;
  VersionMap versions;  // nccl, cuda_driver, cuda_runtime, libfabric, mpi, hwloc
};

// What the first rank of each node reports for the node.
struct NodeFacts {
  std::string host;
  int leader_rank = 0;
  std::vector<int> ranks;
  std::string instance_type;  // from DMI; "" off EC2
  PciCounts pci;
  std::vector<NetInterface> interfaces;
  VersionMap versions;  // kernel, efa_installer, aws_ofi_nccl, nvidia_driver
  FabricListing fabric;
  GpuReading gpu;
};

// True for a variable the launcher sets per process (its rank, node, session): left out of the
// facts, which are compared across ranks and stored once per distinct value.
bool is_launcher_identity(const std::string& name);

// Readings of this process and node (no MPI). `tmpl` adds the template's variables to env.
RankFacts collect_rank_facts(int rank, const std::string& host, const EnvTemplate& tmpl);
NodeFacts collect_node_facts(const std::string& host, int leader_rank, std::vector<int> ranks);
std::string local_hostname();

void to_json(nlohmann::json& j, const VersionInfo& v);
void from_json(const nlohmann::json& j, VersionInfo& v);
void to_json(nlohmann::json& j, const RankFacts& f);
void from_json(const nlohmann::json& j, RankFacts& f);
void to_json(nlohmann::json& j, const NodeFacts& f);
void from_json(const nlohmann::json& j, NodeFacts& f);

}  // namespace meshbench::analysis
