// meshbench calibrate without results files: measures the probes on the allocation at hand and
// writes the fitted cost model (docs/run.md, "Calibrating").
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "bench/calibration/calibrate_command.hpp"
#include "bench/calibration/probe.hpp"
#include "bench/launch.hpp"
#include "bench/mpi_util.hpp"
#include "common/error.hpp"
#include "common/mpi/session.hpp"
#include "common/sizes.hpp"
#include "mapping/plan.hpp"
#include "topology/options.hpp"

namespace meshbench::bench {

namespace {

constexpr const char* kSummary =
    "Without results files, under mpirun or srun (one process per slot): measure on this allocation\n"
    "what the cost model needs - every link class present, inside a node and across nodes, with\n"
    "send/recv, all-reduce, all-gather, reduce-scatter and all-to-all from 8 B to 64 MiB, each pair\n"
    "alone and all at once (1, 2, 4, ... flows through one NIC or PCIe switch uplink) - and write\n"
    "the fitted calibration (JSON) for plan/run --cost-model. With results files it fits from them.";

struct CalibrateConfig {
  std::string out;      // the calibration file
  std::string results;  // base name of the probe's results files
  bool force = false;
  LaunchOptions launch;  // topology, backend, watchdog grace
  RunOptions measure;    // sizes and timing policy
};

po::options_description calibrate_options(CalibrateConfig& c) {
  const RunOptions d = probe_run_options();
  po::options_description out("output");
  // clang-format off
  out.add_options()
      ("out,o", po::value(&c.out)->default_value(""), "calibration file to write (JSON)")
      ("results", po::value(&c.results)->default_value(""),
       "base name of the probe's results files, BASE.collectives.h5 and BASE.p2p.h5 (default: the --out file's name without .json, plus .probe)")
      ("force", po::bool_switch(&c.force), "replace existing output files");
  // clang-format on
  po::options_description measure("what to measure");
  // clang-format off
  measure.add_options()
      ("backend", po::value(&c.launch.backend)->default_value(""), "mpi | nccl (default: nccl where built and every rank has a GPU, else mpi)")
      ("minbytes,b", po::value<std::string>()->default_value("8"), "smallest size")
      ("maxbytes,e", po::value<std::string>()->default_value("64M"), "largest size (always measured)")
      ("stepfactor,f", po::value<std::string>()->default_value("8"), "multiplicative step between sizes");
  // clang-format on
  topology::add_topology_options(measure, c.launch.topology);
  po::options_description timing("timing (per-iteration; the probe's defaults keep it within a few minutes on a slow link)");
  // clang-format off
  timing.add_options()
      ("warmup,w", po::value(&c.measure.policy.warmup)->default_value(d.policy.warmup), "warm-up ops per point, never counted")
      ("min-iters", po::value(&c.measure.policy.min_iters)->default_value(d.policy.min_iters), "fewest timed iterations per point")
      ("max-iters", po::value(&c.measure.policy.max_iters)->default_value(d.policy.max_iters), "most timed iterations per point")
      ("precision", po::value(&c.measure.policy.precision)->default_value(d.policy.precision),
       "stop once the median's 95% interval is within this fraction")
      ("budget", po::value(&c.measure.policy.budget_s)->default_value(d.policy.budget_s), "time budget per point, seconds")
      ("watchdog", po::value(&c.measure.watchdog_base_s)->default_value(d.watchdog_base_s), "seconds an op may take before the probe ends (plus size / 50 MB/s)")
      ("watchdog-grace", po::value(&c.launch.grace_s)->default_value(c.launch.grace_s), "seconds a rank waits for rank 0 after its own watchdog fires");
  // clang-format on
  po::options_description all;
  all.add(out).add(measure).add(timing);
  return all;
}

void finish_calibrate_config(const po::variables_map& vm, CalibrateConfig& c) {
  if (c.out.empty()) throw InputError("no calibration file; give --out cost.json");
  if (!c.launch.backend.empty() && c.launch.backend != "mpi" && c.launch.backend != "nccl")
    throw InputError("unknown backend '" + c.launch.backend + "'; use --backend mpi or nccl");
  if (c.results.empty()) {
    c.results = c.out;
    if (c.results.ends_with(".json")) c.results.resize(c.results.size() - 5);
    c.results += ".probe";
  }
  const TimingPolicy policy = c.measure.policy;
  const double watchdog = c.measure.watchdog_base_s;
  c.measure = probe_run_options();
  c.measure.policy = policy;
  c.measure.watchdog_base_s = watchdog;
  c.measure.sizes = probe_sizes(parse_bytes(vm["minbytes"].as<std::string>()), parse_bytes(vm["maxbytes"].as<std::string>()),
                                parse_bytes(vm["stepfactor"].as<std::string>()));
  const auto& p = c.measure.policy;
  if (p.min_iters < 1 || p.max_iters < p.min_iters) throw InputError("--min-iters must be at least 1 and at most --max-iters");
  if (p.warmup < 0) throw InputError("--warmup must be >= 0");
  if (p.precision <= 0 || p.budget_s <= 0) throw InputError("--precision and --budget must be positive");
  if (c.measure.watchdog_base_s <= 0 || c.launch.grace_s < 0)
    throw InputError("--watchdog must be positive and --watchdog-grace not negative");
}

int calibrate_under_mpi(const CalibrateConfig& config, const Args& args, const ProbeFit& fit) {
  const Launch at = Launch::of_world("calibrate");
  topology::ClusterTopology topo;
  std::vector<int> slot_of_rank;
  if (!settle_topology(config.launch.topology, at, topo, slot_of_rank)) return kExitBadInput;
  std::string error;
  if (at.rank == 0) {
    try {
      check_probe_output(config.out, config.force);
    } catch (const InputError& e) {
      error = e.what();
    }
  }
  if (any_input_error(error, at.world, at.command)) return kExitBadInput;
  auto started = start_backend(config.launch, config.measure.watchdog_base_s, at, topo, slot_of_rank);
  if (!started) return kExitBadInput;
  const auto hosts = rank_hosts(config.launch, at, topo, slot_of_rank);
  FailureSink sink;
  Watchdog watchdog(at.world, hosts, config.launch.grace_s, record_failures_in(sink));
  const ProbeRequest request{config.results, config.force, config.measure, joined_command_line("calibrate", args)};
  const auto outcome = probe_and_fit(at, *started->backend, topo, slot_of_rank, hosts, watchdog, sink, request, fit);
  if (!outcome) return kExitBadInput;
  if (at.rank == 0) {
    try {
      mapping::write_output_file(config.out, mapping::to_json(outcome->calibration).dump(2) + "\n", config.force);
    } catch (const InputError& e) {
      error = e.what();
    }
  }
  if (any_input_error(error, at.world, at.command)) return kExitBadInput;
  if (at.rank == 0) {
    std::cout << std::fixed << std::setprecision(1) << "# calibrate: probe phase " << outcome->probe_seconds << " s (" << outcome->points
              << " points), fit " << outcome->fit_seconds << " s\n";
    for (const auto& f : outcome->files) std::cout << "# results: " << f << "\n";
    std::cout << "# calibration: " << config.out << " (" << outcome->calibration.links.size() << " link class x op family fits)\n";
  }
  return kExitOk;
}

}  // namespace

int calibrate_probe_command(const Args& args, const ProbeFit& fit) {
  CalibrateConfig config;
  const auto options = calibrate_options(config);
  std::string parse_error;
  if (const auto status = parse_launched_command(
          "calibrate", kSummary, options, args, [&](const po::variables_map& vm) { finish_calibrate_config(vm, config); }, parse_error))
    return *status;
  const mpi::MpiSession session;
  if (any_input_error(parse_error, MPI_COMM_WORLD, "calibrate")) return kExitBadInput;
  return calibrate_under_mpi(config, args, fit);
}

}  // namespace meshbench::bench
