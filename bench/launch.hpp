#pragma once
// The phases every measuring command (run, calibrate) goes through under mpirun/srun, before and
// around its measurements: the topology and each rank's slot, the backend, the hosts, and the
// results file's header.
#include <mpi.h>

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "bench/backend.hpp"
#include "bench/reporter.hpp"
#include "bench/run_mappings.hpp"
#include "bench/runner.hpp"
#include "bench/watchdog.hpp"
#include "results/writer.hpp"
#include "topology/cluster.hpp"
#include "topology/options.hpp"

namespace meshbench::bench {

// What a measuring command's launch takes from its command line, whatever the command.
struct LaunchOptions {
  topology::TopologyOptions topology;
  std::string backend;     // mpi | nccl | "" (auto)
  std::string nccl_debug;  // capture NCCL's log here (NCCL backend)
  double grace_s = 10;     // seconds a rank waits for rank 0 after its own watchdog fires
};

// This process's place in the launch, shared by every phase of a run.
struct Launch {
  MPI_Comm world = MPI_COMM_WORLD;
  int rank = 0, size = 0;
  const char* command = "run";  // names the command in messages
  static Launch of_world(const char* command);
};

// The cluster the launch runs on and each rank's slot in it, settled before any measurement; an
// input error on any rank ends every rank (false) with nothing written.
bool settle_topology(const topology::TopologyOptions& options, const Launch& at, topology::ClusterTopology& topo,
                     std::vector<int>& slot_of_rank);

struct StartedBackend {
  std::unique_ptr<Backend> backend;
  std::string nccl_log;  // where this process's NCCL log goes, when --nccl-debug captures one
};

// The NCCL backend where it is built and every rank has a GPU, unless told otherwise. Each
// rank's GPU is the one of the slot it sits on, not blindly its local rank. An NCCL op may take
// `watchdog_base_s` (plus its size at 50 MB/s) before the backend gives up on it.
std::optional<StartedBackend> start_backend(const LaunchOptions& options, double watchdog_base_s, const Launch& at,
                                            const topology::ClusterTopology& topo, const std::vector<int>& slot_of_rank);

// Each world rank's hostname: the topology's for a described cluster, each process's own live.
std::vector<std::string> rank_hosts(const LaunchOptions& options, const Launch& at, const topology::ClusterTopology& topo,
                                    const std::vector<int>& slot_of_rank);

// The results file's header for `plan`'s mappings measured with `options`.
results::RunHeader make_header(const std::string& command_line, const RunOptions& options, const RunMappings& plan,
                               const topology::ClusterTopology& topo, const std::vector<std::string>& hosts, const Backend& backend);

// The results file a watchdog failure is recorded in: whichever file is being written. The main
// thread attaches and detaches it while the watchdog's thread may be using it (a hang, a
// signal): the lock keeps a file from being detached, and then destroyed, in the middle.
class FailureSink {
 public:
  // Attached for the lifetime of the scope: declare it after the file, so it detaches first.
  class Attached {
   public:
    Attached(FailureSink& sink, ResultsFileReporter* file) : sink_(sink) { sink_.set(file); }
    ~Attached() { sink_.set(nullptr); }
    Attached(const Attached&) = delete;
    Attached& operator=(const Attached&) = delete;

   private:
    FailureSink& sink_;
  };
  // Runs `use` on the attached file, if any, with the file kept attached meanwhile.
  void with_file(const std::function<void(ResultsFileReporter&)>& use);

 private:
  void set(ResultsFileReporter* file);
  std::mutex mutex_;
  ResultsFileReporter* file_ = nullptr;
};
// What the watchdog does on rank 0 before the run ends: record the failure in the sink's file,
// or, when the launcher is ending the job, only wait until no append is in flight.
Watchdog::FailureHandler record_failures_in(FailureSink& sink);

// Measures every point; a failure that leaves the ranks out of step ends all of them here (an
// NCCL or CUDA error, or a results file that cannot take the next point).
void measure_points(Runner& runner, const std::vector<mapping::Mapping>& mappings, const Launch& at, Watchdog& watchdog,
                    ResultsFileReporter* file_reporter, const std::vector<std::string>& hosts);

// Parses a command launched on every rank: help and input errors are printed by the launcher's
// rank 0 only. `finish` checks the parsed values (InputError). An exit status when the command
// ends here (help: 0; without an MPI launcher, an input error: 2 on other ranks, rank 0 throws
// it), nothing to go on. Under an MPI launcher an input error is left in `deferred_error` on
// every rank, for the command to end on once MPI has started (any_input_error, first thing).
std::optional<int> parse_launched_command(const char* command, const char* summary, const po::options_description& options,
                                          const Args& args, const std::function<void(const po::variables_map&)>& finish,
                                          std::string& deferred_error);

// "meshbench COMMAND arg …"
std::string joined_command_line(const std::string& command, const Args& args);

}  // namespace meshbench::bench
