#include "bench/calibration/probe.hpp"

#include <chrono>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <utility>

#include "bench/mpi_util.hpp"
#include "bench/watchdog.hpp"
#include "common/error.hpp"
#include "common/sizes.hpp"
#include "results/environment.hpp"

namespace meshbench::bench {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Rank 0's progress lines: which probe and mapping, how many points of the probe are done, and
// the time since the probe phase began; between dimensions, a line every 10 s at most.
class ProbeProgress final : public Reporter {
 public:
  ProbeProgress(std::string probe, int index, int count, int points, Clock::time_point start)
      : probe_(std::move(probe)), index_(index), count_(count), points_(points), start_(start), last_(Clock::now()) {}
  void begin_mapping(const mapping::Mapping& m, int /*index*/, int /*count*/) override { mapping_ = m.name; }
  void begin_dimension(mapping::Dim dim, int groups, int group_size, const std::string& skipped) override {
    if (!skipped.empty()) return;
    dim_ = std::string(mapping::to_string(dim)) + " (" + std::to_string(groups) + " group(s) of " + std::to_string(group_size) + ")";
    line("");
  }
  void point(const results::PointRecord& p) override {
    ++done_;
    if (std::chrono::duration<double>(Clock::now() - last_).count() >= 10) line(p.row.point.op + " " + format_bytes(p.row.point.bytes));
  }
  void finish() { line("done"); }
  int done() const { return done_; }

 private:
  void line(const std::string& what) {
    last_ = Clock::now();
    std::cout << "# calibrate: probe " << index_ << "/" << count_ << " " << probe_ << ", " << mapping_ << " " << dim_ << ": " << done_
              << "/" << points_ << " points" << (what.empty() ? "" : ", " + what) << ", " << std::fixed << std::setprecision(1)
              << seconds_since(start_) << " s" << std::endl;
  }
  std::string probe_, mapping_, dim_;
  int index_, count_, points_, done_ = 0;
  Clock::time_point start_, last_;
};

}  // namespace

RunOptions probe_run_options() {
  RunOptions o;
  o.sizes = probe_sizes(8, 64ULL << 20, 8);
  o.timings = {Timing::per_iteration};
  // Timing only: `run` checks results; a check costs one more op per point.
  o.check = false;
  o.policy.warmup = 2;
  o.policy.min_iters = 5;
  o.policy.max_iters = 200;
  o.policy.precision = 0.05;
  o.policy.budget_s = 0.25;
  return o;
}

std::vector<std::string> probe_file_names(const std::string& base, const std::vector<ProbeLayout>& probes) {
  std::string stem = base;
  if (stem.size() > 3 && stem.ends_with(".h5")) stem.resize(stem.size() - 3);
  std::vector<std::string> out;
  for (const auto& p : probes) out.push_back(stem + "." + p.name + ".h5");
  return out;
}

void check_probe_output(const std::string& path, bool force) {
  results::check_output_path(path, true, false);  // the folder exists and is writable
  if (!force && std::filesystem::exists(path)) throw InputError("'" + path + "' exists; replace it with --force or choose another --out");
}

std::string check_probe_outputs(const ProbeRequest& request, const std::vector<ProbeLayout>& probes) {
  try {
    if (probes.empty()) throw InputError("the topology has an odd number of slots, which cannot be paired; launch an even number of ranks");
    for (const auto& path : probe_file_names(request.results_base, probes)) check_probe_output(path, request.force);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::optional<ProbeResult> run_probes(const Launch& at, Backend& backend, const topology::ClusterTopology& topo,
                                      const std::vector<int>& slot_of_rank, const std::vector<std::string>& hosts, Watchdog& watchdog,
                                      FailureSink& sink, const ProbeRequest& request, const std::vector<ProbeLayout>& probes) {
  ProbeResult result;
  result.paths = probe_file_names(request.results_base, probes);
  result.files.reserve(probes.size());  // each file's reporter holds a reference while it is written
  const auto start = Clock::now();
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const auto& probe = probes[i];
    RunMappings plan;
    plan.layout = probe.layout;
    for (const auto& pm : probe.mappings) {
      plan.mappings.push_back(pm.mapping);
      plan.predicted_us.emplace_back();
    }
    RunOptions options = request.options;
    options.dims = probe.dims;
    options.ops = probe.ops;
    options.isolated = false;
    std::string error;
    if (at.rank == 0) {
      try {
        result.files.push_back(results::ResultsWriter::create(
            result.paths[i], make_header(request.command_line, options, plan, topo, hosts, backend), request.force));
      } catch (const InputError& e) {
        error = e.what();
      }
    }
    if (any_input_error(error, at.world, at.command)) return std::nullopt;
    // Each pair alone gives the one-flow points only where all pairs at once share a NIC or an
    // uplink; elsewhere (one flow either way) measuring them alone would repeat the same point.
    std::vector<mapping::Mapping> shared, unshared;
    for (const auto& pm : probe.mappings) (pm.target.nic_flows > 1 || pm.target.uplink_flows > 1 ? shared : unshared).push_back(pm.mapping);
    std::unique_ptr<ResultsFileReporter> file;
    std::unique_ptr<ProbeProgress> progress;
    Reporters reporters;
    Reporter* reporter = at.rank == 0 ? &reporters : nullptr;
    RunOptions isolated = options;
    isolated.isolated = true;
    Runner alone_too(at.world, backend, isolated, slot_of_rank, &watchdog, reporter);
    Runner together(at.world, backend, options, slot_of_rank, &watchdog, reporter);
    if (at.rank == 0) {
      file = std::make_unique<ResultsFileReporter>(result.files.back());
      progress = std::make_unique<ProbeProgress>(probe.name, static_cast<int>(i + 1), static_cast<int>(probes.size()),
                                                 together.count_points(unshared) + alone_too.count_points(shared), start);
      reporters.add(file.get());
      reporters.add(progress.get());
    }
    {
      const FailureSink::Attached attached(sink, file.get());
      if (!unshared.empty()) measure_points(together, unshared, at, watchdog, file.get(), hosts);
      if (!shared.empty()) measure_points(alone_too, shared, at, watchdog, file.get(), hosts);
    }
    if (at.rank == 0) {
      progress->finish();
      result.points += progress->done();
      result.files.back().finish("complete", results::utc_now_iso8601());
    }
  }
  result.seconds = seconds_since(start);
  return result;
}

mapping::Calibration fit_probes(ProbeResult& probe, const topology::ClusterTopology& topo, const ProbeFit& fit) {
  auto calibration = fit(probe.paths, nics_are_shared(topo));
  // The launch's own topology is what `run --cost-model` checks against; fill what the fit left.
  if (calibration.topology_digest.empty()) calibration.topology_digest = mapping::calibration_digest(topo);
  if (calibration.topology_summary.empty()) calibration.topology_summary = mapping::calibration_summary(topo);
  if (calibration.sources.empty()) calibration.sources = probe.paths;
  if (calibration.created_at.empty()) calibration.created_at = results::utc_now_iso8601();
  const std::string text = mapping::to_json(calibration).dump();
  for (auto& file : probe.files) file.record_calibration(text);
  return calibration;
}

std::optional<ProbeOutcome> probe_and_fit(const Launch& at, Backend& backend, const topology::ClusterTopology& topo,
                                          const std::vector<int>& slot_of_rank, const std::vector<std::string>& hosts, Watchdog& watchdog,
                                          FailureSink& sink, const ProbeRequest& request, const ProbeFit& fit) {
  const auto probes = plan_probes(topo);
  if (any_input_error(at.rank == 0 ? check_probe_outputs(request, probes) : "", at.world, at.command)) return std::nullopt;
  if (at.rank == 0) {
    std::cout << "# calibrate: " << probes.size() << " probes of " << probes.front().mappings.size() << " slot-pair arrangements each:";
    for (const auto& m : probes.front().mappings) std::cout << " " << m.mapping.name;
    std::cout << std::endl;
  }
  auto measured = run_probes(at, backend, topo, slot_of_rank, hosts, watchdog, sink, request, probes);
  if (!measured) return std::nullopt;
  ProbeOutcome outcome;
  outcome.files = measured->paths;
  outcome.points = measured->points;
  outcome.probe_seconds = measured->seconds;
  std::string error;
  if (at.rank == 0) {
    const auto start = Clock::now();
    try {
      outcome.calibration = fit_probes(*measured, topo, fit);
    } catch (const InputError& e) {
      error = e.what();
    }
    outcome.fit_seconds = seconds_since(start);
  }
  if (any_input_error(error, at.world, at.command)) return std::nullopt;
  return outcome;
}

}  // namespace meshbench::bench
