// The live cluster under MPI: nodes found by host (common/mpi/host_comm.hpp), one hwloc
// discovery per node, every rank placed on a slot, and rank 0's assembly broadcast to all.
#include <hwloc.h>

#include <map>
#include <string>

#include "common/error.hpp"
#include "common/mpi/host_comm.hpp"
#include "common/mpi/strings.hpp"
#include "topology/catalog.hpp"
#include "topology/json.hpp"
#include "topology/live_cluster.hpp"
#include "topology/loaders.hpp"
#include "topology/options.hpp"
#include "topology/src/hwloc_reader.hpp"

namespace meshbench::topology {

namespace {

// EC2 and many vendors put the instance type in the DMI product name; when it names a
// catalog entry, the entry supplies what hwloc cannot see (NVLinks without NVML, EFA speed).
void complete_from_product_name(Machine& m) {
  if (m.product.empty()) return;
  for (const auto& type : node_types()) {
    if (type.name != m.product) continue;
    Machine completed = m;
    try {
      apply_node_type(completed, type);
      m = std::move(completed);
    } catch (const InputError& e) {
      m.notes.push_back("the DMI product name says " + type.name + " but the node does not match it: " + e.what());
    }
  }
}

// The NUMA node this process is bound to; -1 when its binding spans several (or is unknown).
int bound_numa() {
  hwloc_topology_t t = nullptr;
  if (hwloc_topology_init(&t) != 0) return -1;
  for (const char* name : kDisabledHwlocComponents) hwloc_topology_set_components(t, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, name);
  int numa = -1;
  if (hwloc_topology_load(t) == 0) {
    const int count = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    const bool bound = hwloc_get_cpubind(t, set, HWLOC_CPUBIND_PROCESS) == 0;
    for (int i = 0; i < count; ++i) {
      hwloc_obj_t node = hwloc_get_obj_by_type(t, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
      if (count == 1 || (bound && hwloc_bitmap_isincluded(set, node->cpuset) != 0)) {
        numa = static_cast<int>(node->os_index);
        break;
      }
    }
    hwloc_bitmap_free(set);
  }
  hwloc_topology_destroy(t);
  return numa;
}

NodeTopology describe_node(Machine m, const std::vector<int>& rank_numas) {
  complete_from_product_name(m);
  if (m.count(PciKind::gpu) > 0) return build_gpu_node(m);
  return build_cpu_node(m, rank_numas);
}

}  // namespace

NodeTopology discover_this_node(int cpu_slots) {
  Machine m = discover_local_machine();
  const int numa = m.cpus.size() == 1 ? m.cpus.front().numa : -1;
  return describe_node(std::move(m), std::vector<int>(static_cast<std::size_t>(std::max(1, cpu_slots)), numa));
}

LiveCluster discover_cluster(MPI_Comm comm) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Comm node_comm = mpi::split_by_host(comm);
  int local = 0, local_size = 0;
  MPI_Comm_rank(node_comm, &local);
  MPI_Comm_size(node_comm, &local_size);

  int numa = bound_numa();
  std::vector<int> numas(static_cast<std::size_t>(local_size));
  MPI_Gather(&numa, 1, MPI_INT, numas.data(), 1, MPI_INT, 0, node_comm);

  MPI_Comm leaders = MPI_COMM_NULL;
  MPI_Comm_split(comm, local == 0 ? 0 : MPI_UNDEFINED, rank, &leaders);

  // Each node's first rank describes the node and places its ranks: GPU slots in node-local
  // rank order, or one CPU slot per rank.
  int node_index = 0;
  NodeTopology node;
  std::vector<int> slot_of_local(static_cast<std::size_t>(local_size));
  std::string message;
  if (local == 0) {
    MPI_Comm_rank(leaders, &node_index);
    node = describe_node(discover_local_machine(), numas);
    nlohmann::json warnings = nlohmann::json::array();
    const int slots = node.slot_count();
    for (int r = 0; r < local_size; ++r) slot_of_local[static_cast<std::size_t>(r)] = slots > 0 ? r % slots : 0;
    if (local_size > slots) {
      warnings.push_back("node " + node.hostname + ": " + std::to_string(local_size) + " ranks share " + std::to_string(slots) +
                         " GPU slots (local rank r uses slot r mod " + std::to_string(slots) + ")");
    }
    message = nlohmann::json{{"node", to_json(node, false)}, {"warnings", warnings}}.dump();
  }
  MPI_Bcast(&node_index, 1, MPI_INT, 0, node_comm);
  int local_slot = 0;
  MPI_Scatter(slot_of_local.data(), 1, MPI_INT, &local_slot, 1, MPI_INT, 0, node_comm);
  int placement[2] = {node_index, local_slot};
  std::vector<int> placements(static_cast<std::size_t>(rank == 0 ? 2 * size : 0));
  MPI_Gather(placement, 2, MPI_INT, placements.data(), 2, MPI_INT, 0, comm);

  std::vector<std::string> messages;
  if (leaders != MPI_COMM_NULL) messages = mpi::gather_strings(message, leaders);

  LiveCluster live;
  std::string reply;
  if (rank == 0) {
    std::vector<NodeTopology> nodes;
    std::map<std::string, int> hosts;
    for (std::size_t i = 0; i < messages.size(); ++i) {
      const nlohmann::json m = nlohmann::json::parse(messages[i]);
      nodes.push_back(i == 0 ? node : node_from_json(m.at("node")));  // rank 0 keeps its raw XML
      for (const auto& w : m.at("warnings")) live.warnings.push_back(w.get<std::string>());
      if (++hosts[nodes.back().hostname] == 2) {
        live.warnings.push_back("two nodes report the hostname " + nodes.back().hostname +
                                " (their boot ids differ: two machines, so they are kept apart)");
      }
    }
    live.topology = ClusterTopology::from_nodes(std::move(nodes));
    for (const auto& d : live.topology.differences()) live.warnings.push_back(d);
    for (int r = 0; r < size; ++r) {
      live.slot_of_rank.push_back(live.topology.first_slot_of(placements[static_cast<std::size_t>(2 * r)]) +
                                  placements[static_cast<std::size_t>(2 * r + 1)]);
    }
    JsonOptions compact;
    compact.node_details = false;
    reply = nlohmann::json{{"topology", to_json(live.topology, compact)}, {"slot_of_rank", live.slot_of_rank}, {"warnings", live.warnings}}
                .dump();
  }
  mpi::broadcast_string(reply, comm);
  if (rank != 0) {
    const nlohmann::json j = nlohmann::json::parse(reply);
    live.topology = cluster_from_json(j.at("topology"));
    live.slot_of_rank = j.at("slot_of_rank").get<std::vector<int>>();
    live.warnings = j.at("warnings").get<std::vector<std::string>>();
  }
  if (leaders != MPI_COMM_NULL) MPI_Comm_free(&leaders);
  MPI_Comm_free(&node_comm);
  return live;
}

}  // namespace meshbench::topology
