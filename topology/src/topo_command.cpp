// meshbench topo: the cluster topology, from files or the catalog offline, or discovered
// live (under mpirun/srun the whole cluster, otherwise this node).
#include <mpi.h>

#include <iostream>

#include "common/error.hpp"
#include "common/mpi/session.hpp"
#include "topology/commands.hpp"
#include "topology/json.hpp"
#include "topology/live_cluster.hpp"
#include "topology/options.hpp"
#include "topology/src/topo_text.hpp"

namespace meshbench::topology {

namespace {

void print(const ClusterTopology& cluster, const std::vector<std::string>& warnings, const std::vector<int>& slot_of_rank,
           OutputFormat format) {
  if (format == OutputFormat::json) {
    nlohmann::ordered_json j = to_json(cluster);
    j["warnings"] = warnings;
    if (!slot_of_rank.empty()) j["slot_of_rank"] = slot_of_rank;
    std::cout << dump_readable(j) << "\n";
  } else {
    print_topology_text(std::cout, cluster, warnings, slot_of_rank);
  }
}

// Live discovery of the job's nodes. A failure on one rank must not leave the others waiting
// in a collective, so it aborts the job after saying why.
int discover_and_print(OutputFormat format) {
  const mpi::MpiSession session;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  try {
    const LiveCluster live = discover_cluster(MPI_COMM_WORLD);
    if (rank == 0) print(live.topology, live.warnings, live.slot_of_rank, format);
  } catch (const std::exception& e) {
    std::cerr << "meshbench topo: failed on rank " << rank << ": " << e.what() << "\n";
    MPI_Abort(MPI_COMM_WORLD, kExitFailure);
  }
  std::cout.flush();  // before the session's MPI_Finalize
  return kExitOk;
}

}  // namespace

int topo_command(const Args& args) {
  TopologyOptions topology;
  std::string format_name;
  po::options_description options("topo options");
  add_topology_options(options, topology);
  // clang-format off
  options.add_options()("format", po::value<std::string>(&format_name)->default_value("text")->value_name("FORMAT"),
                        "output: text (a readable summary) or json (the documented form, docs/topology.md)");
  // clang-format on
  const auto vm =
      parse_command("topo",
                    "Describe the cluster: nodes, slots (GPUs, or CPU rank slots without GPUs), NICs, NUMA, and the link class\n"
                    "and expected bandwidth of every slot pair. Offline from --topology/--node-type/--nodes; otherwise the\n"
                    "live cluster under mpirun/srun, or this node alone.",
                    options, args, std::cout);
  if (!vm) return kExitOk;
  const OutputFormat format = parse_output_format(format_name, {OutputFormat::text, OutputFormat::json});
  if (topology.given()) {
    const ClusterTopology cluster = load_offline_topology(topology, /*require_gpus=*/true);
    if (launcher_rank() == 0) print(cluster, cluster.differences(), {}, format);
    return kExitOk;
  }
  if (launched_by_mpi_launcher()) return discover_and_print(format);
  const ClusterTopology cluster = ClusterTopology::from_nodes({discover_this_node(1)});
  print(cluster, {}, {}, format);
  return kExitOk;
}

}  // namespace meshbench::topology
