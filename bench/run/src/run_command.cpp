// meshbench run: one launch measures every selected mapping; rank 0 writes the results file.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "analysis/doctor/doctor_run.hpp"
#include "bench/backend.hpp"
#include "bench/backend_error.hpp"
#include "bench/calibration/probe.hpp"
#include "bench/launch.hpp"
#include "bench/mpi_util.hpp"
#include "bench/nccl_backend.hpp"
#include "bench/nccl_capture.hpp"
#include "bench/reporter.hpp"
#include "bench/run/run_command.hpp"
#include "bench/run/run_config.hpp"
#include "bench/run/run_plan.hpp"
#include "bench/runner.hpp"
#include "bench/sensors/gpu_health_sampler.hpp"
#include "bench/sensors/host_copies.hpp"
#include "bench/sensors/nic_counter_sampler.hpp"
#include "bench/watchdog.hpp"
#include "common/error.hpp"
#include "common/mpi/session.hpp"
#include "common/mpi/strings.hpp"
#include "common/sizes.hpp"
#include "common/strings.hpp"
#include "common/version.hpp"
#include "mapping/mapping.hpp"
#include "mapping/plan.hpp"
#include "results/environment.hpp"
#include "results/reader.hpp"
#include "results/writer.hpp"
#include "topology/json.hpp"
#include "topology/options.hpp"

namespace meshbench::bench {

namespace {

constexpr const char* kSummary =
    "Measure the candidate mappings in one launch (under mpirun or srun, one process per slot):\n"
    "each process plays the logical rank its slot gets in each mapping, and every dimension's\n"
    "groups run their collectives at once. Results go to an HDF5 file as each point completes.";

std::vector<std::string> keys_to_lines(const std::vector<results::PointKey>& keys) {
  std::vector<std::string> out;
  for (const auto& k : keys)
    out.push_back(k.mapping + "\t" + k.dim + "\t" + k.op + "\t" + k.timing + "\t" + k.concurrency + "\t" + std::to_string(k.bytes));
  return out;
}

std::vector<results::PointKey> lines_to_keys(const std::string& text) {
  std::vector<results::PointKey> keys;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream f(line);
    results::PointKey k;
    std::string bytes;
    std::getline(f, k.mapping, '\t');
    std::getline(f, k.dim, '\t');
    std::getline(f, k.op, '\t');
    std::getline(f, k.timing, '\t');
    std::getline(f, k.concurrency, '\t');
    std::getline(f, bytes);
    k.bytes = std::stoull(bytes);
    keys.push_back(k);
  }
  return keys;
}

// Rank 0 plans the run and checks the output path; every rank gets the plan (nothing when any
// input was bad).
std::optional<RunMappings> share_plan(const RunConfig& config, const Launch& at, const topology::ClusterTopology& topo,
                                      const std::optional<mapping::Calibration>& calibration) {
  std::string error, wire;
  RunMappings plan;
  if (at.rank == 0) {
    try {
      plan = choose_run_mappings(config, topo, calibration);
      if (plan.layout.world != at.size) {
        throw InputError("the plan is for " + std::to_string(plan.layout.world) + " ranks but " + std::to_string(at.size) +
                         " were launched; launch " + std::to_string(plan.layout.world) + " ranks or plan again");
      }
      // One skew for a plan and its run: the plan priced the traffic the run is to draw.
      if (!config.plan_file.empty() && config.a2av_skew_given && plan.a2av_skew != config.run.a2av_skew) {
        throw InputError("--a2av-skew " + fixed(config.run.a2av_skew, 2) + " differs from the routing skew " + fixed(plan.a2av_skew, 2) +
                         " the plan was made with; drop --a2av-skew to measure the plan's, or plan again with --a2av-skew");
      }
      select_mappings(plan, config.mapping_names, config.top, config.calibrate);
      if (plan.mappings.empty()) throw InputError("the plan holds no mapping to measure");
      results::check_output_path(config.output(), config.force, !config.resume.empty());
      wire = to_wire(plan);
    } catch (const InputError& e) {
      error = e.what();
    }
  }
  if (any_input_error(error, at.world, at.command)) return std::nullopt;
  mpi::broadcast_string(wire, at.world);
  if (at.rank != 0) plan = from_wire(wire);
  return plan;
}

// run --calibrate's own files, beside the results file: OUT.probe.<probe>.h5 and OUT.cost.json.
std::string calibration_stem(const RunConfig& config) {
  std::string stem = config.output();
  if (stem.ends_with(".h5")) stem.resize(stem.size() - 3);
  return stem;
}

// The probe takes minutes: rank 0 checks the run's outputs before it starts.
bool outputs_writable_before_probe(const RunConfig& config, const Launch& at) {
  std::string error;
  if (at.rank == 0) {
    try {
      results::check_output_path(config.output(), config.force, false);
      check_probe_output(calibration_stem(config) + ".cost.json", config.force);
    } catch (const InputError& e) {
      error = e.what();
    }
  }
  return !any_input_error(error, at.world, at.command);
}

// run --calibrate's first stage: the probe, its fit (rank 0's `calibration`) and the calibration
// file. False on bad input (printed once).
bool calibrate_first(const RunConfig& config, const Launch& at, const topology::ClusterTopology& topo, const std::vector<int>& slot_of_rank,
                     const std::vector<std::string>& hosts, Backend& backend, Watchdog& watchdog, FailureSink& sink, const Args& args,
                     const ProbeFit& fit, std::optional<mapping::Calibration>& calibration) {
  ProbeRequest request{calibration_stem(config) + ".probe", config.force, probe_run_options(), joined_command_line("run", args)};
  request.options.watchdog_base_s = config.run.watchdog_base_s;
  const auto outcome = probe_and_fit(at, backend, topo, slot_of_rank, hosts, watchdog, sink, request, fit);
  if (!outcome) return false;
  std::string error;
  if (at.rank == 0) {
    calibration = outcome->calibration;
    const std::string path = calibration_stem(config) + ".cost.json";
    try {
      mapping::write_output_file(path, mapping::to_json(*calibration).dump(2) + "\n", config.force);
    } catch (const InputError& e) {
      error = e.what();
    }
    std::cout << "# calibrate: probe phase " << std::lround(outcome->probe_seconds) << " s (" << outcome->points
              << " points); planning with the fit in " << path << "\n";
  }
  return !any_input_error(error, at.world, at.command);
}

// The doctor's report as the results file stores it, and the versions it found (rank 0 only).
struct DoctorRecord {
  std::string json;
  std::map<std::string, std::string> versions;
};

// The pre-flight checklist travels with the run: its verdict is printed, its report stored.
DoctorRecord run_preflight_checks(const RunConfig& config, const Launch& at) {
  DoctorRecord record;
  if (!config.doctor) return record;
  const auto report = analysis::run_doctor(at.world, analysis::DoctorOptions{});
  if (at.rank != 0) return record;
  record.json = nlohmann::json(report).dump(-1, ' ', false, analysis::kReplaceInvalidUtf8);
  record.versions = analysis::common_versions(report);
  std::cout << "# doctor: " << report.count(analysis::CheckStatus::pass) << " PASS, " << report.count(analysis::CheckStatus::warn)
            << " WARN, " << report.count(analysis::CheckStatus::fail) << " FAIL, " << report.count(analysis::CheckStatus::skip)
            << " SKIP (meshbench doctor for details; the report is stored in the results file)\n";
  for (const auto& c : report.checks) {
    if (c.status == analysis::CheckStatus::fail) std::cout << "# doctor FAIL " << c.id << ": " << c.reason << "\n";
  }
  return record;
}

// Rank 0 creates the results file (or reopens it with --resume) under the run's header; every
// rank learns which points it already holds (nothing when the file cannot be opened).
std::optional<std::vector<results::PointKey>> open_results(const RunConfig& config, const Launch& at, const RunMappings& plan,
                                                           const topology::ClusterTopology& topo, const std::vector<std::string>& hosts,
                                                           const Backend& backend, const DoctorRecord& doctor, const Args& args,
                                                           std::optional<results::ResultsWriter>& writer) {
  std::string error, completed_text;
  std::vector<results::PointKey> completed;
  if (at.rank == 0) {
    auto header = make_header(joined_command_line("run", args), config.run, plan, topo, hosts, backend);
    header.provenance.doctor_json = doctor.json;
    for (const auto& entry : doctor.versions) {
      const std::string& component = entry.first;
      const std::string& version = entry.second;
      const bool known = std::any_of(header.provenance.versions.begin(), header.provenance.versions.end(),
                                     [&](const auto& v) { return v.first == component; });
      if (!known) header.provenance.versions.emplace_back(component, version);
    }
    try {
      writer = config.resume.empty() ? results::ResultsWriter::create(config.out, header, config.force)
                                     : results::ResultsWriter::resume(config.resume, header, completed);
    } catch (const InputError& e) {
      error = e.what();
    }
    for (const auto& line : keys_to_lines(completed)) completed_text += line + "\n";
  }
  if (any_input_error(error, at.world, "run")) return std::nullopt;
  mpi::broadcast_string(completed_text, at.world);
  return lines_to_keys(completed_text);
}

// Rank 0's reporters: the results file, the console and, once the points are counted, progress.
// The file comes first: a point is printed only once it is stored, so a fault that ends the run
// between the two (a hang's watchdog, a full disk) never loses a point the user saw.
struct RunReporters {
  std::unique_ptr<ResultsFileReporter> file;
  std::unique_ptr<ConsoleReporter> console;
  std::unique_ptr<ProgressReporter> progress;
  Reporters all;

  void attach(results::ResultsWriter& writer) {
    file = std::make_unique<ResultsFileReporter>(writer);
    console = std::make_unique<ConsoleReporter>(std::cout);
    all.add(file.get());
    all.add(console.get());
  }
};

// Rank 0 says what the run will do before anything runs, so that nobody waits for a point that
// cannot be measured.
void announce_points(const Runner& runner, const RunMappings& plan, const RunConfig& config,
                     const std::vector<results::PointKey>& completed, RunReporters& reporters) {
  reporters.progress = std::make_unique<ProgressReporter>(runner.count_points(plan.mappings));
  reporters.all.add(reporters.progress.get());
  if (!completed.empty()) std::cout << "# resuming " << config.resume << ": " << completed.size() << " point(s) already measured\n";
  const auto too_big = runner.points_over_memory(plan.mappings);
  if (!too_big.empty()) {
    std::cout << "# " << too_big.size() << " point size(s) will not fit in device memory (" << format_bytes(runner.memory_limit())
              << " per rank on the tightest rank) and are skipped, each recorded as a failure:\n";
    for (const auto& line : too_big) std::cout << "#   " << line << "\n";
  }
}

// One line on the machine-state probe: what the best state was and what waiting for it cost.
void announce_state(const StateSummary& s, const StatePolicy& policy) {
  if (!policy.enabled) return;
  if (!s.probed) {
    std::cout << "# machine state: not probed (no node has two ranks on separate cores)\n";
    return;
  }
  std::cout << "# machine state: core-to-core round trip " << std::lround(s.best_ns) << " ns at best; " << s.remeasured
            << " visit(s) measured again in a better state (" << std::round(s.spent_s * 10) / 10 << " s)";
  if (s.left_disturbed > 0) std::cout << ", " << s.left_disturbed << " kept although disturbed (attempts or --state-budget ran out)";
  std::cout << "\n";
}

// Every rank's GPU sampler (nothing with --gpu-sample-ms 0), added to the runner where any rank
// found its GPU in NVML; rank 0 says which.
std::unique_ptr<GpuHealthSampler> start_gpu_health(const RunConfig& config, const Launch& at, const topology::ClusterTopology& topo,
                                                   const std::vector<int>& slot_of_rank, const std::vector<std::string>& hosts,
                                                   Runner& runner) {
  if (config.gpu_sample_ms <= 0) return nullptr;
  const int slot = slot_of_rank[static_cast<std::size_t>(at.rank)];
  const int local = topo.local_index(slot);
  const auto& slots = topo.node(topo.node_of(slot)).slots;
  const std::string pci = local < static_cast<int>(slots.size()) ? slots[static_cast<std::size_t>(local)].pci : "";
  auto sampler = std::make_unique<GpuHealthSampler>(at.world, config.gpu_sample_ms / 1000, GpuOfRank{pci, local}, hosts);
  if (sampler->ranks_sampling() > 0) runner.add_sampler(*sampler);
  if (at.rank == 0) {
    if (sampler->ranks_sampling() == 0) {
      std::cout << "# GPU health: not sampled (" << sampler->note() << ")\n";
    } else {
      std::cout << "# GPU health: NVML sampled on " << sampler->ranks_sampling() << " of " << at.size << " rank(s) every "
                << config.gpu_sample_ms << " ms during each point"
                << (sampler->note().empty() ? "" : "; not on the others: " + sampler->note()) << "\n";
    }
  }
  return sampler;
}

// run --host-copies: one slot at a time (slots copying at once share the host's memory and
// PCIe links, which is not what a slot's own path gives), stored by rank 0 with a line per slot.
void measure_slot_copies(const RunConfig& config, const Launch& at, const topology::ClusterTopology& topo,
                         const std::vector<int>& slot_of_rank, const std::vector<std::string>& hosts,
                         std::optional<results::ResultsWriter>& writer) {
  if (!config.host_copies) return;
  if (!host_copies_built()) {
    if (at.rank == 0) std::cout << "# host copies: not measured (this meshbench was built without CUDA)\n";
    return;
  }
  const int slot = slot_of_rank[static_cast<std::size_t>(at.rank)];
  const int local = topo.local_index(slot);
  const auto& slots = topo.node(topo.node_of(slot)).slots;
  HostCopyRequest request;
  request.host = hosts[static_cast<std::size_t>(at.rank)];
  request.rank = at.rank;
  std::string note;
  std::vector<results::HostCopyRow> rows;
  if (local >= static_cast<int>(slots.size()) || slots[static_cast<std::size_t>(local)].pci.empty()) {
    note = "rank " + std::to_string(at.rank) + ": its slot has no GPU";
  } else {
    request.bus_id = slots[static_cast<std::size_t>(local)].pci;
    request.gpu_numa = slots[static_cast<std::size_t>(local)].numa;
  }
  for (int turn = 0; turn < at.size; ++turn) {
    if (turn == at.rank && note.empty()) {
      try {
        rows = measure_host_copies(request);
      } catch (const std::exception& e) {
        note = "rank " + std::to_string(at.rank) + " (" + request.bus_id + "): " + e.what();
      }
    }
    MPI_Barrier(at.world);
  }
  const auto texts = mpi::gather_strings(encode_host_copies(rows), at.world);
  const auto notes = mpi::gather_strings(note, at.world);
  if (at.rank != 0) return;
  std::vector<results::HostCopyRow> all;
  for (const auto& t : texts) {
    for (auto& r : decode_host_copies(t)) all.push_back(std::move(r));
  }
  writer->record_host_copies(all);
  std::cout << "# host copies (pinned, GB/s median of " << kHostCopyIters << "):\n";
  for (const auto& r : all) {
    std::cout << "#   " << r.host << " rank " << r.rank << " " << r.bus_id << " " << r.direction << " from NUMA " << r.numa_node << " ("
              << r.locality << ") " << format_bytes(r.bytes) << ": " << std::round(r.gbps_median * 10) / 10 << "\n";
  }
  for (const auto& n : notes) {
    if (!n.empty()) std::cout << "#   not measured on " << n << "\n";
  }
}

// Which transport each dimension's communicators used, from every process's NCCL log.
void record_nccl_transports(const std::string& nccl_log, const RunConfig& config, const Launch& at, const Runner& runner,
                            std::optional<results::ResultsWriter>& writer) {
  if (nccl_log.empty()) return;
  std::ifstream log(nccl_log);
  const auto mine = encode_transports(communicator_transports(analysis::parse_nccl_log(log)));
  const auto all = mpi::allgather_strings(mine, at.world);
  if (at.rank != 0) return;
  std::vector<std::vector<std::set<std::string>>> per_rank;
  for (const auto& text : all) per_rank.push_back(decode_transports(text));
  const auto uses = transport_uses(runner.communicators_created(), per_rank);
  writer->record_transports(uses);
  std::cout << "# NCCL transports (from " << config.launch.nccl_debug << "):\n";
  for (const auto& u : uses) std::cout << "#   " << u.mapping << " " << u.dim << ": " << u.transport << " on " << u.ranks << " rank(s)\n";
}

// Rank 0 closes the results file; the exit status (a failure when any stored point, resumed ones
// included, has a wrong result: it is reported, never averaged away) goes to every rank.
int finish_results(const Launch& at, std::optional<results::ResultsWriter>& writer) {
  int status = kExitOk;
  if (at.rank == 0) {
    writer->finish("complete", results::utc_now_iso8601());
    const auto written = results::ResultsFile::open_in_mpi_job(writer->path());
    for (const auto& row : written.measurements()) {
      if (row.wrong > 0) status = kExitFailure;
    }
    std::cout << "# results: " << writer->path() << "\n";
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, at.world);
  return status;
}

int run_under_mpi(const RunConfig& config, const Args& args, const ProbeFit& fit) {
  const Launch at = Launch::of_world("run");

  topology::ClusterTopology topo;
  std::vector<int> slot_of_rank;
  if (!settle_topology(config.launch.topology, at, topo, slot_of_rank)) return kExitBadInput;
  std::optional<StartedBackend> started;
  std::vector<std::string> hosts;
  FailureSink sink;
  std::unique_ptr<Watchdog> watchdog;
  std::optional<mapping::Calibration> calibration;
  if (config.calibrate) {
    if (!outputs_writable_before_probe(config, at)) return kExitBadInput;
    started = start_backend(config.launch, config.run.watchdog_base_s, at, topo, slot_of_rank);
    if (!started) return kExitBadInput;
    hosts = rank_hosts(config.launch, at, topo, slot_of_rank);
    watchdog = std::make_unique<Watchdog>(at.world, hosts, config.launch.grace_s, record_failures_in(sink));
    if (!calibrate_first(config, at, topo, slot_of_rank, hosts, *started->backend, *watchdog, sink, args, fit, calibration))
      return kExitBadInput;
  }
  auto plan = share_plan(config, at, topo, calibration);
  if (!plan) return kExitBadInput;
  if (!started) {
    started = start_backend(config.launch, config.run.watchdog_base_s, at, topo, slot_of_rank);
    if (!started) return kExitBadInput;
    hosts = rank_hosts(config.launch, at, topo, slot_of_rank);
  }
  Backend& backend = *started->backend;
  RunOptions options = config.run;
  options.a2av_skew = plan->a2av_skew;
  if (config.workload_sizes) options.dim_sizes = plan->workload_sizes;
  const DoctorRecord doctor = run_preflight_checks(config, at);
  std::unique_ptr<NicCounterSampler> nic_counters;
  if (config.nic_counters) {
    // Before the results file exists: a host that cannot read its counters leaves no file behind.
    nic_counters = std::make_unique<NicCounterSampler>(at.world, config.counter_root, config.test_counter_roots);
    if (any_input_error(nic_counters->error(), at.world, "run")) return kExitBadInput;
  }

  std::optional<results::ResultsWriter> writer;
  const auto completed = open_results(config, at, *plan, topo, hosts, backend, doctor, args, writer);
  if (!completed) return kExitBadInput;
  RunReporters reporters;
  if (at.rank == 0) {
    reporters.attach(*writer);
    if (plan->calibration) writer->record_calibration(mapping::to_json(*plan->calibration).dump());
  }
  const FailureSink::Attached attached(sink, reporters.file.get());
  if (!watchdog) watchdog = std::make_unique<Watchdog>(at.world, hosts, config.launch.grace_s, record_failures_in(sink));
  Runner runner(at.world, backend, options, slot_of_rank, watchdog.get(), at.rank == 0 ? &reporters.all : nullptr);
  runner.skip(*completed);
  if (nic_counters) runner.add_sampler(*nic_counters);
  measure_slot_copies(config, at, topo, slot_of_rank, hosts, writer);
  const auto gpu_health = start_gpu_health(config, at, topo, slot_of_rank, hosts, runner);
  if (at.rank == 0) announce_points(runner, *plan, config, *completed, reporters);
  measure_points(runner, plan->mappings, at, *watchdog, reporters.file.get(), hosts);
  if (at.rank == 0) announce_state(runner.state_summary(), config.run.state);
  record_nccl_transports(started->nccl_log, config, at, runner, writer);
  return finish_results(at, writer);
}

}  // namespace

int run_command(const Args& args, const ProbeFit& fit) {
  RunConfig config;
  const auto options = run_options_description(config);
  std::string parse_error;
  if (const auto status = parse_launched_command(
          "run", kSummary, options, args, [&](const po::variables_map& vm) { finish_run_config(vm, config); }, parse_error))
    return *status;
  const mpi::MpiSession session;
  if (any_input_error(parse_error, MPI_COMM_WORLD, "run")) return kExitBadInput;
  return run_under_mpi(config, args, fit);
}

}  // namespace meshbench::bench
