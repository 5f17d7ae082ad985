#include "results/reader.hpp"

#include <algorithm>
#include <filesystem>

#include "common/crash_guard.hpp"
#include "common/error.hpp"
#include "common/strings.hpp"
#include "results/schema.hpp"
#include "results/src/gpu_tables.hpp"
#include "results/src/tables.hpp"

namespace meshbench::results {

using h5::Handle;

namespace {

// What the reading child may always add to its address space, whatever the file's size.
constexpr std::size_t kReadingMemoryFloor = std::size_t{1} << 30;

std::vector<std::pair<std::string, std::string>> read_name_values(hid_t parent, const char* name) {
  return tables::read_table<tables::NameValueH5, std::pair<std::string, std::string>>(
      parent, name, tables::name_value_type(), [](const tables::NameValueH5& r) {
        return std::pair<std::string, std::string>(r.name != nullptr ? r.name : "", r.value != nullptr ? r.value : "");
      });
}

MappingRecord read_mapping(hid_t mappings, int index) {
  const Handle g = h5::open_group(mappings, "M" + std::to_string(index));
  MappingRecord m;
  m.name = h5::read_string_attribute(g, "name");
  m.how = h5::read_string_attribute(g, "how");
  m.digest = tables::parse_digest_hex(h5::read_string_attribute(g, "digest"));
  if (h5::has_attribute(g, "layout")) m.layout = h5::read_string_attribute(g, "layout");
  m.slot_of_rank = h5::read_ints(g, "slot_of_rank");
  const Handle gg = h5::open_group(g, "groups");
  H5G_info_t info{};
  h5::check_status(H5Gget_info(gg, &info), "H5Gget_info groups");
  for (hsize_t i = 0; i < info.nlinks; ++i) {
    char name[64] = {};
    H5Lget_name_by_idx(gg, ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, i, name, sizeof name, H5P_DEFAULT);
    if (name[0] == '\0') H5Lget_name_by_idx(gg, ".", H5_INDEX_NAME, H5_ITER_INC, i, name, sizeof name, H5P_DEFAULT);
    std::vector<hsize_t> dims;
    const auto flat = h5::read_ints(gg, name, &dims);
    std::vector<std::vector<int>> groups;
    const std::size_t cols = dims.size() == 2 ? dims[1] : 0;
    for (std::size_t r = 0; cols > 0 && r < dims[0]; ++r)
      groups.emplace_back(flat.begin() + static_cast<long>(r * cols), flat.begin() + static_cast<long>((r + 1) * cols));
    m.groups.emplace_back(name, std::move(groups));
  }
  const Handle pg = h5::open_group(g, "predicted_us");
  H5O_info_t oinfo{};
  h5::check_status(H5Oget_info(pg, &oinfo), "H5Oget_info predicted_us");
  for (hsize_t i = 0; i < oinfo.num_attrs; ++i) {
    char name[64] = {};
    H5Aget_name_by_idx(pg, ".", H5_INDEX_NAME, H5_ITER_INC, i, name, sizeof name, H5P_DEFAULT);
    m.predicted_us.emplace_back(name, h5::read_double_attribute(pg, name));
  }
  return m;
}

LayoutRecord read_layout(hid_t parent, const std::string& group) {
  const Handle g = h5::open_group(parent, group);
  LayoutRecord l;
  const std::pair<const char*, int*> sizes[] = {{"world", &l.world}, {"tp", &l.tp},   {"cp", &l.cp}, {"pp", &l.pp},
                                                {"ep", &l.ep},       {"etp", &l.etp}, {"dp", &l.dp}, {"edp", &l.edp}};
  for (const auto& [name, field] : sizes) *field = static_cast<int>(h5::read_int_attribute(g, name));
  l.order = h5::read_string_attribute(g, "order");
  l.workload_json = h5::read_string_attribute(g, "workload_json");
  return l;
}

NamedLayout read_named_layout(hid_t layouts, const std::string& group) {
  const Handle g = h5::open_group(layouts, group);
  return {h5::read_string_attribute(g, "name"), read_layout(layouts, group), h5::read_string_attribute(g, "estimate_json")};
}

}  // namespace

ResultsFile ResultsFile::open(const std::string& path, Reading reading) {
  // HDF5 1.10 trusts the lengths a damaged file gives (a global heap object's size went straight
  // into memcpy, found by fuzzing), so the file is read in a child process first; what the child
  // survives, this process does too. A refusal (InputError) in the child is passed on as it is,
  // without reading the file here.
  // HDF5 also loops forever on some damaged files (a global heap, found by fuzzing): the child
  // gets 2 s of CPU time and 1 s more per MB (a damaged seed of 25 KB is read in about 0.05 s
  // under the sanitizers), then counts as crashed. And it sizes a conversion buffer from a
  // variable-length value's damaged length (1.8 GB for a file of 25 KB, found by fuzzing): the
  // child may add 1 GiB and 16 times the file's size to its address space, far above what
  // reading any whole file takes (its tables are stored uncompressed), so this process never
  // allocates what the child could not.
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  const std::uintmax_t known = ec ? 0 : size;
  ChildLimits limits;
  limits.cpu_seconds = 2 + static_cast<int>(std::min<std::uintmax_t>(known / 1'000'000, 86'400));
  limits.memory_bytes = kReadingMemoryFloor + static_cast<std::size_t>(std::min<std::uintmax_t>(known, std::uintmax_t{1} << 40)) * 16;
  const ChildOutcome child = run_in_child([&path, reading] { (void)read(path, reading); }, limits);
  switch (child.end) {
    case ChildOutcome::End::returned: return read(path, reading);
    case ChildOutcome::End::refused: throw InputError(child.message);
    case ChildOutcome::End::threw:
    case ChildOutcome::End::died: break;
  }
  throw InputError("'" + path + "' is damaged: HDF5 crashed, looped or needed more than " + std::to_string(limits.memory_bytes >> 20) +
                   " MiB reading it; rerun, or continue it with 'meshbench run --resume' on a copy");
}

ResultsFile ResultsFile::open_in_mpi_job(const std::string& path) { return read(path); }

ResultsFile ResultsFile::read(const std::string& path, Reading reading) {
  if (!std::filesystem::exists(path))
    throw InputError("'" + path + "' does not exist; give the path of a results file written by 'meshbench run'");
  const h5::QuietErrors quiet;
  if (H5Fis_hdf5(path.c_str()) <= 0) throw InputError("'" + path + "' is not an HDF5 file; give a results file written by 'meshbench run'");
  const auto opened = h5::open_existing(path, H5F_ACC_RDONLY, kReaderLockPatience);
  if (opened.locked) {
    throw InputError(
        "'" + path + "' is held open for writing by another process for over " + std::to_string(kReaderLockPatience.count()) +
        " ms (a meshbench run holds it only for the moment it stores a point); close the program that holds it, or read a copy");
  }
  const Handle& file = opened.file;
  if (file.get() < 0) throw InputError("'" + path + "' cannot be opened as HDF5 (damaged); check the file");
  if (!h5::has_attribute(file, "schema_version") || !h5::has_attribute(file, "created_by") ||
      h5::read_string_attribute(file, "created_by") != "meshbench") {
    throw InputError(
        "'" + path +
        "' is an HDF5 file but not a meshbench results file (no meshbench schema_version); give a file written by 'meshbench run'");
  }
  ResultsFile r;
  r.path_ = path;
  r.schema_version_ = static_cast<int>(h5::read_int_attribute(file, "schema_version"));
  // Version 2 is version 1 with /layouts in place of /layout (schema.hpp); one without is not ours.
  const bool several_layouts = r.schema_version_ == kSeveralLayoutsSchemaVersion && h5::exists(file, "layouts");
  if (r.schema_version_ != kSchemaVersion && !several_layouts) {
    throw InputError(
        "'" + path + "' has results schema version " + std::to_string(r.schema_version_) + " but this meshbench reads versions " +
        std::to_string(kSchemaVersion) + " and " + std::to_string(kSeveralLayoutsSchemaVersion) +
        " (several layouts); read it with the meshbench release that wrote it (" +
        (h5::has_attribute(file, "meshbench_version") ? h5::read_string_attribute(file, "meshbench_version") : "unknown") + ")");
  }
  try {
    r.run_.meshbench_version = h5::read_string_attribute(file, "meshbench_version");
    r.run_.command_line = h5::read_string_attribute(file, "command_line");
    r.run_.started_at = h5::read_string_attribute(file, "started_at");
    r.run_.finished_at = h5::read_string_attribute(file, "finished_at");
    r.run_.status = h5::read_string_attribute(file, "status");
    r.run_.backend = h5::read_string_attribute(file, "backend");
    r.run_.world_size = static_cast<int>(h5::read_int_attribute(file, "world_size"));
    // Files written before rounds existed measured every point once.
    if (h5::has_attribute(file, "rounds")) r.run_.rounds = static_cast<int>(h5::read_int_attribute(file, "rounds"));
    if (h5::has_attribute(file, "order_seed")) r.run_.order_seed = static_cast<std::uint64_t>(h5::read_int_attribute(file, "order_seed"));
    // Only files that a calibration was fitted from or planned with have one.
    if (h5::has_attribute(file, "calibration_json")) r.calibration_json_ = h5::read_string_attribute(file, "calibration_json");
    const Handle run = h5::open_group(file, "run");
    r.run_.hosts = h5::read_strings(run, "hosts");

    const Handle prov = h5::open_group(file, "provenance");
    r.provenance_.versions = read_name_values(prov, "versions");
    r.provenance_.environment = read_name_values(prov, "environment");
    r.provenance_.doctor_json = h5::read_string_attribute(prov, "doctor_json");

    const Handle topo = h5::open_group(file, "topology");
    r.topology_json_ = h5::read_string_attribute(topo, "json");
    if (h5::exists(topo, "nodes")) {
      const Handle nodes = h5::open_group(topo, "nodes");
      const auto hosts = h5::read_strings(nodes, "hostname");
      const auto first = h5::read_ints(nodes, "first_slot");
      const auto count = h5::read_ints(nodes, "slot_count");
      if (first.size() != hosts.size() || count.size() != hosts.size()) throw h5::Error("/topology/nodes columns of different lengths");
      for (std::size_t i = 0; i < hosts.size(); ++i) r.nodes_.push_back({hosts[i], first[i], count[i]});
    }

    if (several_layouts) {
      const Handle layouts = h5::open_group(file, "layouts");
      for (int i = 0; h5::exists(layouts, "L" + std::to_string(i)); ++i) {
        r.layouts_.push_back(read_named_layout(layouts, "L" + std::to_string(i)));
      }
      if (r.layouts_.empty()) throw h5::Error("/layouts holds no layout");
      r.layout_ = r.layouts_.front().layout;
    } else {
      r.layout_ = read_layout(file, "layout");
      r.layouts_ = {{"", r.layout_, ""}};
    }
    r.layout_key_ = results::layout_key(r.layout_);

    if (h5::exists(file, "plan_json")) {
      const auto plan = h5::read_strings(file, "plan_json");
      if (plan.size() != 1) throw h5::Error("/plan_json holds " + std::to_string(plan.size()) + " strings, not 1");
      r.plan_json_ = plan.front();
    }
    const Handle mappings = h5::open_group(file, "mappings");
    const auto count = static_cast<int>(h5::table_size(mappings, "table"));
    for (int i = 0; i < count; ++i) r.mappings_.push_back(read_mapping(mappings, i));
    if (several_layouts) {
      for (const auto& m : r.mappings_) {
        const auto* l = r.find_layout(m.layout);
        if (l == nullptr) throw h5::Error("mapping '" + m.name + "' names layout '" + m.layout + "', which /layouts lacks");
        r.layout_key_of_mapping_[m.name] = results::layout_key(l->layout);
      }
    }

    r.measurements_ = tables::read_table<tables::MeasurementH5, MeasurementRow>(file, tables::kMeasurements, tables::measurement_type(),
                                                                                [](const auto& h) { return tables::from_h5(h); });
    if (reading == Reading::everything) {
      r.group_timings_ = tables::read_table<tables::GroupTimingH5, GroupTiming>(file, tables::kGroupTimings, tables::group_timing_type(),
                                                                                [](const auto& h) { return tables::from_h5(h); });
      r.samples_ = tables::read_table<tables::SampleH5, Sample>(file, tables::kSamples, tables::sample_type(),
                                                                [](const auto& h) { return tables::from_h5(h); });
    }
    // Absent in files of one round and in files written before rounds existed.
    r.round_medians_ = tables::read_table<tables::RoundMedianH5, RoundMedian>(file, tables::kRoundMedians, tables::round_median_type(),
                                                                              [](const auto& h) { return tables::from_h5(h); });
    // Only in runs whose machine state was probed (bench's core-to-core probe).
    r.state_probes_ = tables::read_table<tables::StateProbeH5, StateProbe>(file, tables::kStateProbes, tables::state_probe_type(),
                                                                           [](const auto& h) { return tables::from_h5(h); });
    // Only in runs that read the NICs' counters (files written before them have none).
    r.nic_counters_ = tables::read_table<tables::NicCounterH5, NicCounterDelta>(file, tables::kNicCounters, tables::nic_counter_type(),
                                                                                [](const auto& h) { return tables::from_h5(h); });
    // Only in files of a backend that models its ops (NCCL 2.22 and later).
    r.modelled_times_ = tables::read_table<tables::ModelledTimeH5, ModelledTime>(file, tables::kModelledTimes, tables::modelled_time_type(),
                                                                                 [](const auto& h) { return tables::from_h5(h); });
    r.gpu_health_ = tables::read_table<tables::GpuHealthH5, GpuHealthRow>(file, tables::kGpuHealth, tables::gpu_health_type(),
                                                                          [](const auto& h) { return tables::from_h5(h); });
    r.host_copies_ = tables::read_table<tables::HostCopyH5, HostCopyRow>(file, tables::kHostCopies, tables::host_copy_type(),
                                                                         [](const auto& h) { return tables::from_h5(h); });
    r.failures_ = tables::read_table<tables::FailureH5, Failure>(file, tables::kFailures, tables::failure_type(),
                                                                 [](const auto& h) { return tables::from_h5(h); });
    r.transports_ = tables::read_table<tables::TransportH5, TransportUse>(file, tables::kTransports, tables::transport_type(),
                                                                          [](const auto& h) { return tables::from_h5(h); });
    // Only in files that meshbench io wrote or added to.
    r.io_rows_ =
        tables::read_table<tables::IoH5, IoRow>(file, tables::kIo, tables::io_type(), [](const auto& h) { return tables::from_h5(h); });
  } catch (const h5::Error& e) {
    // The message may quote the file (an attribute's name, a digest): kept to one line.
    throw InputError("'" + path + "' is a damaged meshbench results file (" + one_line(e.what()) +
                     "); rerun, or continue it with 'meshbench run --resume'");
  }
  return r;
}

std::string ResultsFile::host_of_slot(int slot) const {
  for (const auto& n : nodes_) {
    if (slot >= n.first_slot && slot < n.first_slot + n.slot_count) return n.hostname;
  }
  return "";
}

const NamedLayout* ResultsFile::find_layout(const std::string& name) const {
  for (const auto& l : layouts_) {
    if (l.name == name) return &l;
  }
  return nullptr;
}

const LayoutRecord& ResultsFile::layout_of_mapping(const std::string& mapping) const {
  if (layouts_.size() > 1) {
    if (const auto* m = find_mapping(mapping)) {
      if (const auto* l = find_layout(m->layout)) return l->layout;
    }
  }
  return layout_;
}

const std::string& ResultsFile::layout_key_of(const std::string& mapping) const {
  if (layout_key_of_mapping_.empty()) return layout_key_;
  const auto it = layout_key_of_mapping_.find(mapping);
  return it == layout_key_of_mapping_.end() ? layout_key_ : it->second;
}

const MappingRecord* ResultsFile::find_mapping(const std::string& name) const {
  for (const auto& m : mappings_) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

}  // namespace meshbench::results
