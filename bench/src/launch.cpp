#include "bench/launch.hpp"

#include <fstream>
#include <iostream>

#include "bench/backend_error.hpp"
#include "bench/mpi_util.hpp"
#include "bench/mpi_wait.hpp"
#include "bench/nccl_backend.hpp"
#include "bench/nccl_capture.hpp"
#include "bench/watchdog.hpp"
#include "common/error.hpp"
#include "common/mpi/host_comm.hpp"
#include "common/mpi/strings.hpp"
#include "common/version.hpp"
#include "mapping/mapping.hpp"
#include "results/environment.hpp"
#include "topology/json.hpp"
#include "topology/live_cluster.hpp"
#include "topology/options.hpp"

namespace meshbench::bench {

Launch Launch::of_world(const char* command) {
  Launch at;
  at.command = command;
  MPI_Comm_rank(at.world, &at.rank);
  MPI_Comm_size(at.world, &at.size);
  return at;
}

void FailureSink::set(ResultsFileReporter* file) {
  const std::lock_guard lock(mutex_);
  file_ = file;
}

void FailureSink::with_file(const std::function<void(ResultsFileReporter&)>& use) {
  const std::lock_guard lock(mutex_);
  if (file_ != nullptr) use(*file_);
}

Watchdog::FailureHandler record_failures_in(FailureSink& sink) {
  return [&sink](const std::string& message, bool interrupted) {
    sink.with_file([&](ResultsFileReporter& file) {
      if (interrupted) {
        file.hold();  // a kill follows within a second: leave the file as it is, closed
      } else {
        file.record_failure({results::utc_now_iso8601(), "", "", "", 0, message});
      }
    });
  };
}

std::optional<int> parse_launched_command(const char* command, const char* summary, const po::options_description& options,
                                          const Args& args, const std::function<void(const po::variables_map&)>& finish,
                                          std::string& deferred_error) {
  const bool quiet = topology::launcher_rank() != 0;
  std::ofstream null_stream;
  bool under_mpi = false;
  try {
    under_mpi = topology::launched_by_mpi_launcher();
    const auto vm = parse_command(command, summary, options, args, quiet ? null_stream : std::cout);
    if (!vm) return kExitOk;
    finish(*vm);
  } catch (const InputError& e) {
    // A rank that exited 2 here could make mpirun end rank 0 before rank 0 had printed: under an
    // MPI launcher every rank starts MPI and ends at the command's first collective instead.
    if (under_mpi) {
      deferred_error = e.what();
      return std::nullopt;
    }
    if (quiet) return kExitBadInput;  // rank 0 prints it, once
    throw;
  }
  return std::nullopt;
}

std::string joined_command_line(const std::string& command, const Args& args) {
  std::string line = "meshbench " + command;
  for (const auto& a : args) line += " " + a;
  return line;
}

bool settle_topology(const topology::TopologyOptions& options, const Launch& at, topology::ClusterTopology& topo,
                     std::vector<int>& slot_of_rank) {
  // Here, with every rank up, rather than while parsing: a rank that exits 2 before rank 0 has
  // printed makes mpirun end rank 0 with the error unsaid.
  if (any_input_error(mpi_wait_setting_error(), at.world, at.command)) return false;
  std::string error;
  try {
    if (options.given()) {
      topo = topology::load_offline_topology(options, false);
      for (int r = 0; r < at.size; ++r) slot_of_rank.push_back(r);
    } else {
      auto live = topology::discover_cluster(at.world);
      topo = std::move(live.topology);
      slot_of_rank = std::move(live.slot_of_rank);
      if (at.rank == 0) {
        for (const auto& w : live.warnings) std::cerr << "meshbench " << at.command << ": warning: " << w << "\n";
      }
    }
    if (topo.slot_count() != at.size) {
      throw InputError("the topology has " + std::to_string(topo.slot_count()) + " slots but " + std::to_string(at.size) +
                       " ranks were launched; launch one rank per slot or change --nodes/--topology");
    }
  } catch (const InputError& e) {
    error = e.what();
  }
  return !any_input_error(error, at.world, at.command);
}

std::optional<StartedBackend> start_backend(const LaunchOptions& options, double watchdog_base_s, const Launch& at,
                                            const topology::ClusterTopology& topo, const std::vector<int>& slot_of_rank) {
  std::string backend_name = options.backend;
  if (backend_name.empty()) backend_name = nccl_backend_built() && every_rank_has_gpu(at.world) ? "nccl" : "mpi";
  StartedBackend started;
  if (!options.nccl_debug.empty() && backend_name == "nccl") started.nccl_log = start_nccl_capture(options.nccl_debug);
  if (!options.nccl_debug.empty() && backend_name != "nccl" && at.rank == 0) {
    std::cerr << "meshbench " << at.command << ": note: --nccl-debug applies to the NCCL backend; this run uses " << backend_name << "\n";
  }
  if (backend_name != "nccl") {
    started.backend = make_mpi_backend();
    return started;
  }
  NcclOptions nccl;
  nccl.watchdog_base_s = watchdog_base_s;
  nccl.grace_s = options.grace_s;
  std::string error;
  try {
    started.backend =
        make_nccl_backend(at.world, gpu_slot(topo, slot_of_rank[static_cast<std::size_t>(at.rank)], !options.topology.given()), nccl);
  } catch (const InputError& e) {
    error = e.what();
  }
  if (any_input_error(error, at.world, at.command)) return std::nullopt;
  return started;
}

std::vector<std::string> rank_hosts(const LaunchOptions& options, const Launch& at, const topology::ClusterTopology& topo,
                                    const std::vector<int>& slot_of_rank) {
  std::vector<std::string> hosts;
  for (int r = 0; r < at.size; ++r) hosts.push_back(topo.hostname(topo.node_of(slot_of_rank[static_cast<std::size_t>(r)])));
  if (!options.topology.given()) hosts = mpi::allgather_strings(mpi::this_host_name(), at.world);
  return hosts;
}

results::RunHeader make_header(const std::string& command_line, const RunOptions& options, const RunMappings& plan,
                               const topology::ClusterTopology& topo, const std::vector<std::string>& hosts, const Backend& backend) {
  results::RunHeader h;
  h.run.meshbench_version = kVersion;
  h.run.command_line = command_line;
  h.run.started_at = results::utc_now_iso8601();
  h.run.backend = std::string(backend.name());
  h.run.world_size = static_cast<int>(hosts.size());
  h.run.rounds = options.rounds;
  h.run.order_seed = options.seed;
  h.run.hosts = hosts;
  h.provenance.versions = {{"meshbench", kVersion}, {"mpi", mpi_library_version()}, {"backends_built", kBackends}};
  for (const auto& v : backend.versions()) h.provenance.versions.push_back(v);
  h.provenance.environment = results::recorded_environment();
  const auto record = [](const mapping::Layout& l, const std::string& workload_json) {
    return results::LayoutRecord{l.world, l.tp, l.cp, l.pp, l.ep, l.expert_tp(), l.dp(), l.edp(), l.order, workload_json};
  };
  h.layout = record(plan.layout, plan.workload_json);
  for (const auto& l : plan.layouts) h.layouts.push_back({l.name, record(l.layout, l.workload_json), l.estimate_json});
  for (std::size_t i = 0; i < plan.mappings.size(); ++i) {
    const auto& m = plan.mappings[i];
    results::MappingRecord r;
    r.name = m.name;
    r.how = m.how;
    r.digest = mapping::structure_digest(m);
    r.slot_of_rank = m.slot_of_rank;
    for (auto dim : mapping::kAllDims) r.groups.emplace_back(std::string(mapping::to_string(dim)), measured_groups(m, dim));
    r.predicted_us = plan.predicted_us[i];
    if (!plan.layout_of.empty()) r.layout = plan.layout_of[i];
    h.mappings.push_back(std::move(r));
  }
  h.topology = &topo;
  h.topology_json = topology::to_json(topo).dump();
  h.plan_json = plan.plan_json;
  return h;
}

void measure_points(Runner& runner, const std::vector<mapping::Mapping>& mappings, const Launch& at, Watchdog& watchdog,
                    ResultsFileReporter* file_reporter, const std::vector<std::string>& hosts) {
  try {
    runner.run(mappings);
  } catch (const BackendError& e) {
    // An NCCL or CUDA error: the other ranks may be stuck inside the library, so the run ends
    // here for all of them, with what completed kept and the failure recorded.
    std::cerr << "meshbench " << at.command << ": rank " << at.rank << ": " << e.what() << "\n" << std::flush;
    if (file_reporter) file_reporter->record_failure({results::utc_now_iso8601(), "", "", "", 0, e.what()});
    MPI_Abort(at.world, kExitFailure);
  } catch (const results::StorageError& e) {
    // Only rank 0 writes, and the others are already inside the next point's collectives: the
    // watchdog's way out ends every rank at once, with the failure recorded if it still fits.
    watchdog.end_run("the results writer (rank 0 on " + hosts[0] + ") could not store " + watchdog.point() + ": " + e.what() +
                     "; the file keeps every point stored before it; make room or move the file, then continue with --resume");
  }
}

}  // namespace meshbench::bench
