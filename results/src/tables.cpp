#include "results/src/tables.hpp"

#include <charconv>

namespace meshbench::results::tables {

h5::Compound<MeasurementH5> measurement_type() {
  using R = MeasurementH5;
  h5::Compound<R> t;
  t.add("mapping", &R::mapping)
      .add("dim", &R::dim)
      .add("op", &R::op)
      .add("backend", &R::backend)
      .add("dtype", &R::dtype)
      .add("bytes", &R::bytes)
      .add("groups", &R::groups)
      .add("group_size", &R::group_size)
      .add("iters", &R::iters)
      .add("warmup", &R::warmup)
      .add("timing", &R::timing)
      .add("concurrency", &R::concurrency)
      .add("t_min_us", &R::t_min_us)
      .add("t_median_us", &R::t_median_us)
      .add("t_p90_us", &R::t_p90_us)
      .add("t_p99_us", &R::t_p99_us)
      .add("t_max_us", &R::t_max_us)
      .add("t_mean_us", &R::t_mean_us)
      .add("algbw_gbps", &R::algbw_gbps)
      .add("busbw_gbps", &R::busbw_gbps)
      .add("wrong", &R::wrong)
      .add("slowest_group", &R::slowest_group);
  return t;
}

h5::Compound<GroupTimingH5> group_timing_type() {
  using R = GroupTimingH5;
  auto t = point_compound<R>();
  t.add("group", &R::group).add("t_median_us", &R::t_median_us).add("t_p90_us", &R::t_p90_us).add("busbw_gbps", &R::busbw_gbps);
  return t;
}

h5::Compound<SampleH5> sample_type() {
  using R = SampleH5;
  auto t = point_compound<R>();
  t.add("iteration", &R::iteration).add("t_us", &R::t_us);
  return t;
}

h5::Compound<ModelledTimeH5> modelled_time_type() {
  using R = ModelledTimeH5;
  auto t = point_compound<R>();
  t.add("library", &R::library).add("modelled_us", &R::modelled_us);
  return t;
}

h5::Compound<RoundMedianH5> round_median_type() {
  using R = RoundMedianH5;
  auto t = point_compound<R>();
  t.add("round", &R::round).add("t_median_us", &R::t_median_us);
  return t;
}

h5::Compound<StateProbeH5> state_probe_type() {
  using R = StateProbeH5;
  auto t = point_compound<R>();
  t.add("round", &R::round)
      .add("attempt", &R::attempt)
      .add("core_to_core_ns", &R::core_to_core_ns)
      .add("ratio", &R::ratio)
      .add("kept", &R::kept);
  return t;
}

h5::Compound<FailureH5> failure_type() {
  using R = FailureH5;
  h5::Compound<R> t;
  t.add("at", &R::at).add("mapping", &R::mapping).add("dim", &R::dim).add("op", &R::op).add("bytes", &R::bytes).add("message", &R::message);
  return t;
}

h5::Compound<TransportH5> transport_type() {
  h5::Compound<TransportH5> t;
  t.add("mapping", &TransportH5::mapping)
      .add("dim", &TransportH5::dim)
      .add("transport", &TransportH5::transport)
      .add("ranks", &TransportH5::ranks);
  return t;
}

TransportH5 to_h5(const TransportUse& t) { return {t.mapping.c_str(), t.dim.c_str(), t.transport.c_str(), t.ranks}; }

TransportUse from_h5(const TransportH5& h) { return {str(h.mapping), str(h.dim), str(h.transport), h.ranks}; }

h5::Compound<IoH5> io_type() {
  using R = IoH5;
  h5::Compound<R> t;
  t.add("at", &R::at)
      .add("folder", &R::folder)
      .add("filesystem", &R::filesystem)
      .add("method", &R::method)
      .add("phase", &R::phase)
      .add("shard_bytes", &R::shard_bytes)
      .add("repeat", &R::repeat)
      .add("host", &R::host)
      .add("ranks", &R::ranks)
      .add("bytes", &R::bytes)
      .add("seconds", &R::seconds)
      .add("gbps", &R::gbps)
      .add("read_mode", &R::read_mode)
      .add("cached_fraction", &R::cached_fraction)
      .add("wrong", &R::wrong);
  return t;
}

IoH5 to_h5(const IoRow& r) {
  return {r.at.c_str(),  r.folder.c_str(), r.filesystem.c_str(), r.method.c_str(),  r.phase.c_str(),
          r.shard_bytes, r.repeat,         r.host.c_str(),       r.ranks,           r.bytes,
          r.seconds,     r.gbps,           r.read_mode.c_str(),  r.cached_fraction, r.wrong};
}

IoRow from_h5(const IoH5& h) {
  return {str(h.at), str(h.folder), str(h.filesystem), str(h.method), str(h.phase),     h.shard_bytes,     h.repeat, str(h.host),
          h.ranks,   h.bytes,       h.seconds,         h.gbps,        str(h.read_mode), h.cached_fraction, h.wrong};
}

h5::Compound<NameValueH5> name_value_type() {
  h5::Compound<NameValueH5> t;
  t.add("name", &NameValueH5::name).add("value", &NameValueH5::value);
  return t;
}

h5::Compound<MappingH5> mapping_type() {
  using R = MappingH5;
  h5::Compound<R> t;
  t.add("index", &R::index)
      .add("name", &R::name)
      .add("how", &R::how)
      .add("digest", &R::digest)
      .add("predicted_step_us", &R::predicted_step_us);
  return t;
}

MeasurementH5 to_h5(const MeasurementRow& r) {
  MeasurementH5 h;
  h.mapping = r.point.mapping.c_str();
  h.dim = r.point.dim.c_str();
  h.op = r.point.op.c_str();
  h.backend = r.backend.c_str();
  h.dtype = r.dtype.c_str();
  h.bytes = r.point.bytes;
  h.groups = r.groups;
  h.group_size = r.group_size;
  h.iters = r.iters;
  h.warmup = r.warmup;
  h.timing = r.point.timing.c_str();
  h.concurrency = r.point.concurrency.c_str();
  h.t_min_us = r.t_min_us;
  h.t_median_us = r.t_median_us;
  h.t_p90_us = r.t_p90_us;
  h.t_p99_us = r.t_p99_us;
  h.t_max_us = r.t_max_us;
  h.t_mean_us = r.t_mean_us;
  h.algbw_gbps = r.algbw_gbps;
  h.busbw_gbps = r.busbw_gbps;
  h.wrong = r.wrong;
  h.slowest_group = r.slowest_group;
  return h;
}

MeasurementRow from_h5(const MeasurementH5& h) {
  MeasurementRow r;
  r.point.mapping = str(h.mapping);
  r.point.dim = str(h.dim);
  r.point.op = str(h.op);
  r.backend = str(h.backend);
  r.dtype = str(h.dtype);
  r.point.bytes = h.bytes;
  r.groups = h.groups;
  r.group_size = h.group_size;
  r.iters = h.iters;
  r.warmup = h.warmup;
  r.point.timing = str(h.timing);
  r.point.concurrency = str(h.concurrency);
  r.t_min_us = h.t_min_us;
  r.t_median_us = h.t_median_us;
  r.t_p90_us = h.t_p90_us;
  r.t_p99_us = h.t_p99_us;
  r.t_max_us = h.t_max_us;
  r.t_mean_us = h.t_mean_us;
  r.algbw_gbps = h.algbw_gbps;
  r.busbw_gbps = h.busbw_gbps;
  r.wrong = h.wrong;
  r.slowest_group = h.slowest_group;
  return r;
}

GroupTimingH5 to_h5(const GroupTiming& g) { return {point_h5(g.point), g.group, g.t_median_us, g.t_p90_us, g.busbw_gbps}; }

GroupTiming from_h5(const GroupTimingH5& h) { return {point_of(h), h.group, h.t_median_us, h.t_p90_us, h.busbw_gbps}; }

SampleH5 to_h5(const Sample& s) { return {point_h5(s.point), s.iteration, s.t_us}; }

Sample from_h5(const SampleH5& h) { return {point_of(h), h.iteration, h.t_us}; }

RoundMedianH5 to_h5(const RoundMedian& r) { return {point_h5(r.point), r.round, r.t_median_us}; }

RoundMedian from_h5(const RoundMedianH5& h) { return {point_of(h), h.round, h.t_median_us}; }

StateProbeH5 to_h5(const StateProbe& s) { return {point_h5(s.point), s.round, s.attempt, s.core_to_core_ns, s.ratio, s.kept ? 1 : 0}; }

StateProbe from_h5(const StateProbeH5& h) { return {point_of(h), h.round, h.attempt, h.core_to_core_ns, h.ratio, h.kept != 0}; }

ModelledTimeH5 to_h5(const ModelledTime& m) { return {point_h5(m.point), m.library.c_str(), m.modelled_us}; }

ModelledTime from_h5(const ModelledTimeH5& h) { return {point_of(h), str(h.library), h.modelled_us}; }

h5::Compound<NicCounterH5> nic_counter_type() {
  using R = NicCounterH5;
  auto t = point_compound<R>();
  t.add("round", &R::round)
      .add("attempt", &R::attempt)
      .add("host", &R::host)
      .add("nic", &R::nic)
      .add("kind", &R::kind)
      .add("ops", &R::ops)
      .add_each(kNicCounterNames, &R::counters);
  return t;
}

NicCounterH5 to_h5(const NicCounterDelta& d) {
  return {point_h5(d.point), d.round, d.attempt, d.host.c_str(), d.nic.c_str(), d.kind.c_str(), d.ops, d.counters};
}

NicCounterDelta from_h5(const NicCounterH5& h) {
  return {point_of(h), h.round, h.attempt, str(h.host), str(h.nic), str(h.kind), h.ops, h.counters};
}

FailureH5 to_h5(const Failure& f) { return {f.at.c_str(), f.mapping.c_str(), f.dim.c_str(), f.op.c_str(), f.bytes, f.message.c_str()}; }

Failure from_h5(const FailureH5& h) { return {str(h.at), str(h.mapping), str(h.dim), str(h.op), h.bytes, str(h.message)}; }

std::uint64_t parse_digest_hex(const std::string& hex) {
  // What digest_hex writes; anything else is a damaged file (found by fuzzing: stoull threw
  // invalid_argument for a digest that was no number).
  std::uint64_t digest = 0;
  const auto [end, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), digest, 16);
  if (hex.empty() || hex.size() > 16 || ec != std::errc() || end != hex.data() + hex.size())
    throw h5::Error("a mapping's digest '" + hex.substr(0, 16) + "' is not 16 hex digits");
  return digest;
}

}  // namespace meshbench::results::tables
