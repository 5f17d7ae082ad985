#include "bench/src/nccl_calls.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace meshbench::bench {

namespace {

using Kind = NcclCall::Kind;

NcclCall collective(Kind kind, std::size_t count) { return {kind, 0, 0, count, -1}; }
NcclCall send(std::size_t at, std::size_t count, int peer) { return {Kind::send, at, 0, count, peer}; }
NcclCall recv(std::size_t at, std::size_t count, int peer) { return {Kind::recv, 0, at, count, peer}; }

}  // namespace

std::vector<NcclCall> nccl_calls(const OpLayout& l, bool native_all_to_all) {
  std::vector<NcclCall> calls;
  const std::size_t count = l.count;
  switch (l.op) {
    case Op::all_reduce: calls.push_back(collective(Kind::all_reduce, count)); break;
    case Op::all_gather: calls.push_back(collective(Kind::all_gather, count)); break;
    case Op::reduce_scatter: calls.push_back(collective(Kind::reduce_scatter, count)); break;
    case Op::all_to_all:
      if (native_all_to_all) {
        calls.push_back(collective(Kind::all_to_all, count));
        break;
      }
      calls.push_back({Kind::group_start});
      for (int peer = 0; peer < l.n; ++peer) {
        const std::size_t at = static_cast<std::size_t>(peer) * count;
        calls.push_back(send(at, count, peer));
        calls.push_back(recv(at, count, peer));
      }
      calls.push_back({Kind::group_end});
      break;
    case Op::all_to_allv:
      // NCCL has no all-to-allv: per-peer sends and receives in one group, as nccl-tests does.
      // A zero count is skipped on both sides alike (the matrix says so to sender and receiver).
      calls.push_back({Kind::group_start});
      for (int peer = 0; peer < l.n; ++peer) {
        const auto p = static_cast<std::size_t>(peer);
        if (l.send_counts[p] > 0) calls.push_back(send(l.send_displs[p], l.send_counts[p], peer));
        if (l.recv_counts[p] > 0) calls.push_back(recv(l.recv_displs[p], l.recv_counts[p], peer));
      }
      calls.push_back({Kind::group_end});
      break;
    case Op::send_recv:
      // Both directions at once: every stage exchanges with its previous and next stage.
      calls.push_back({Kind::group_start});
      for (std::size_t p = 0; p < l.peers.size(); ++p) {
        calls.push_back(send(0, count, l.peers[p]));
        calls.push_back(recv(p * count, count, l.peers[p]));
      }
      calls.push_back({Kind::group_end});
      break;
  }
  return calls;
}

NcclState await_settled(const std::function<NcclState()>& state, std::chrono::duration<double> limit, WaitCalls calls) {
  NcclState last = NcclState::in_progress;
  calls.done = [&] {
    last = state();
    return last != NcclState::in_progress;
  };
  wait_until_done(calls, limit);
  return last;
}

bool native_all_to_all(int runtime_version_code, bool symbol_found) {
  return symbol_found && runtime_version_code >= kFirstNcclWithAllToAll;
}

bool can_simulate(int runtime_version_code, bool symbol_found) { return symbol_found && runtime_version_code >= kFirstNcclWithSimulate; }

bool simulated_op(const std::vector<NcclCall>& calls) {
  return !calls.empty() && std::all_of(calls.begin(), calls.end(), [](const NcclCall& c) {
    return c.kind == NcclCall::Kind::all_reduce || c.kind == NcclCall::Kind::all_gather || c.kind == NcclCall::Kind::reduce_scatter;
  });
}

std::optional<double> usable_estimate_us(float estimated_time) {
  const double t = estimated_time;
  if (!std::isfinite(t) || t <= 0) return std::nullopt;
  return t;
}

std::optional<std::string> nccl_environment_refusal(const char* comm_blocking) {
  if (comm_blocking == nullptr || *comm_blocking == '\0' || std::atoi(comm_blocking) != 0) return std::nullopt;
  return "NCCL_COMM_BLOCKING=" + std::string(comm_blocking) +
         " makes NCCL return before an op is enqueued, so its timing would measure nothing; unset NCCL_COMM_BLOCKING (or set it to 1)";
}

}  // namespace meshbench::bench
