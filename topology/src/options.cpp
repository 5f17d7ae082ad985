// The topology options every subcommand shares, and the offline loader behind them.
#include "topology/options.hpp"

#include <cstdlib>
#include <filesystem>

#include "common/error.hpp"
#include "common/strings.hpp"
#include "topology/catalog.hpp"
#include "topology/loaders.hpp"

namespace meshbench::topology {

namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : nullptr;
}

}  // namespace

void add_topology_options(po::options_description& options, TopologyOptions& values) {
  // clang-format off
  options.add_options()
      ("topology", po::value<std::string>(&values.file)->default_value("", "none")->value_name("FILE"),
       "one node's topology: an NCCL topology XML (NCCL_TOPO_DUMP_FILE, AWS's files) or an hwloc XML "
       "(lstopo --of xml), told apart by content")
      ("node-type", po::value<std::string>(&values.node_type)->default_value("", "none")->value_name("NAME"),
       ("a node type from the built-in catalog (" + join(node_type_names(), ", ") +
        "); alone it describes a synthetic node, with --topology it completes the file (GPUs, NVLink, NIC speed)").c_str())
      ("nodes", po::value<int>(&values.nodes)->value_name("N")->notifier([](int n) {
         if (n < 1) throw InputError("--nodes must be at least 1 (got " + std::to_string(n) + ")");
    // clang-format on
  }),
                     "how many nodes of that description (default: 1 with --topology or --node-type; without any of the "
                     "three options the live cluster is discovered under mpirun/srun, or this node alone)");
}

ClusterTopology load_offline_topology(const TopologyOptions& options, bool require_gpus) {
  if (options.nodes < 0) throw InputError("--nodes must be at least 1 (got " + std::to_string(options.nodes) + ")");
  if (options.file.empty() && options.node_type.empty()) {
    throw InputError("--nodes needs a node description: add --topology FILE and/or --node-type NAME");
  }
  Machine machine;
  if (!options.file.empty()) {
    machine = load_topology_file(options.file);
    if (!options.node_type.empty()) apply_node_type(machine, find_node_type(options.node_type));
    // Nodes are named after what they are: the node type, else the file.
    machine.name = !machine.node_type.empty() ? machine.node_type : std::filesystem::path(options.file).stem().string();
  } else {
    machine = machine_from_node_type(find_node_type(options.node_type));
  }
  NodeTopology node;
  if (machine.count(PciKind::gpu) > 0) {
    node = build_gpu_node(machine);
  } else {
    if (require_gpus) {
      const std::vector<std::string> fits = node_types_matching(machine);
      throw InputError("'" + options.file + "' reports no GPUs; give its node type with --node-type " +
                       (fits.empty() ? "NAME (known: " + join(node_type_names(), ", ") + ")" : join(fits, " or ") + " (its layout fits)"));
    }
    // Without GPUs and without ranks, one CPU slot per NUMA node stands for the node.
    std::vector<int> numas;
    for (const auto& cpu : machine.cpus) numas.push_back(cpu.numa);
    machine.notes.emplace_back("no GPUs in the description: one CPU slot per NUMA node");
    node = build_cpu_node(machine, numas);
  }
  return ClusterTopology::replicate(std::move(node), options.nodes == 0 ? 1 : options.nodes);
}

bool launched_by_mpi_launcher() {
  if (env("OMPI_COMM_WORLD_SIZE") != nullptr || env("PMIX_RANK") != nullptr || (env("PMI_RANK") != nullptr && env("PMI_SIZE") != nullptr)) {
    return true;
  }
  // An srun step without an MPI plugin: every task would start MPI as a singleton of its own,
  // each believing it is the whole job.
  if (env("SLURM_STEP_ID") != nullptr) {
    const char* tasks = env("SLURM_STEP_NUM_TASKS");
    if (tasks != nullptr && std::atoi(tasks) > 1) {
      throw InputError("started by srun with " + std::string(tasks) +
                       " tasks but without an MPI plugin (no PMIX_RANK or PMI_RANK): launch with srun --mpi=pmix");
    }
  }
  return false;
}

int launcher_rank() {
  // mpirun inside an allocation leaves the launcher's SLURM_PROCID in every rank, so the
  // MPI launchers' own variables come first.
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) {
    if (const char* v = env(name)) return std::atoi(v);
  }
  if (env("SLURM_STEP_ID") != nullptr) {
    if (const char* v = env("SLURM_PROCID")) return std::atoi(v);
  }
  return 0;
}

}  // namespace meshbench::topology
