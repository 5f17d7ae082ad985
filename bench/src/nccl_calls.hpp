#pragma once
// The decisions of the NCCL backend that do not need NCCL: which calls an op makes, which
// all-to-all the loaded library can do, which environment it refuses. Compiled in every build, so that they are unit-tested without NCCL;
// bench/src/nccl/ turns them into NCCL calls.
#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bench/op_spec.hpp"
#include "bench/src/device_wait.hpp"

namespace meshbench::bench {

// One NCCL call of an op, with offsets in elements into the group's send and receive buffers.
struct NcclCall {
  enum class Kind { all_reduce, all_gather, reduce_scatter, all_to_all, group_start, group_end, send, recv };
  Kind kind = Kind::all_reduce;
  std::size_t send_offset = 0, recv_offset = 0, count = 0;
  int peer = -1;  // send, recv: the group-local peer
  bool operator==(const NcclCall&) const = default;
};

// The calls one op of `layout` makes, in order. `native_all_to_all`: ncclAlltoAll; otherwise
// all_to_all is one grouped ncclSend/ncclRecv per peer, self included, as nccl-tests does.
std::vector<NcclCall> nccl_calls(const OpLayout& layout, bool native_all_to_all);

// ncclAlltoAll only where the library loaded at run time has it: NCCL 2.28 or later, and the
// symbol found. Headers of 2.28 with an older libnccl.so.2 first on the library path are common
// where several NCCL installs or a container meet.
inline constexpr int kFirstNcclWithAllToAll = 22800;  // NCCL_VERSION(2, 28, 0)
bool native_all_to_all(int runtime_version_code, bool symbol_found);

// NCCL's own model of an op (ncclGroupSimulateEnd fills ncclSimInfo_t.estimatedTime, in µs, with
// the time of the algorithm and protocol its tuner picks) from NCCL 2.22 on, where the loaded
// library has the symbol. Asked for the ring collectives only: NCCL models no send/recv, and the
// grouped point-to-point calls of an all-to-all are not one collective of its tuner.
inline constexpr int kFirstNcclWithSimulate = 22200;  // NCCL_VERSION(2, 22, 0)
bool can_simulate(int runtime_version_code, bool symbol_found);
bool simulated_op(const std::vector<NcclCall>& calls);
// The estimate as stored: positive and finite µs, else none (NCCL leaves NCCL_UNDEF_FLOAT, -1,
// where it found no algorithm).
std::optional<double> usable_estimate_us(float estimated_time);

// NCCL_COMM_BLOCKING=0 overrides the communicator's config and makes NCCL's calls return
// ncclInProgress before the work is enqueued: the events around an op would time nothing.
// The one-line refusal for such an environment, or nothing.
std::optional<std::string> nccl_environment_refusal(const char* comm_blocking);

// A communicator's state as ncclCommGetAsyncError gives it.
enum class NcclState { success, in_progress, error };

// Waits while a communicator is in progress (after an init or call that returned
// ncclInProgress): polls `state` through wait_until_done until it says anything else. Returns
// the last state: in_progress when `limit` passed first. `calls` supplies the clock and the
// sleeps (its `done` is replaced).
NcclState await_settled(const std::function<NcclState()>& state, std::chrono::duration<double> limit, WaitCalls calls = {});

}  // namespace meshbench::bench
