#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "results/environment.hpp"
#include "results/gpu_records.hpp"
#include "results/point_key.hpp"

namespace meshbench::results {

// What the run was: written when the file is created and updated when it ends.
struct RunInfo {
  std::string meshbench_version;
  std::string command_line;
  std::string started_at;          // ISO-8601 UTC
  std::string finished_at;         // empty while running
  std::string status = "running";  // running | complete | failed
  std::string backend;             // mpi | nccl
  int world_size = 0;
  std::vector<std::string> hosts;  // per world rank
  int rounds = 1;                  // run --rounds: visits of every point, each round in a shuffled order
  std::uint64_t order_seed = 0;    // the seed those orders were drawn from (run --seed)
};

// Versions, the allow-listed environment and the doctor result, recorded with every run.
struct Provenance {
  std::vector<std::pair<std::string, std::string>> versions;  // e.g. {"nccl", "2.28.9"}
  Environment environment;
  std::string doctor_json;  // the doctor report (analysis/doctor.hpp), empty if not run
};

// One mapping as stored: placement, groups, what the plan predicted.
struct MappingRecord {
  std::string name;
  std::string how;
  std::uint64_t digest = 0;                                                   // mapping::structure_digest
  std::vector<int> slot_of_rank;                                              // logical rank -> slot
  std::vector<std::pair<std::string, std::vector<std::vector<int>>>> groups;  // dim -> logical rank groups
  std::vector<std::pair<std::string, double>> predicted_us;                   // dim -> predicted time; "step" for the total
  std::string layout = {};  // in a file of several layouts, the name of the layout it belongs to (NamedLayout::name); else ""
};

// The layout the mappings share, and the workload when one was given.
struct LayoutRecord {
  int world = 0, tp = 1, cp = 1, pp = 1, ep = 1, etp = 1, dp = 1, edp = 1;
  std::string order;
  std::string workload_json;  // empty without a workload
};

// One layout of a file of several layouts (/layouts/L<i>): its name ("ep4", mapping/plan_set.hpp),
// which its mappings name (MappingRecord::layout), and the explorer's estimate for it (JSON, kept
// as the plan file gave it; empty when none).
struct NamedLayout {
  std::string name;
  LayoutRecord layout;
  std::string estimate_json;
};

// One row of /measurements: a mapping × dimension × op × size × timing mode.
struct MeasurementRow {
  PointKey point;  // the layout left empty (point_key.hpp)
  std::string backend;
  std::string dtype;
  int groups = 0;  // groups that ran at once (1 when isolated)
  int group_size = 0;
  int iters = 0;  // timed iterations (batched: ops per batch × batches)
  int warmup = 0;
  double t_min_us = 0, t_median_us = 0, t_p90_us = 0, t_p99_us = 0, t_max_us = 0, t_mean_us = 0;
  double algbw_gbps = 0, busbw_gbps = 0;
  std::int64_t wrong = -1;  // wrong elements summed over ranks; -1 when not checked
  int slowest_group = -1;   // the group with the highest median
};

// Per-group medians of one point: the slowest group names the slow node or link.
struct GroupTiming {
  PointKey point;  // the layout left empty (point_key.hpp)
  int group = 0;   // index into the mapping's group list of that dimension
  double t_median_us = 0, t_p90_us = 0, busbw_gbps = 0;
};

// Optional raw samples: per iteration, the slowest rank's time.
struct Sample {
  PointKey point;  // the layout left empty (point_key.hpp)
  int iteration = 0;
  double t_us = 0;
};

// One point's median in one round of `run --rounds R` (round 0 first): the run's own estimate
// of how much a point's median moves between visits.
struct RoundMedian {
  PointKey point;  // the layout left empty (point_key.hpp)
  int round = 0;
  double t_median_us = 0;
};

// Two core-to-core readings are of different machine states when one is more than this many
// times the other: the two states seen on the test VM differ 4-6x, readings within one state
// 1.3-1.5x. The runner measures a visit again past it (bench/sensors/machine_state.hpp) and the
// judges compare runs only within it (analysis/compare/judge_constants.hpp): one figure for both.
inline constexpr double kMachineStateFactor = 2.0;

// One measurement of a point in one round, with the machine's state around it (bench's
// core-to-core probe): a visit measured while the state was worse than the run's best is
// measured again, and only the kept attempt counts. `core_to_core_ns` is the slowest probed
// node's round trip (0: no node could be probed), `ratio` that node's reading over its best.
struct StateProbe {
  PointKey point;  // the layout left empty (point_key.hpp)
  int round = 0;
  int attempt = 0;
  double core_to_core_ns = 0;
  double ratio = 1;
  bool kept = true;
};

// The NIC counters a results file keeps, by the names of its /nic_counters columns: EFA's own
// names where EFA has the counter, Ethernet's and InfiniBand's mapped onto them (bench's counter
// reader, bench/sensors/nic_counters.hpp, says from which file each comes).
enum class NicCounter : std::uint8_t {
  tx_bytes,
  rx_bytes,
  tx_packets,
  rx_packets,
  tx_dropped,
  rx_dropped,
  tx_errors,
  rx_errors,
  retrans_packets,
  retrans_bytes,
  retrans_timeouts,
  unresponsive_remote,
  impaired_remote,
  rdma_read_bytes,
  rdma_write_bytes,
};
inline constexpr std::array<const char*, 15> kNicCounterNames = {
    "tx_bytes",        "rx_bytes",        "tx_packets",      "rx_packets",    "tx_dropped",       "rx_dropped",
    "tx_errors",       "rx_errors",       "retrans_packets", "retrans_bytes", "retrans_timeouts", "unresponsive_remote",
    "impaired_remote", "rdma_read_bytes", "rdma_write_bytes"};
inline constexpr std::size_t kNicCounterCount = kNicCounterNames.size();
static_assert(static_cast<std::size_t>(NicCounter::rdma_write_bytes) + 1 == kNicCounterCount, "a name per NicCounter");
// Per counter: how much it grew; -1 where the NIC has no such counter or it went backwards (reset).
using NicCounterValues = std::array<std::int64_t, kNicCounterCount>;
constexpr std::size_t index_of(NicCounter c) { return static_cast<std::size_t>(c); }

// What one NIC of one host counted over one measured visit of a point (round, attempt as in
// StateProbe): read by the host's first rank just before the point's first op and just after
// its last. `ops` is how many ops every rank ran in between (warm-up, timed, check).
struct NicCounterDelta {
  PointKey point;  // the layout left empty (point_key.hpp)
  int round = 0;
  int attempt = 1;
  std::string host;
  std::string nic;   // an Ethernet interface ("eth0") or an RDMA device's port ("efa_0:1")
  std::string kind;  // ethernet | rdma
  std::int64_t ops = 0;
  NicCounterValues counters{};
  std::int64_t get(NicCounter c) const { return counters[index_of(c)]; }
};

// A point that did not complete (watchdog), recorded before the run ends.
struct Failure {
  std::string at;  // ISO-8601 UTC
  std::string mapping, dim, op;
  std::uint64_t bytes = 0;
  std::string message;
};

// Which transport NCCL used for a dimension's communicators (from NCCL_DEBUG=INFO logs captured
// by `run --nccl-debug`): how many ranks saw connections of that class.
struct TransportUse {
  std::string mapping, dim;
  std::string transport;  // P2P, P2P/MNNVL, SHM, NET, NET/GDRDMA, other
  int ranks = 0;
};

// The library's own model of a point's op (NCCL's ncclGroupSimulateEnd), beside the measured
// time: a second predictor for report.
struct ModelledTime {
  PointKey point;       // the layout left empty (point_key.hpp)
  std::string library;  // the backend whose model it is: nccl
  double modelled_us = 0;
};

// One row of /io (meshbench io): one phase (write or read back) of one method at one shard size
// in one repeat, for the whole launch (host "") or for one node.
struct IoRow {
  std::string at;                  // when the io launch started (ISO-8601 UTC): tells launches in one file apart
  std::string folder, filesystem;  // where the shards went; the filesystem type there (ext4, tmpfs, lustre, nfs, ...)
  std::string method;              // file_per_rank | shared_file
  std::string phase;               // write | read
  std::uint64_t shard_bytes = 0;   // the largest rank's shard
  int repeat = 0;
  std::string host;  // "" for the whole launch
  int ranks = 0;
  std::uint64_t bytes = 0;
  double seconds = 0;           // the slowest rank's, from the common start
  double gbps = 0;              // bytes / seconds, in 1e9 B/s
  std::string read_mode;        // reads: o_direct | fadvise_dontneed; "" for writes
  double cached_fraction = -1;  // reads: share of the bytes in the page cache as the read began; -1 unknown
  std::int64_t wrong = 0;       // reads: 8-byte words that did not read back as written
};

// What the point samplers (bench/sensors/point_sampler.hpp) read around every visit of one
// point; each sampler fills its own rows, each kind of row its own optional table.
struct PointReadings {
  std::vector<NicCounterDelta> nic_counters;  // /nic_counters
  std::vector<GpuHealthRow> gpu_health;       // /gpu_health
};

// Everything one completed point adds to the file, written together.
struct PointRecord {
  MeasurementRow row;
  std::vector<GroupTiming> groups;
  std::vector<Sample> samples;
  std::vector<RoundMedian> rounds;  // empty for a run of one round
  std::vector<StateProbe> states;   // every attempt of every round; empty when the state is not probed
  std::optional<ModelledTime> modelled;
  // What the samplers read around each of the point's visits (bench/sensors/point_sampler.hpp).
  PointReadings readings;
};

}  // namespace meshbench::results

namespace meshbench::results {
// The current time as ISO-8601 UTC with seconds ("2026-11-29T10:05:00Z"), for run records.
std::string utc_now_iso8601();
}  // namespace meshbench::results
