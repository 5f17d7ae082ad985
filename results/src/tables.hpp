#pragma once
// The compound row layouts of the results file's tables (docs/results-schema.md) and their
// conversion from and to the records. Shared by the writer and the reader.
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "results/point_key.hpp"
#include "results/records.hpp"
#include "results/src/h5.hpp"

namespace meshbench::results::tables {

// A variable-length string read back from a table: HDF5 gives a null pointer for an empty one.
inline std::string str(const char* p) { return p != nullptr ? p : ""; }

inline constexpr const char* kMeasurements = "measurements";
inline constexpr const char* kGroupTimings = "group_timings";
inline constexpr const char* kSamples = "samples";
inline constexpr const char* kFailures = "failures";
inline constexpr const char* kRoundMedians = "round_medians";
inline constexpr const char* kTransports = "nccl_transports";
inline constexpr const char* kModelledTimes = "modelled_times";
inline constexpr const char* kStateProbes = "state_probes";
inline constexpr const char* kNicCounters = "nic_counters";
inline constexpr const char* kIo = "io";

// The leading columns of the tables of one point's rows (all but /measurements and /failures,
// which order theirs otherwise): mapping, dim, op, timing, concurrency, bytes. A row type
// derives from it and its builder starts from point_compound, so the columns' names and order
// are written once.
struct PointH5 {
  const char* mapping = nullptr;
  const char* dim = nullptr;
  const char* op = nullptr;
  const char* timing = nullptr;
  const char* concurrency = nullptr;
  std::uint64_t bytes = 0;
};

template <typename Row>
h5::Compound<Row> point_compound() {
  static_assert(std::is_base_of_v<PointH5, Row>, "a row of one point derives from PointH5");
  h5::Compound<Row> t;
  t.add("mapping", &Row::mapping)
      .add("dim", &Row::dim)
      .add("op", &Row::op)
      .add("timing", &Row::timing)
      .add("concurrency", &Row::concurrency)
      .add("bytes", &Row::bytes);
  return t;
}

// A record's point as a row's leading columns (the strings stay the record's), and back (the
// layout is not a row's).
inline PointH5 point_h5(const PointKey& k) {
  return {k.mapping.c_str(), k.dim.c_str(), k.op.c_str(), k.timing.c_str(), k.concurrency.c_str(), k.bytes};
}
inline PointKey point_of(const PointH5& h) {
  return {"", str(h.mapping), str(h.dim), str(h.op), str(h.timing), str(h.concurrency), h.bytes};
}

struct MeasurementH5 {
  const char* mapping = nullptr;
  const char* dim = nullptr;
  const char* op = nullptr;
  const char* backend = nullptr;
  const char* dtype = nullptr;
  std::uint64_t bytes = 0;
  std::int32_t groups = 0;
  std::int32_t group_size = 0;
  std::int32_t iters = 0;
  std::int32_t warmup = 0;
  const char* timing = nullptr;
  const char* concurrency = nullptr;
  double t_min_us = 0, t_median_us = 0, t_p90_us = 0, t_p99_us = 0, t_max_us = 0, t_mean_us = 0;
  double algbw_gbps = 0, busbw_gbps = 0;
  std::int64_t wrong = 0;
  std::int32_t slowest_group = 0;
};

struct GroupTimingH5 : PointH5 {
  std::int32_t group = 0;
  double t_median_us = 0, t_p90_us = 0, busbw_gbps = 0;
};

struct SampleH5 : PointH5 {
  std::int32_t iteration = 0;
  double t_us = 0;
};

struct RoundMedianH5 : PointH5 {
  std::int32_t round = 0;
  double t_median_us = 0;
};

struct StateProbeH5 : PointH5 {
  std::int32_t round = 0;
  std::int32_t attempt = 0;
  double core_to_core_ns = 0;
  double ratio = 1;
  std::int32_t kept = 1;
};

struct NicCounterH5 : PointH5 {
  std::int32_t round = 0;
  std::int32_t attempt = 1;
  const char* host = nullptr;
  const char* nic = nullptr;
  const char* kind = nullptr;
  std::int64_t ops = 0;
  NicCounterValues counters{};
};

struct ModelledTimeH5 : PointH5 {
  const char* library = nullptr;
  double modelled_us = 0;
};

struct FailureH5 {
  const char* at = nullptr;
  const char* mapping = nullptr;
  const char* dim = nullptr;
  const char* op = nullptr;
  std::uint64_t bytes = 0;
  const char* message = nullptr;
};

struct TransportH5 {
  const char* mapping = nullptr;
  const char* dim = nullptr;
  const char* transport = nullptr;
  std::int32_t ranks = 0;
};

struct IoH5 {
  const char* at = nullptr;
  const char* folder = nullptr;
  const char* filesystem = nullptr;
  const char* method = nullptr;
  const char* phase = nullptr;
  std::uint64_t shard_bytes = 0;
  std::int32_t repeat = 0;
  const char* host = nullptr;
  std::int32_t ranks = 0;
  std::uint64_t bytes = 0;
  double seconds = 0, gbps = 0;
  const char* read_mode = nullptr;
  double cached_fraction = -1;
  std::int64_t wrong = 0;
};

struct NameValueH5 {
  const char* name = nullptr;
  const char* value = nullptr;
};

struct MappingH5 {
  std::int32_t index = 0;
  const char* name = nullptr;
  const char* how = nullptr;
  const char* digest = nullptr;  // 16 hex digits
  double predicted_step_us = 0;
};

h5::Compound<MeasurementH5> measurement_type();
h5::Compound<GroupTimingH5> group_timing_type();
h5::Compound<SampleH5> sample_type();
h5::Compound<FailureH5> failure_type();
h5::Compound<RoundMedianH5> round_median_type();
h5::Compound<StateProbeH5> state_probe_type();
h5::Compound<ModelledTimeH5> modelled_time_type();
h5::Compound<NicCounterH5> nic_counter_type();
h5::Compound<NameValueH5> name_value_type();
h5::Compound<IoH5> io_type();
h5::Compound<TransportH5> transport_type();
h5::Compound<MappingH5> mapping_type();

MeasurementH5 to_h5(const MeasurementRow& r);
GroupTimingH5 to_h5(const GroupTiming& g);
SampleH5 to_h5(const Sample& s);
FailureH5 to_h5(const Failure& f);
MeasurementRow from_h5(const MeasurementH5& r);
GroupTiming from_h5(const GroupTimingH5& g);
Sample from_h5(const SampleH5& s);
Failure from_h5(const FailureH5& f);
RoundMedianH5 to_h5(const RoundMedian& r);
RoundMedian from_h5(const RoundMedianH5& r);
StateProbeH5 to_h5(const StateProbe& s);
StateProbe from_h5(const StateProbeH5& h);
ModelledTimeH5 to_h5(const ModelledTime& m);
NicCounterH5 to_h5(const NicCounterDelta& d);
NicCounterDelta from_h5(const NicCounterH5& h);
ModelledTime from_h5(const ModelledTimeH5& m);
TransportH5 to_h5(const TransportUse& t);
TransportUse from_h5(const TransportH5& t);
IoH5 to_h5(const IoRow& r);
IoRow from_h5(const IoH5& h);

// What digest_hex (point_key.hpp) wrote.
std::uint64_t parse_digest_hex(const std::string& hex);

// Reads a whole table into records with `convert`, freeing HDF5's strings.
template <typename Row, typename Record, typename Convert>
std::vector<Record> read_table(hid_t parent, const char* name, const h5::Compound<Row>& type, Convert convert) {
  std::vector<Record> out;
  if (!h5::exists(parent, name)) return out;
  std::vector<Row> rows(h5::table_size(parent, name));
  h5::read_rows(parent, name, type.type(), rows.data(), rows.size());
  out.reserve(rows.size());
  for (const auto& r : rows) out.push_back(convert(r));
  h5::reclaim_rows(type.type(), rows.data(), rows.size());
  return out;
}

}  // namespace meshbench::results::tables
