// meshbench run: one launch measures every selected mapping; rank 0 writes the results file.
#include <unistd.h>

#include <algorithm>
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
#include "bench/commands.hpp"
#include "bench/nccl_backend.hpp"
#include "bench/nccl_capture.hpp"
#include "bench/reporter.hpp"
#include "bench/run_config.hpp"
#include "bench/runner.hpp"
#include "bench/src/mpi_util.hpp"
#include "bench/src/run_mappings.hpp"
#include "bench/watchdog.hpp"
#include "common/error.hpp"
#include "common/mpi/session.hpp"
#include "common/mpi/strings.hpp"
#include "common/sizes.hpp"
#include "common/version.hpp"
#include "mapping/mapping.hpp"
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

std::string joined_command_line(const Args& args) {
  std::string line = "meshbench run";
  for (const auto& a : args) line += " " + a;
  return line;
}

std::string hostname() {
  char buf[256] = {};
  ::gethostname(buf, sizeof buf - 1);
  return buf;
}

results::RunHeader make_header(const RunConfig& config, const RunMappings& plan, const topology::ClusterTopology& topo,
                               const std::vector<std::string>& hosts, const Backend& backend, const Args& args) {
  results::RunHeader h;
  h.run.meshbench_version = kVersion;
  h.run.command_line = joined_command_line(args);
  h.run.started_at = results::utc_now_iso8601();
  h.run.backend = std::string(backend.name());
  h.run.world_size = static_cast<int>(hosts.size());
  h.run.rounds = config.run.rounds;
  h.run.order_seed = config.run.seed;
  h.run.hosts = hosts;
  char mpi_version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(mpi_version, &len);
  std::string mpi(mpi_version, static_cast<std::size_t>(len));
  if (const auto nl = mpi.find_first_of(",\n"); nl != std::string::npos) mpi.resize(nl);
  h.provenance.versions = {{"meshbench", kVersion}, {"mpi", mpi}, {"backends_built", kBackends}};
  for (const auto& v : backend.versions()) h.provenance.versions.push_back(v);
  h.provenance.environment = results::recorded_environment();
  const auto& l = plan.layout;
  h.layout = {l.world, l.tp, l.cp, l.pp, l.ep, l.expert_tp(), l.dp(), l.edp(), l.order, plan.workload_json};
  for (std::size_t i = 0; i < plan.mappings.size(); ++i) {
    const auto& m = plan.mappings[i];
    results::MappingRecord r;
    r.name = m.name;
    r.how = m.how;
    r.digest = mapping::structure_digest(m);
    r.slot_of_rank = m.slot_of_rank;
    for (auto dim : mapping::kAllDims) r.groups.emplace_back(std::string(mapping::to_string(dim)), measured_groups(m, dim));
    r.predicted_us = plan.predicted_us[i];
    h.mappings.push_back(std::move(r));
  }
  h.topology = &topo;
  h.topology_json = topology::to_json(topo).dump();
  h.plan_json = plan.plan_json;
  return h;
}

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

// This process's place in the launch, shared by every phase of a run.
struct Launch {
  MPI_Comm world = MPI_COMM_WORLD;
  int rank = 0, size = 0;
};

// The cluster the launch runs on and each rank's slot in it, settled before any measurement; an
// input error on any rank ends every rank (false) with nothing written.
bool settle_topology(const RunConfig& config, const Launch& at, topology::ClusterTopology& topo, std::vector<int>& slot_of_rank) {
  std::string error;
  try {
    if (config.topology.given()) {
      topo = topology::load_offline_topology(config.topology, false);
      for (int r = 0; r < at.size; ++r) slot_of_rank.push_back(r);
    } else {
      auto live = topology::discover_cluster(at.world);
      topo = std::move(live.topology);
      slot_of_rank = std::move(live.slot_of_rank);
      if (at.rank == 0) {
        for (const auto& w : live.warnings) std::cerr << "meshbench run: warning: " << w << "\n";
      }
    }
    if (topo.slot_count() != at.size) {
      throw InputError("the topology has " + std::to_string(topo.slot_count()) + " slots but " + std::to_string(at.size) +
                       " ranks were launched; launch one rank per slot or change --nodes/--topology");
    }
  } catch (const InputError& e) {
    error = e.what();
  }
  return !any_input_error(error, at.world, "run");
}

// Rank 0 plans the run and checks the output path; every rank gets the plan (nothing when any
// input was bad).
std::optional<RunMappings> share_plan(const RunConfig& config, const Launch& at, const topology::ClusterTopology& topo) {
  std::string error, wire;
  RunMappings plan;
  if (at.rank == 0) {
    try {
      plan = choose_run_mappings(config, topo);
      if (plan.layout.world != at.size) {
        throw InputError("the plan is for " + std::to_string(plan.layout.world) + " ranks but " + std::to_string(at.size) +
                         " were launched; launch " + std::to_string(plan.layout.world) + " ranks or plan again");
      }
      select_mappings(plan, config.mapping_names, config.top);
      if (plan.mappings.empty()) throw InputError("the plan holds no mapping to measure");
      results::check_output_path(config.output(), config.force, !config.resume.empty());
      wire = to_wire(plan);
    } catch (const InputError& e) {
      error = e.what();
    }
  }
  if (any_input_error(error, at.world, "run")) return std::nullopt;
  mpi::broadcast_string(wire, at.world);
  if (at.rank != 0) plan = from_wire(wire);
  return plan;
}

struct StartedBackend {
  std::unique_ptr<Backend> backend;
  std::string nccl_log;  // where this process's NCCL log goes, when --nccl-debug captures one
};

// The NCCL backend where it is built and every rank has a GPU, unless told otherwise. Each
// rank's GPU is the one of the slot it sits on, not blindly its local rank.
std::optional<StartedBackend> start_backend(const RunConfig& config, const Launch& at, const topology::ClusterTopology& topo,
                                            const std::vector<int>& slot_of_rank) {
  std::string backend_name = config.backend;
  if (backend_name.empty()) backend_name = nccl_backend_built() && every_rank_has_gpu(at.world) ? "nccl" : "mpi";
  StartedBackend started;
  if (!config.nccl_debug.empty() && backend_name == "nccl") started.nccl_log = start_nccl_capture(config.nccl_debug);
  if (!config.nccl_debug.empty() && backend_name != "nccl" && at.rank == 0) {
    std::cerr << "meshbench run: note: --nccl-debug applies to the NCCL backend; this run uses " << backend_name << "\n";
  }
  if (backend_name != "nccl") {
    started.backend = make_mpi_backend();
    return started;
  }
  NcclOptions nccl;
  nccl.watchdog_base_s = config.run.watchdog_base_s;
  nccl.grace_s = config.grace_s;
  std::string error;
  try {
    started.backend =
        make_nccl_backend(at.world, gpu_slot(topo, slot_of_rank[static_cast<std::size_t>(at.rank)], !config.topology.given()), nccl);
  } catch (const InputError& e) {
    error = e.what();
  }
  if (any_input_error(error, at.world, "run")) return std::nullopt;
  return started;
}

// Each world rank's hostname: the topology's for a described cluster, each process's own live.
std::vector<std::string> rank_hosts(const RunConfig& config, const Launch& at, const topology::ClusterTopology& topo,
                                    const std::vector<int>& slot_of_rank) {
  std::vector<std::string> hosts;
  for (int r = 0; r < at.size; ++r) hosts.push_back(topo.hostname(topo.node_of(slot_of_rank[static_cast<std::size_t>(r)])));
  if (!config.topology.given()) hosts = mpi::allgather_strings(hostname(), at.world);
  return hosts;
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
    auto header = make_header(config, plan, topo, hosts, backend, args);
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

// Rank 0's reporters: the console, the results file and, once the points are counted, progress.
struct RunReporters {
  std::unique_ptr<ResultsFileReporter> file;
  std::unique_ptr<ConsoleReporter> console;
  std::unique_ptr<ProgressReporter> progress;
  Reporters all;

  void attach(results::ResultsWriter& writer) {
    file = std::make_unique<ResultsFileReporter>(writer);
    console = std::make_unique<ConsoleReporter>(std::cout);
    all.add(console.get());
    all.add(file.get());
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

// Measures every point; a failure that leaves the ranks out of step ends all of them here.
void measure_points(Runner& runner, const RunMappings& plan, const Launch& at, Watchdog& watchdog, ResultsFileReporter* file_reporter,
                    const std::vector<std::string>& hosts) {
  try {
    runner.run(plan.mappings);
  } catch (const BackendError& e) {
    // An NCCL or CUDA error: the other ranks may be stuck inside the library, so the run ends
    // here for all of them, with what completed kept and the failure recorded.
    std::cerr << "meshbench run: rank " << at.rank << ": " << e.what() << "\n" << std::flush;
    if (file_reporter) file_reporter->record_failure({results::utc_now_iso8601(), "", "", "", 0, e.what()});
    MPI_Abort(at.world, kExitFailure);
  } catch (const results::StorageError& e) {
    // Only rank 0 writes, and the others are already inside the next point's collectives: the
    // watchdog's way out ends every rank at once, with the failure recorded if it still fits.
    watchdog.end_run("the results writer (rank 0 on " + hosts[0] + ") could not store " + watchdog.point() + ": " + e.what() +
                     "; the file keeps every point stored before it; make room or move the file, then continue with --resume");
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
  std::cout << "# NCCL transports (from " << config.nccl_debug << "):\n";
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

int run_under_mpi(const RunConfig& config, const Args& args) {
  Launch at;
  MPI_Comm_rank(at.world, &at.rank);
  MPI_Comm_size(at.world, &at.size);

  topology::ClusterTopology topo;
  std::vector<int> slot_of_rank;
  if (!settle_topology(config, at, topo, slot_of_rank)) return kExitBadInput;
  auto plan = share_plan(config, at, topo);
  if (!plan) return kExitBadInput;
  auto started = start_backend(config, at, topo, slot_of_rank);
  if (!started) return kExitBadInput;
  Backend& backend = *started->backend;
  const auto hosts = rank_hosts(config, at, topo, slot_of_rank);
  RunOptions options = config.run;
  if (config.workload_sizes) options.dim_sizes = plan->workload_sizes;
  const DoctorRecord doctor = run_preflight_checks(config, at);

  std::optional<results::ResultsWriter> writer;
  const auto completed = open_results(config, at, *plan, topo, hosts, backend, doctor, args, writer);
  if (!completed) return kExitBadInput;
  RunReporters reporters;
  if (at.rank == 0) reporters.attach(*writer);
  Watchdog watchdog(at.world, hosts, config.grace_s, [&](const std::string& message, bool interrupted) {
    if (!reporters.file) return;
    if (interrupted) {
      reporters.file->hold();  // a kill follows within a second: leave the file as it is, closed
    } else {
      reporters.file->record_failure({results::utc_now_iso8601(), "", "", "", 0, message});
    }
  });
  Runner runner(at.world, backend, options, slot_of_rank, &watchdog, at.rank == 0 ? &reporters.all : nullptr);
  runner.skip(*completed);
  if (at.rank == 0) announce_points(runner, *plan, config, *completed, reporters);
  measure_points(runner, *plan, at, watchdog, reporters.file.get(), hosts);
  record_nccl_transports(started->nccl_log, config, at, runner, writer);
  return finish_results(at, writer);
}

}  // namespace

int run_command(const Args& args) {
  RunConfig config;
  const auto options = run_options_description(config);
  const bool quiet = topology::launcher_rank() != 0;
  std::ofstream null_stream;
  try {
    const auto vm = parse_command("run", kSummary, options, args, quiet ? null_stream : std::cout);
    if (!vm) return kExitOk;
    finish_run_config(*vm, config);
  } catch (const InputError&) {
    if (quiet) return kExitBadInput;  // rank 0 prints it, once
    throw;
  }
  const mpi::MpiSession session;
  return run_under_mpi(config, args);
}

}  // namespace meshbench::bench
