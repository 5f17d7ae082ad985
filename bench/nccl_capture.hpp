#pragma once
// `run --nccl-debug DIR`: NCCL's own log of every process, and from it the transport each
// dimension's communicators actually used (P2P, SHM, NET, NET/GDRDMA, ...), stored in the
// results file so the report can say it.
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analysis/logs/nccl_log.hpp"
#include "results/records.hpp"

namespace meshbench::bench {

// Points NCCL's debug output of this process at DIR/HOST.PID.log (creating DIR) with INFO level
// and the INIT, P2P and NET subsystems unless the user set NCCL_DEBUG_SUBSYS. Must run before
// the first NCCL call: NCCL reads these once. Returns this process's log path.
std::string start_nccl_capture(const std::string& dir);

// The transport classes each communicator of one process used, in the order the process made
// them (NCCL logs a communicator's Init START when it is made).
std::vector<std::set<std::string>> communicator_transports(const analysis::NcclLogSummary& summary);

// Rank 0: every process made the same communicators in the same order (the runner's order):
// `created[k]` is the (mapping, dimension) of the k-th. Counts, per (mapping, dimension) and
// transport, the ranks whose connections used it.
std::vector<results::TransportUse> transport_uses(const std::vector<std::pair<std::string, std::string>>& created,
                                                  const std::vector<std::vector<std::set<std::string>>>& per_rank);

// One process's list as text and back, for the gather to rank 0.
std::string encode_transports(const std::vector<std::set<std::string>>& comms);
std::vector<std::set<std::string>> decode_transports(const std::string& text);

}  // namespace meshbench::bench
