// What bench/nccl_backend.hpp promises in every build: version strings and wait limits, and,
// without CUDA and NCCL, the answers of a build that has no NCCL backend.
#include <algorithm>

#include "bench/nccl_backend.hpp"
#include "bench/watchdog.hpp"
#include "common/error.hpp"
#include "common/nccl_version.hpp"

namespace meshbench::bench {

namespace {
constexpr double kWaitMargin_s = 30;
}

double nccl_wait_limit_s(const NcclOptions& o, std::uint64_t bytes, int ops) {
  const double per_op = default_op_limit_s(o.watchdog_base_s, bytes) - o.watchdog_base_s;
  return o.watchdog_base_s + std::max(ops, 1) * per_op + o.grace_s + kWaitMargin_s;
}

GpuSlot gpu_slot(const topology::ClusterTopology& topology, int slot, bool live_topology) {
  const topology::Slot& s = topology.node(topology.node_of(slot)).slots.at(static_cast<std::size_t>(topology.local_index(slot)));
  GpuSlot g;
  g.index = s.index;
  if (live_topology && s.kind == topology::SlotKind::gpu) g.pci = s.pci;
  return g;
}

std::string nccl_version_string(int code) { return meshbench::nccl::version_string(meshbench::nccl::version_of_code(code)); }

std::string cuda_version_string(int code) { return std::to_string(code / 1000) + "." + std::to_string((code % 1000) / 10); }

#if !defined(MESHBENCH_HAVE_NCCL)

bool nccl_backend_built() { return false; }
int local_gpu_count() { return 0; }
std::vector<std::string> visible_gpu_pcis() { return {}; }

bool every_rank_has_gpu(MPI_Comm world) {
  int yes = 0;  // collective all the same, so that callers may rely on it in every build
  MPI_Allreduce(MPI_IN_PLACE, &yes, 1, MPI_INT, MPI_MIN, world);
  return false;
}

std::unique_ptr<Backend> make_nccl_backend(MPI_Comm /*world*/, const GpuSlot& /*slot*/, const NcclOptions& /*options*/) {
  throw InputError("this build has no NCCL backend (CUDA or NCCL was not found at configure time); use --backend mpi");
}

#endif

}  // namespace meshbench::bench
