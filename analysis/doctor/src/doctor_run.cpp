#include <map>

#include "analysis/doctor/doctor_run.hpp"
#include "analysis/doctor/src/clock_offset_mpi.hpp"
#include "common/mpi/strings.hpp"

namespace meshbench::analysis {

namespace {

std::int64_t injection_or_zero(double option_ms, bool is_rank0) {
  try {
    return injected_clock_offset_ns(option_ms, is_rank0);
  } catch (const std::exception&) {
    return 0;  // doctor_command validates it before MPI starts; never let one rank throw mid-collective
  }
}

DoctorFindings internal_failure(const std::string& what) {
  DoctorFindings r;
  r.checks.push_back({"doctor.internal",
                      "doctor itself",
                      CheckStatus::fail,
                      "evaluating the gathered facts failed: " + what,
                      "report this as a meshbench bug, with the command line",
                      {}});
  return r;
}

// The node's facts as JSON, from its first rank; a reader that throws leaves its reason instead.
std::string node_facts_json(const std::string& host, int rank, const std::vector<int>& node_ranks) {
  NodeFacts node;
  node.host = host;
  node.leader_rank = rank;
  node.ranks = node_ranks;
  try {
    node = collect_node_facts(host, rank, node_ranks);
  } catch (const std::exception& e) {
    node.fabric.note = node.gpu.note = std::string("reading the node failed: ") + e.what();
  }
  return nlohmann::json(node).dump(-1, ' ', false, kReplaceInvalidUtf8);
}

// Every rank's facts from the distinct sets gathered, each with its rank and host.
std::vector<RankFacts> every_rank_facts(const mpi::DistinctStrings& bodies, const std::vector<std::string>& hosts) {
  std::vector<RankFacts> distinct;
  for (const auto& s : bodies.values) distinct.push_back(nlohmann::json::parse(s).get<RankFacts>());
  std::vector<RankFacts> ranks;
  ranks.reserve(hosts.size());
  for (std::size_t r = 0; r < hosts.size(); ++r) {
    RankFacts f = distinct.at(static_cast<std::size_t>(bodies.value_of_rank[r]));
    f.rank = static_cast<int>(r);
    f.host = hosts[r];
    ranks.push_back(std::move(f));
  }
  return ranks;
}

}  // namespace

DoctorFindings run_doctor(MPI_Comm parent, const DoctorOptions& options) {
  // A private communicator keeps doctor's messages apart from whatever the caller has in flight.
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(parent, &comm);
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const std::int64_t injected = injection_or_zero(options.inject_clock_offset_ms, rank == 0);

  const std::string host = local_hostname();
  const auto hosts = mpi::allgather_strings(host, comm);
  std::vector<int> my_node_ranks;
  for (int r = 0; r < size; ++r) {
    if (hosts[static_cast<std::size_t>(r)] == host) my_node_ranks.push_back(r);
  }
  const bool leader = my_node_ranks.front() == rank;

  // A reader that throws must not leave the other ranks waiting in the gathers below: report
  // what was found, and the failure, instead.
  RankFacts mine;
  mine.rank = rank;
  mine.host = host;
  try {
    mine = collect_rank_facts(rank, host, options.env_template);
  } catch (const std::exception& e) {
    for (const char* component : {"nccl", "cuda_driver", "cuda_runtime", "libfabric", "mpi", "hwloc"}) {
      mine.versions[component] = {"", std::string("reading rank ") + std::to_string(rank) + " failed: " + e.what()};
    }
  }
  const std::string node_json = leader ? node_facts_json(host, rank, my_node_ranks) : std::string();
  // Ranks mostly share one environment and one set of libraries: each distinct set travels once
  // (rank and host are known to rank 0 already), so rank 0's intake stays bounded at scale.
  nlohmann::json body = mine;
  body.erase("rank");
  body.erase("host");
  const auto rank_bodies = mpi::gather_distinct_strings(body.dump(-1, ' ', false, kReplaceInvalidUtf8), comm);
  const auto node_jsons = mpi::gather_strings(node_json, comm);
  ClockMeasurement clock = detail::measure_clock_offsets(comm, hosts, options.clock_samples, injected);

  DoctorFindings report;
  std::string light;
  if (rank == 0) {
    try {
      std::vector<RankFacts> ranks = every_rank_facts(rank_bodies, hosts);
      std::vector<NodeFacts> nodes;
      for (const auto& s : node_jsons) {
        if (!s.empty()) nodes.push_back(nlohmann::json::parse(s).get<NodeFacts>());
      }
      report = evaluate_doctor(std::move(ranks), std::move(nodes), std::move(clock), options);
    } catch (const std::exception& e) {
      report = internal_failure(e.what());
    }
    report.mpi = true;
    report.world_size = size;
    nlohmann::json j = report;
    j.erase("rank_facts");
    j.erase("nodes");
    light = j.dump(-1, ' ', false, kReplaceInvalidUtf8);
  }
  mpi::broadcast_string(light, comm);
  if (rank != 0) report = doctor_findings_from_json(nlohmann::json::parse(light));
  MPI_Comm_free(&comm);
  return report;
}

DoctorFindings run_doctor_local(const DoctorOptions& options) {
  const std::string host = local_hostname();
  ClockMeasurement clock;
  clock.note = "one process (not started by mpirun/srun): no other node's clock to compare";
  DoctorFindings r =
      evaluate_doctor({collect_rank_facts(0, host, options.env_template)}, {collect_node_facts(host, 0, {0})}, clock, options);
  r.mpi = false;
  return r;
}

}  // namespace meshbench::analysis
