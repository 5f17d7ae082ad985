#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshbench::bench {

// Which CUDA device a rank opens: the GPU of the slot it sits on, never simply its local rank.
// Pure (no CUDA, no MPI), so every rule is unit-tested on machines without a GPU.

// What the rank knows about its slot's GPU and what CUDA shows this process.
struct DeviceRequest {
  int slot_index = 0;                   // topology Slot::index: the GPU's index on its node (PCI order)
  std::string slot_pci;                 // topology Slot::pci, "" when unknown (offline topology files)
  std::optional<std::string> visible;   // CUDA_VISIBLE_DEVICES, when set
  std::vector<std::string> device_pci;  // PCI bus id of each CUDA device this process sees, by ordinal
};

struct DeviceChoice {
  int ordinal = -1;   // the CUDA device to open
  std::string how;    // why that one, for logs: "PCI bus id 0000:19:00.0", "CUDA_VISIBLE_DEVICES entry 1", ...
  std::string error;  // one line when no device fits; then `ordinal` is -1
  bool ok() const { return error.empty(); }
};

// The rules, in order:
// 1. The slot's PCI bus id, when known, names the device outright: it holds whatever
//    CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER say. A known bus id that CUDA does not show is an
//    error (the launcher bound this rank to other GPUs than its slot's).
// 2. Otherwise the slot index is a GPU index of the node: with CUDA_VISIBLE_DEVICES set, the
//    device is that index's position in the list (CUDA renumbers the listed GPUs from 0); an
//    index the list does not hold, or a list of UUIDs that cannot be matched, is an error.
// 3. Without CUDA_VISIBLE_DEVICES, the device is the slot index itself, if CUDA has that many.
DeviceChoice choose_device(const DeviceRequest& request);

// "0000:19:00.0" from any spelling CUDA, nvidia-smi or hwloc use ("00000000:19:00.0",
// "0000:19:00", upper case); the input unchanged when it is not a PCI bus id.
std::string normalize_pci(std::string_view bus_id);

// CUDA_VISIBLE_DEVICES split at commas, blanks trimmed. CUDA stops at the first invalid entry;
// entries are returned as written and the caller decides what it can match.
std::vector<std::string> split_visible_devices(std::string_view value);

// One rank's outcome on its node, for the node-wide check.
struct RankDevice {
  int world_rank = 0;
  std::vector<std::string> visible_pci;  // every GPU this rank can see
  std::string chosen_pci;                // the one it chose; empty when it could not choose
  std::string error;                     // its own choose_device error, if any
};

// Checks the choices of all ranks of one node: "" when every rank has a GPU of its own, else
// one line. More ranks than the GPUs the node's ranks can see between them comes first (it is
// the cause of the other errors; a node without any GPU is left to the ranks' own "no CUDA
// device" errors), then a rank's own error, then two ranks on one GPU (NCCL refuses two ranks
// of a communicator on one device, and shared GPUs would skew every number).
std::string check_node_devices(const std::string& host, const std::vector<RankDevice>& ranks);

}  // namespace meshbench::bench
