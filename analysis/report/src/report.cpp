#include "analysis/report/report.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "common/error.hpp"

namespace meshbench::analysis {

namespace {

RunSummary summarise(const results::ResultsFile& file) {
  RunSummary s;
  const auto& run = file.run();
  const auto& l = file.layout();
  s.path = file.path();
  s.status = run.status;
  s.backend = run.backend;
  s.started_at = run.started_at;
  s.finished_at = run.finished_at;
  s.meshbench_version = run.meshbench_version;
  s.order = l.order;
  s.world = l.world;
  s.tp = l.tp;
  s.cp = l.cp;
  s.pp = l.pp;
  s.ep = l.ep;
  s.etp = l.etp;
  s.dp = l.dp;
  s.edp = l.edp;
  for (const auto& h : run.hosts) {
    if (std::find(s.hosts.begin(), s.hosts.end(), h) == s.hosts.end()) s.hosts.push_back(h);
  }
  if (file.several_layouts()) {
    for (const auto& n : file.layouts()) s.layouts.push_back(n.name + ": " + layout_sizes(n.layout));
  }
  s.mappings = static_cast<int>(file.mappings().size());
  s.rows = static_cast<int>(file.measurements().size());
  s.failures = static_cast<int>(file.failures().size());
  for (const auto& f : file.failures()) s.failure_messages.push_back(f.message);
  return s;
}

std::optional<PredictionCheck> check_predictions(const results::ResultsFile& file, const Ranking& ranking, const FilePlan& plan,
                                                 const std::optional<mapping::Workload>& workload) {
  PredictionCheck check;
  check.like_for_like = workload && ranking.basis == Ranking::Basis::workload && plan.plan.time_basis == "per_step" && plan.plan.workload &&
                        *plan.plan.workload == *workload;
  check.basis = check.like_for_like ? "µs per step for the same workload: the plan's cost model against the measured curves"
                                    : "order only: the plan's figures are " +
                                          std::string(plan.plan.time_basis == "per_step" ? "per step for another workload"
                                                                                         : "sums over its own size sweep") +
                                          "; measured is the ranking's " + ranking.unit();
  std::vector<double> predicted_step, measured_step;
  std::vector<std::size_t> step_rows;
  for (const auto& m : file.mappings()) {
    const auto ranked =
        std::find_if(ranking.mappings.begin(), ranking.mappings.end(), [&](const RankedMapping& r) { return r.name == m.name; });
    if (ranked == ranking.mappings.end()) continue;
    for (const auto& [dim, predicted] : m.predicted_us) {
      if (!(predicted > 0)) continue;
      if (dim == "step") {
        check.rows.push_back({m.name, dim, predicted, ranked->complete ? ranked->score : 0, 0, 0});
        if (ranked->complete && ranked->score > 0) {
          step_rows.push_back(check.rows.size() - 1);
          predicted_step.push_back(predicted);
          measured_step.push_back(ranked->score);
        }
      } else if (check.like_for_like) {
        PredictionRow row{m.name, dim, predicted, 0, 0, 0};
        for (const auto& d : ranked->dims) {
          if (d.dim == dim) row.measured = d.value;
        }
        check.rows.push_back(row);
      }
    }
  }
  if (check.rows.empty()) return std::nullopt;
  const auto pr = ranks_of(predicted_step), mr = ranks_of(measured_step);
  for (std::size_t k = 0; k < step_rows.size(); ++k) {
    check.rows[step_rows[k]].predicted_rank = pr[k];
    check.rows[step_rows[k]].measured_rank = mr[k];
  }
  check.compared_mappings = static_cast<int>(predicted_step.size());
  check.rank_correlation = spearman(predicted_step, measured_step);
  return check;
}

}  // namespace

std::optional<mapping::Workload> choose_workload(const results::ResultsFile& file, const std::string& path, std::string& source) {
  if (!path.empty()) {
    source = path;
    return mapping::load_workload(path);
  }
  const std::string& stored = file.layout().workload_json;
  if (stored.empty()) {
    source.clear();
    return std::nullopt;
  }
  source = "results file";
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(stored);
  } catch (const nlohmann::json::exception&) {
    throw InputError("the workload stored in " + file.path() + " is not valid JSON; pass --workload FILE");
  }
  return mapping::workload_from_json(j, "stored in " + file.path());
}

Report build_report(const results::ResultsFile& file, const std::optional<mapping::Workload>& workload, const std::string& workload_source,
                    const std::vector<Predictor>& predictors, const ReportHardware* hardware, double expect_below_pct) {
  Report r;
  r.io = summarise_io(file.io_rows());
  if (file.measurements().empty() && !r.io.empty()) {
    r.run = summarise(file);
    return r;
  }
  if (file.measurements().empty()) {
    throw InputError(file.path() + " holds no measurement yet (status " + file.run().status +
                     "); finish the run with 'meshbench run --resume'");
  }
  r.run = summarise(file);
  const CurveSet curves(file);
  r.ranking = workload ? rank_by_workload(file, curves, *workload, workload_source == "results file") : rank_by_default(file, curves);
  r.ranking.workload_source = workload_source;
  r.layouts = rank_layouts(file, r.ranking);
  r.curves = curves.curves();
  r.spreads = group_spreads(file);
  r.largest_spreads = spreads_at_largest_size(r.spreads);
  r.slow_hosts = slow_host_tally(file, r.spreads);
  r.gpu_health = gpu_health_section(file, r.slow_hosts);
  const FilePlan plan = plan_of(file);
  r.predictions = check_predictions(file, r.ranking, plan, workload);
  if (!predictors.empty()) {
    r.accuracy = prediction_accuracy(file, r.ranking, predictors, workload, hardware);
  } else {
    // A file whose topology cannot be read back still gets the rest of its report.
    try {
      r.accuracy = prediction_accuracy(file, r.ranking, report_predictors(file, ""), workload);
    } catch (const InputError&) {
    }
  }
  r.expected = expected_section(r.accuracy, file, expect_below_pct, hardware);
  if (!r.ranking.mappings.empty() && r.ranking.mappings.front().complete) {
    const std::string& best = r.ranking.mappings.front().name;
    // A mapping whose groups no Megatron order makes has no plan entry to export from.
    // A file without a topology (imported from another tool's logs) has no placement to apply.
    if (plan.plan.find(best) != nullptr) {
      try {
        r.best = apply_hint(file, plan, best);
      } catch (const InputError&) {
      }
    }
  }
  for (const auto& t : file.transports()) r.transports.push_back(t);
  r.placement = placements_of(file, r.ranking);
  r.nic = build_nic_traffic(file.nic_counters(), {[&](const std::string& name) { return file.find_mapping(name); },
                                                  [&](int slot) { return file.host_of_slot(slot); }});
  for (const auto& row : file.measurements()) {
    if (row.wrong > 0) r.wrong.push_back({file.key_of(row), row.wrong});
  }
  return r;
}

}  // namespace meshbench::analysis
