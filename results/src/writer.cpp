#include "results/writer.hpp"

#include <sys/statvfs.h>
#include <unistd.h>

#include <filesystem>
#include <limits>
#include <system_error>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "results/reader.hpp"
#include "results/schema.hpp"
#include "results/src/gpu_tables.hpp"
#include "results/src/tables.hpp"

namespace meshbench::results {

namespace fs = std::filesystem;
using h5::Handle;

namespace {

// Rows per chunk of the growing tables.
constexpr hsize_t kMeasurementChunk = 256;
constexpr hsize_t kGroupTimingChunk = 1024;
constexpr hsize_t kSampleChunk = 4096;
// On disk a row's strings are 16-byte references (a measurement row: 212 bytes, a group row 136,
// a sample 100), into a heap that holds each string again with a 16-byte header.
constexpr std::uint64_t kMeasurementRowBytes = 224;
constexpr std::uint64_t kGroupTimingRowBytes = 144;
constexpr std::uint64_t kSampleRowBytes = 112;
constexpr std::uint64_t kHeapBytesPerRow = 7 * 48;
constexpr std::uint64_t kMetadataAndReserveBytes = 128 * 1024;

struct SlotH5 {
  std::int32_t index = 0;
  const char* kind = nullptr;
  const char* pci = nullptr;
  std::int32_t numa = 0;
  const char* model = nullptr;
};

struct NicH5 {
  const char* name = nullptr;
  const char* kind = nullptr;
  const char* pci = nullptr;
  std::int32_t numa = 0;
  double speed_gbps = 0;
};

Handle link_class_type() {
  Handle t(h5::check(H5Tenum_create(H5T_NATIVE_UINT8), "H5Tenum_create"));
  for (int i = 0; i < topology::kLinkClassCount; ++i) {
    const auto value = static_cast<std::uint8_t>(i);
    const std::string name(topology::to_string(static_cast<topology::LinkClass>(i)));
    h5::check_status(H5Tenum_insert(t, name.c_str(), &value), "H5Tenum_insert");
  }
  return t;
}

void write_table(hid_t parent, const char* name, hid_t type, const void* rows, std::size_t count, hsize_t chunk) {
  h5::create_table(parent, name, type, chunk);
  h5::append_rows(parent, name, type, rows, count);
}

void write_name_values(hid_t parent, const char* name, const std::vector<std::pair<std::string, std::string>>& values) {
  const auto type = tables::name_value_type();
  std::vector<tables::NameValueH5> rows;
  for (const auto& [k, v] : values) rows.push_back({k.c_str(), v.c_str()});
  write_table(parent, name, type.type(), rows.data(), rows.size(), 64);
}

void write_topology_layout(hid_t parent, const std::string& name, const topology::NodeTopology& node) {
  const Handle g = h5::create_group(parent, name);
  h5::write_attribute(g, "node_type", node.node_type);
  h5::write_attribute(g, "source", node.source);
  h5::write_attribute(g, "raw_xml", node.raw_xml);
  h5::write_attribute(g, "numa_nodes", static_cast<std::int64_t>(node.numa_nodes));

  h5::Compound<SlotH5> slot_type;
  slot_type.add("index", &SlotH5::index)
      .add("kind", &SlotH5::kind)
      .add("pci", &SlotH5::pci)
      .add("numa", &SlotH5::numa)
      .add("model", &SlotH5::model);
  std::vector<std::string> kinds;
  for (const auto& s : node.slots) kinds.emplace_back(topology::to_string(s.kind));
  std::vector<SlotH5> slots;
  for (std::size_t i = 0; i < node.slots.size(); ++i) {
    const auto& s = node.slots[i];
    slots.push_back({s.index, kinds[i].c_str(), s.pci.c_str(), s.numa, s.model.c_str()});
  }
  write_table(g, "slots", slot_type.type(), slots.data(), slots.size(), 64);

  h5::Compound<NicH5> nic_type;
  nic_type.add("name", &NicH5::name)
      .add("kind", &NicH5::kind)
      .add("pci", &NicH5::pci)
      .add("numa", &NicH5::numa)
      .add("speed_gbps", &NicH5::speed_gbps);
  std::vector<std::string> nic_kinds;
  for (const auto& n : node.nics) nic_kinds.emplace_back(topology::to_string(n.kind));
  std::vector<NicH5> nics;
  for (std::size_t i = 0; i < node.nics.size(); ++i) {
    const auto& n = node.nics[i];
    nics.push_back({n.name.c_str(), nic_kinds[i].c_str(), n.pci.c_str(), n.numa, n.speed_gbps});
  }
  write_table(g, "nics", nic_type.type(), nics.data(), nics.size(), 64);

  const auto s = static_cast<hsize_t>(node.slots.size());
  const hsize_t dims[2] = {s, s};
  const Handle type = link_class_type();
  const Handle space(h5::check(H5Screate_simple(2, dims, nullptr), "H5Screate_simple"));
  const Handle links(h5::check(H5Dcreate2(g, "link_class", type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "H5Dcreate link_class"));
  std::vector<std::uint8_t> codes;
  for (auto l : node.links) codes.push_back(static_cast<std::uint8_t>(l));
  if (!codes.empty()) h5::check_status(H5Dwrite(links, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, codes.data()), "H5Dwrite link_class");
  h5::write_doubles(g, "bandwidth_gbps", node.bandwidth_gbps, {s, s});
}

void write_topology(hid_t file, const RunHeader& header) {
  const Handle g = h5::create_group(file, "topology");
  h5::write_attribute(g, "json", header.topology_json);
  const auto* t = header.topology;
  if (t == nullptr) return;
  h5::write_attribute(g, "node_count", static_cast<std::int64_t>(t->node_count()));
  h5::write_attribute(g, "slot_count", static_cast<std::int64_t>(t->slot_count()));
  std::vector<std::string> hosts;
  std::vector<int> layout_of, first_slot, slot_count;
  for (int n = 0; n < t->node_count(); ++n) {
    hosts.push_back(t->hostname(n));
    layout_of.push_back(t->layout_of(n));
    first_slot.push_back(t->first_slot_of(n));
    slot_count.push_back(t->node(n).slot_count());
  }
  const auto nodes = static_cast<hsize_t>(hosts.size());
  const Handle ng = h5::create_group(g, "nodes");
  h5::write_strings(ng, "hostname", hosts);
  h5::write_ints(ng, "layout", layout_of, {nodes});
  h5::write_ints(ng, "first_slot", first_slot, {nodes});
  h5::write_ints(ng, "slot_count", slot_count, {nodes});
  const Handle lg = h5::create_group(g, "layouts");
  for (int i = 0; i < t->layout_count(); ++i) write_topology_layout(lg, "L" + std::to_string(i), t->layout(i));
}

void write_layout(hid_t parent, const std::string& group, const LayoutRecord& l) {
  const Handle g = h5::create_group(parent, group);
  const std::pair<const char*, int> sizes[] = {{"world", l.world}, {"tp", l.tp},   {"cp", l.cp}, {"pp", l.pp},
                                               {"ep", l.ep},       {"etp", l.etp}, {"dp", l.dp}, {"edp", l.edp}};
  for (const auto& [name, v] : sizes) h5::write_attribute(g, name, static_cast<std::int64_t>(v));
  h5::write_attribute(g, "order", l.order);
  h5::write_attribute(g, "workload_json", l.workload_json);
}

// /layout for a file of one layout; /layouts/L<i> for a file of several.
void write_layouts(hid_t file, const RunHeader& h) {
  if (h.layouts.empty()) {
    write_layout(file, "layout", h.layout);
    return;
  }
  const Handle g = h5::create_group(file, "layouts");
  for (std::size_t i = 0; i < h.layouts.size(); ++i) {
    const std::string name = "L" + std::to_string(i);
    write_layout(g, name, h.layouts[i].layout);
    const Handle lg = h5::open_group(g, name);
    h5::write_attribute(lg, "name", h.layouts[i].name);
    h5::write_attribute(lg, "estimate_json", h.layouts[i].estimate_json);
  }
}

void write_mappings(hid_t file, const std::vector<MappingRecord>& mappings) {
  const Handle g = h5::create_group(file, "mappings");
  const auto type = tables::mapping_type();
  std::vector<std::string> digests;
  for (const auto& m : mappings) digests.push_back(digest_hex(m.digest));
  std::vector<tables::MappingH5> rows;
  for (std::size_t i = 0; i < mappings.size(); ++i) {
    const auto& m = mappings[i];
    double step = 0;
    for (const auto& [k, v] : m.predicted_us) {
      if (k == "step") step = v;
    }
    rows.push_back({static_cast<std::int32_t>(i), m.name.c_str(), m.how.c_str(), digests[i].c_str(), step});
  }
  write_table(g, "table", type.type(), rows.data(), rows.size(), 64);
  for (std::size_t i = 0; i < mappings.size(); ++i) {
    const auto& m = mappings[i];
    const Handle mg = h5::create_group(g, "M" + std::to_string(i));
    h5::write_attribute(mg, "name", m.name);
    h5::write_attribute(mg, "how", m.how);
    h5::write_attribute(mg, "digest", digests[i]);
    if (!m.layout.empty()) h5::write_attribute(mg, "layout", m.layout);
    h5::write_ints(mg, "slot_of_rank", m.slot_of_rank, {static_cast<hsize_t>(m.slot_of_rank.size())});
    const Handle gg = h5::create_group(mg, "groups");
    for (const auto& [dim, groups] : m.groups) {
      std::vector<int> flat;
      for (const auto& grp : groups) flat.insert(flat.end(), grp.begin(), grp.end());
      const hsize_t rows_n = groups.size(), cols = groups.empty() ? 0 : groups.front().size();
      h5::write_ints(gg, dim, flat, {rows_n, cols});
    }
    const Handle pg = h5::create_group(mg, "predicted_us");
    for (const auto& [dim, us] : m.predicted_us) h5::write_attribute(pg, dim, us);
  }
}

void write_header(hid_t file, const RunHeader& h) {
  h5::write_attribute(file, "schema_version", static_cast<std::int64_t>(h.layouts.empty() ? kSchemaVersion : kSeveralLayoutsSchemaVersion));
  h5::write_attribute(file, "created_by", std::string("meshbench"));
  h5::write_attribute(file, "meshbench_version", h.run.meshbench_version);
  h5::write_attribute(file, "command_line", h.run.command_line);
  h5::write_attribute(file, "started_at", h.run.started_at);
  h5::write_attribute(file, "finished_at", h.run.finished_at);
  h5::write_attribute(file, "status", h.run.status);
  h5::write_attribute(file, "backend", h.run.backend);
  h5::write_attribute(file, "world_size", static_cast<std::int64_t>(h.run.world_size));
  h5::write_attribute(file, "rounds", static_cast<std::int64_t>(h.run.rounds));
  h5::write_attribute(file, "order_seed", static_cast<std::int64_t>(h.run.order_seed));
  h5::write_attribute(
      file, "size_convention",
      std::string("bytes of the per-rank buffer as nccl-tests prints it; algbw/busbw in GB/s (1e9 B/s) with nccl-tests' formulas"));
  const Handle run = h5::create_group(file, "run");
  h5::write_strings(run, "hosts", h.run.hosts);
  const Handle prov = h5::create_group(file, "provenance");
  write_name_values(prov, "versions", h.provenance.versions);
  write_name_values(prov, "environment", h.provenance.environment);
  h5::write_attribute(prov, "doctor_json", h.provenance.doctor_json);
  write_topology(file, h);
  write_layouts(file, h);
  write_mappings(file, h.mappings);
  h5::write_strings(file, "plan_json", {h.plan_json});
  h5::create_table(file, tables::kMeasurements, tables::measurement_type().type(), kMeasurementChunk);
  h5::create_table(file, tables::kGroupTimings, tables::group_timing_type().type(), kGroupTimingChunk);
  h5::create_table(file, tables::kSamples, tables::sample_type().type(), kSampleChunk);
  h5::create_table(file, tables::kFailures, tables::failure_type().type(), 16);
  h5::create_table(file, tables::kTransports, tables::transport_type().type(), 64);
}

// A reader that keeps the file open (a notebook's h5py.File, a tool polling it) must not stop
// the run: past the patience the writer writes without the lock, and goes on so rather than
// wait that long for every point. The file stays whole (readers write nothing); only what such
// a reader reads meanwhile may look half updated.
Handle open_rw(const std::string& path, std::chrono::milliseconds patience, bool& lock_ignored) {
  if (lock_ignored) return h5::open_ignoring_locks(path, H5F_ACC_RDWR);
  auto opened = h5::open_existing(path, H5F_ACC_RDWR, patience);
  if (opened.locked) {
    lock_ignored = true;
    return h5::open_ignoring_locks(path, H5F_ACC_RDWR);
  }
  h5::check(opened.file.get(), "open " + path + " for writing");
  return std::move(opened.file);
}

std::uint64_t free_bytes(const std::string& path) {
  const fs::path p(path);
  const std::string dir = p.has_parent_path() ? p.parent_path().string() : std::string(".");
  struct statvfs st {};
  if (::statvfs(dir.c_str(), &st) != 0) return std::numeric_limits<std::uint64_t>::max();  // cannot tell: let the write decide
  return static_cast<std::uint64_t>(st.f_bavail) * st.f_frsize;
}

// Appends `records` to a table that is created (1,024 rows a chunk) the first time it gets any.
template <typename Row, typename Record>
void append_optional_rows(const Handle& file, const char* table, const h5::Compound<Row>& type, const std::vector<Record>& records) {
  if (records.empty()) return;
  if (!h5::exists(file, table)) h5::create_table(file, table, type.type(), 1024);
  std::vector<Row> rows;
  rows.reserve(records.size());
  for (const auto& r : records) rows.push_back(tables::to_h5(r));
  h5::append_rows(file, table, type.type(), rows.data(), rows.size());
}

// One point's rows: samples, group timings and the optional tables first, the measurement row
// last (--resume takes a point as stored once its row is there).
void append_point(const Handle& file, const PointRecord& point) {
  std::vector<tables::SampleH5> samples;
  for (const auto& s : point.samples) samples.push_back(tables::to_h5(s));
  h5::append_rows(file, tables::kSamples, tables::sample_type().type(), samples.data(), samples.size());
  std::vector<tables::GroupTimingH5> groups;
  for (const auto& g : point.groups) groups.push_back(tables::to_h5(g));
  h5::append_rows(file, tables::kGroupTimings, tables::group_timing_type().type(), groups.data(), groups.size());
  // Tables only some runs have are created with the first point that has such rows: files
  // of one round, without a probe, or of a backend that models nothing stay as they were.
  append_optional_rows(file, tables::kRoundMedians, tables::round_median_type(), point.rounds);
  append_optional_rows(file, tables::kStateProbes, tables::state_probe_type(), point.states);
  if (point.modelled) append_optional_rows(file, tables::kModelledTimes, tables::modelled_time_type(), std::vector{*point.modelled});
  append_optional_rows(file, tables::kNicCounters, tables::nic_counter_type(), point.readings.nic_counters);
  append_optional_rows(file, tables::kGpuHealth, tables::gpu_health_type(), point.readings.gpu_health);
  // The measurement row last: --resume takes a point as stored once its row is there.
  const auto m = tables::to_h5(point.row);
  h5::append_rows(file, tables::kMeasurements, tables::measurement_type().type(), &m, 1);
}

std::string kib(std::uint64_t bytes) { return std::to_string((bytes + 1023) / 1024) + " KiB"; }

}  // namespace

std::uint64_t bytes_needed_to_store(const PointRecord& point, const StoredRows& stored) {
  const std::uint64_t groups = point.groups.size(), samples = point.samples.size();
  const auto new_chunks = [](std::uint64_t before, std::uint64_t added, hsize_t chunk) {
    return (before + added + chunk - 1) / chunk - (before + chunk - 1) / chunk;
  };
  std::uint64_t bytes = kMeasurementRowBytes + groups * kGroupTimingRowBytes + samples * kSampleRowBytes;
  bytes += (1 + groups + samples) * kHeapBytesPerRow;
  bytes += new_chunks(stored.measurements, 1, kMeasurementChunk) * kMeasurementChunk * kMeasurementRowBytes;
  bytes += new_chunks(stored.group_timings, groups, kGroupTimingChunk) * kGroupTimingChunk * kGroupTimingRowBytes;
  bytes += new_chunks(stored.samples, samples, kSampleChunk) * kSampleChunk * kSampleRowBytes;
  if (const std::uint64_t rounds = point.rounds.size(); rounds > 0) {
    // A round-median row is a sample row's size; counted as if it opened a chunk of 1,024.
    bytes += rounds * (kSampleRowBytes + kHeapBytesPerRow) + 1024 * kSampleRowBytes;
  }
  // A state-probe row is about two sample rows.
  if (const std::uint64_t states = point.states.size(); states > 0)
    bytes += states * 2 * (kSampleRowBytes + kHeapBytesPerRow) + 2048 * kSampleRowBytes;
  // A modelled-time row is a sample row's size too, counted the same way.
  if (point.modelled) bytes += kSampleRowBytes + kHeapBytesPerRow + 1024 * kSampleRowBytes;
  // A NIC-counter row holds eight strings and nineteen numbers: under three sample rows.
  if (const std::uint64_t nics = point.readings.nic_counters.size(); nics > 0)
    bytes += nics * 3 * (kSampleRowBytes + kHeapBytesPerRow) + 3072 * kSampleRowBytes;
  // A GPU-health row is about two measurement rows.
  if (const std::uint64_t gpus = point.readings.gpu_health.size(); gpus > 0)
    bytes += gpus * 2 * (kMeasurementRowBytes + kHeapBytesPerRow) + 1024 * 2 * kMeasurementRowBytes;
  return bytes + kMetadataAndReserveBytes;
}

void check_output_path(const std::string& path, bool force, bool resume) {
  if (path.empty()) throw InputError("no output file; give --out FILE.h5");
  const fs::path p(path);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError("output folder '" + dir.string() + "' does not exist; create it or choose another --out");
  if (::access(dir.c_str(), W_OK) != 0) throw InputError("output folder '" + dir.string() + "' is not writable; choose another --out");
  const bool present = fs::exists(p, ec);
  if (resume) {
    if (!present) throw InputError("--resume: '" + path + "' does not exist; start a new run with --out");
    if (::access(p.c_str(), W_OK) != 0) throw InputError("--resume: '" + path + "' is not writable");
    return;
  }
  if (present && !force)
    throw InputError("'" + path + "' exists; continue it with --resume, replace it with --force, or choose another --out");
}

ResultsWriter ResultsWriter::create(const std::string& path, const RunHeader& header, bool force) {
  check_output_path(path, force, false);
  const h5::QuietErrors quiet;
  // Built complete under a temporary name first: a failure here leaves no partial file behind.
  const std::string tmp = path + ".partial-" + std::to_string(::getpid());
  try {
    {
      const Handle file(h5::check(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), "create " + tmp));
      write_header(file, header);
    }
    fs::rename(tmp, path);
  } catch (...) {
    std::error_code ec;
    fs::remove(tmp, ec);
    throw;
  }
  return ResultsWriter(path);
}

void ResultsWriter::append(const PointRecord& point) {
  const h5::QuietErrors quiet;
  try {
    const Handle file = open_rw(path_, lock_patience_, lock_ignored_);
    // A write that meets a full filesystem can leave HDF5's metadata half updated; stopping
    // while there is still room keeps every stored point readable.
    const StoredRows stored{h5::table_size(file, tables::kMeasurements), h5::table_size(file, tables::kGroupTimings),
                            h5::table_size(file, tables::kSamples)};
    const std::uint64_t needed = bytes_needed_to_store(point, stored);
    if (const std::uint64_t available = free_bytes(path_); available < needed) {
      throw StorageError("the filesystem of '" + path_ + "' has " + kib(available) + " free and storing the next point needs up to " +
                         kib(needed));
    }
    append_point(file, point);
  } catch (const h5::Error& e) {
    throw StorageError(std::string("writing '") + path_ + "' failed: " + e.what());
  }
}

void ResultsWriter::record_failure(const Failure& failure) {
  const h5::QuietErrors quiet;
  const Handle file = open_rw(path_, lock_patience_, lock_ignored_);
  const auto f = tables::to_h5(failure);
  h5::append_rows(file, tables::kFailures, tables::failure_type().type(), &f, 1);
  h5::write_attribute(file, "status", std::string("failed"));
  h5::write_attribute(file, "finished_at", failure.at);
}

void ResultsWriter::record_transports(const std::vector<TransportUse>& uses) {
  const h5::QuietErrors quiet;
  const Handle file = open_rw(path_, lock_patience_, lock_ignored_);
  std::vector<tables::TransportH5> rows;
  for (const auto& u : uses) rows.push_back(tables::to_h5(u));
  h5::append_rows(file, tables::kTransports, tables::transport_type().type(), rows.data(), rows.size());
}

void ResultsWriter::record_host_copies(const std::vector<HostCopyRow>& rows) {
  const h5::QuietErrors quiet;
  const Handle file = open_rw(path_, lock_patience_, lock_ignored_);
  append_optional_rows(file, tables::kHostCopies, tables::host_copy_type(), rows);
}

void ResultsWriter::record_calibration(const std::string& calibration_json) {
  const h5::QuietErrors quiet;
  const Handle file = open_rw(path_, lock_patience_, lock_ignored_);
  h5::write_attribute(file, "calibration_json", calibration_json);
}

ResultsWriter ResultsWriter::append_to(const std::string& path) {
  // Reading it whole refuses anything but a meshbench results file of this schema version.
  (void)ResultsFile::open_in_mpi_job(path);
  if (::access(path.c_str(), W_OK) != 0) throw InputError("'" + path + "' is not writable; choose another --out");
  return ResultsWriter(path);
}

void ResultsWriter::record_io(const std::vector<IoRow>& rows) {
  const h5::QuietErrors quiet;
  const Handle file = open_rw(path_, lock_patience_, lock_ignored_);
  append_optional_rows(file, tables::kIo, tables::io_type(), rows);
}

void ResultsWriter::finish(const std::string& status, const std::string& finished_at) {
  const h5::QuietErrors quiet;
  const Handle file = open_rw(path_, lock_patience_, lock_ignored_);
  h5::write_attribute(file, "status", status);
  h5::write_attribute(file, "finished_at", finished_at);
}

void write_results_file(const std::string& path, const RunHeader& header, const std::vector<PointRecord>& points, bool force) {
  check_output_path(path, force, false);
  const h5::QuietErrors quiet;
  std::string image;
  try {
    // The core driver keeps the file in memory; nothing reaches the disk until it is whole.
    const Handle fapl(h5::check(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate"));
    h5::check_status(H5Pset_fapl_core(fapl, 1 << 20, 0), "H5Pset_fapl_core");
    {
      const Handle file(h5::check(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl), "create " + path + " in memory"));
      write_header(file, header);
      for (const auto& p : points) append_point(file, p);
      h5::check_status(H5Fflush(file, H5F_SCOPE_GLOBAL), "H5Fflush");
      const ssize_t size = H5Fget_file_image(file, nullptr, 0);
      if (size <= 0) throw h5::Error("H5Fget_file_image of " + path + " failed");
      image.resize(static_cast<std::size_t>(size));
      if (H5Fget_file_image(file, image.data(), image.size()) != size) throw h5::Error("H5Fget_file_image of " + path + " failed");
    }
  } catch (const h5::Error& e) {
    throw StorageError("building '" + path + "' failed: " + e.what());
  }
  try {
    AtomicWriteOptions options;
    options.replace = force;
    write_file_atomically(path, image, options);
  } catch (const AtomicWriteError& e) {
    if (e.step() == AtomicWriteError::Step::exists)
      throw InputError("'" + path + "' exists; replace it with --force, or choose another --out");
    throw StorageError("writing '" + path + "' failed: " + e.what());
  }
}

}  // namespace meshbench::results
