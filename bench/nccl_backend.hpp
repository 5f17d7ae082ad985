#pragma once
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/backend.hpp"
#include "topology/cluster.hpp"

namespace meshbench::bench {

// The NCCL backend: the run's ops through NCCL on GPU buffers, one GPU per rank. Declared in
// every build; without CUDA and NCCL (MESHBENCH_HAVE_NCCL unset) the functions below say so
// instead of linking against them, so callers need no #if.

// True when this build has the NCCL backend.
bool nccl_backend_built();

// CUDA devices this process sees; 0 without a driver or a device (never throws): on a machine
// without a GPU the CUDA runtime reports an error, which means "no GPU" here.
int local_gpu_count();

// PCI bus ids ("0000:19:00.0") of the CUDA devices this process sees, by ordinal: what CUDA
// shows after CUDA_VISIBLE_DEVICES ("device N" where CUDA cannot tell); empty without a GPU.
std::vector<std::string> visible_gpu_pcis();

// Collective over `world`: every rank sees at least one GPU (and the backend is built).
bool every_rank_has_gpu(MPI_Comm world);

// The GPU a rank's slot names (topology Slot::index and Slot::pci of the slot it sits on).
struct GpuSlot {
  int index = 0;
  std::string pci;  // "" when the topology does not know it (offline topology files)
};

// The GPU of `slot` (LiveCluster::slot_of_rank[world rank]) in `topology`. The PCI bus id is
// kept only for a live topology: an offline file's bus ids describe some other machine, so
// there the slot index alone decides.
GpuSlot gpu_slot(const topology::ClusterTopology& topology, int slot, bool live_topology);

struct NcclOptions {
  // The run's watchdog settings: the backend's own wait deadline lies beyond the watchdog's
  // limit plus its grace, so the watchdog names a hang first and the backend's deadline is the
  // backstop where no watchdog runs (see nccl_wait_limit_s).
  double watchdog_base_s = 60;
  double grace_s = 10;
};

// Collective over `world`. Chooses this rank's GPU from its slot (choose_device), checks across
// each node that no two ranks share a GPU and that there are enough GPUs, opens the device and
// records versions. On any rank's device error every rank throws InputError with the same
// one-line message (the lowest failing rank's), so the caller prints it once and exits 2.
// Without NCCL in the build it throws InputError. Groups it makes throw BackendError on NCCL
// or CUDA errors and on ops that outlive their deadline, after aborting the communicator.
std::unique_ptr<Backend> make_nccl_backend(MPI_Comm world, const GpuSlot& slot, const NcclOptions& options = {});

// How long the backend waits for `ops` ops of `bytes` before it aborts the communicator: the
// watchdog's limit (default_op_limit_s per op, its floor once per batch) plus its grace plus a
// margin.
double nccl_wait_limit_s(const NcclOptions& options, std::uint64_t bytes, int ops);

// Version codes as people write them: NCCL's 22809 -> "2.28.9" (and the pre-2.9 scheme 2708 ->
// "2.7.8"); CUDA's 13000 -> "13.0", 12040 -> "12.4".
std::string nccl_version_string(int code);
std::string cuda_version_string(int code);

}  // namespace meshbench::bench
