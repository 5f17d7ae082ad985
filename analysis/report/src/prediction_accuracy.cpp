#include "analysis/report/prediction_accuracy.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "analysis/report/file_model.hpp"
#include "analysis/report/report_apply.hpp"
#include "common/error.hpp"
#include "common/nccl_version.hpp"
#include "common/strings.hpp"
#include "mapping/calibration.hpp"
#include "mapping/cost_model.hpp"
#include "mapping/nccl_tuning.hpp"

namespace meshbench::analysis {

namespace {

// The NCCL release a results file records (the oldest where a log names several), if any.
std::optional<int> recorded_nccl_release(const results::ResultsFile& file) {
  std::optional<int> oldest;
  for (const auto& [name, value] : file.provenance().versions) {
    if (name != "nccl") continue;
    std::size_t start = 0;
    while (start <= value.size()) {
      const std::size_t end = std::min(value.find(',', start), value.size());
      const auto release = nccl::parse_version(trim(std::string_view(value).substr(start, end - start)));
      if (release && (!oldest || *release < *oldest)) oldest = release;
      start = end + 1;
    }
  }
  return oldest;
}

// NCCL_ALGO and NCCL_PROTO as the file records them (a run's environment; an imported log's
// command line or NCCL's own lines): NCCL chose only among what they allow. The restriction and
// how the source names it; nullopt when neither is recorded. Values NCCL would refuse are left
// out, and the source says so.
struct RecordedRestriction {
  std::optional<mapping::nccl::Allowed> allowed;
  std::string words;
};
std::optional<RecordedRestriction> recorded_nccl_restriction(const results::ResultsFile& file) {
  std::string algo, proto;
  for (const auto& [name, value] : file.provenance().environment) {
    if (name == "NCCL_ALGO") algo = value;
    if (name == "NCCL_PROTO") proto = value;
  }
  if (algo.empty() && proto.empty()) return std::nullopt;
  std::vector<std::string> set;
  if (!algo.empty()) set.push_back("NCCL_ALGO=" + algo);
  if (!proto.empty()) set.push_back("NCCL_PROTO=" + proto);
  return RecordedRestriction{mapping::nccl::parse_allowed(algo, proto), join(set, " ")};
}

double rel_error(double predicted, double measured) { return std::abs(predicted - measured) / measured; }

ErrorSummary summary_of(const std::vector<PointPrediction>& points, bool (*keep)(const PointPrediction&)) {
  std::vector<double> e;
  for (const auto& p : points) {
    if (keep(p)) e.push_back(rel_error(p.predicted_us, p.measured_us));
  }
  return summarize_errors(std::move(e));
}

bool any_point(const PointPrediction&) { return true; }
bool large_point(const PointPrediction& p) { return p.point.bytes >= kLargePointBytes; }
bool concurrent_large_point(const PointPrediction& p) { return large_point(p) && p.point.concurrency == "concurrent"; }
bool shared_large_point(const PointPrediction& p) { return concurrent_large_point(p) && p.flows > 1; }

// Ranks `totals` (one mapping each) by predicted and by measured time, and judges the order.
OrderAccuracy judge_order(std::vector<TotalPrediction*> totals) {
  OrderAccuracy o;
  std::vector<double> predicted, measured, errors;
  for (const auto* t : totals) {
    predicted.push_back(t->predicted_us);
    measured.push_back(t->measured_us);
    errors.push_back(rel_error(t->predicted_us, t->measured_us));
  }
  o.mappings = static_cast<int>(totals.size());
  o.error = summarize_errors(errors);
  o.spearman = spearman(predicted, measured);
  o.regret = regret(predicted, measured);
  const auto pr = ranks_of(predicted), mr = ranks_of(measured);
  for (std::size_t i = 0; i < totals.size(); ++i) {
    totals[i]->predicted_rank = pr[i];
    totals[i]->measured_rank = mr[i];
  }
  if (!totals.empty()) {
    int tied = 0;
    const std::size_t best_p = predicted_best(predicted, measured, tied);
    const auto best_m = std::min_element(measured.begin(), measured.end()) - measured.begin();
    o.predicted_best = totals[best_p]->mapping;
    o.predicted_best_ties = tied;
    o.measured_best = totals[static_cast<std::size_t>(best_m)]->mapping;
  }
  return o;
}

// Per mapping (and per dimension), Σ over the (dim, op, size) points every mapping has
// concurrent of the predictions and of the medians.
void sum_common_points(PredictorAccuracy& a, std::vector<std::string>& notes, bool first) {
  using Key = std::tuple<std::string, std::string, std::uint64_t>;
  std::map<std::string, std::map<Key, const PointPrediction*>> by_mapping;
  for (const auto& p : a.points) {
    const auto& k = p.point;
    if (k.concurrency == "concurrent") by_mapping[k.mapping][{k.dim, k.op, k.bytes}] = &p;
  }
  std::set<Key> common;
  std::set<Key> any;
  for (const auto& [m, points] : by_mapping) {
    for (const auto& [k, p] : points) any.insert(k);
  }
  for (const auto& k : any) {
    if (std::all_of(by_mapping.begin(), by_mapping.end(), [&](const auto& m) { return m.second.count(k) != 0; })) common.insert(k);
  }
  if (first && common.size() < any.size())
    notes.push_back(std::to_string(any.size() - common.size()) +
                    " (dimension, op, size) point(s) not measured for every mapping are left out of the mapping totals");
  for (const auto& [m, points] : by_mapping) {
    TotalPrediction step{m, "step", 0, 0, 0, 0};
    std::map<std::string, TotalPrediction> dims;
    for (const auto& k : common) {
      const auto* p = points.at(k);
      step.predicted_us += p->predicted_us;
      step.measured_us += p->measured_us;
      auto& d = dims.try_emplace(p->point.dim, TotalPrediction{m, p->point.dim, 0, 0, 0, 0}).first->second;
      d.predicted_us += p->predicted_us;
      d.measured_us += p->measured_us;
    }
    if (common.empty()) continue;
    a.totals.push_back(step);
    for (auto& [dim, t] : dims) a.totals.push_back(t);
  }
}

// With a workload: the model's per-step time (and per dimension) against the ranking's.
void workload_totals(PredictorAccuracy& a, const FileScores& scores, const Ranking& ranking) {
  for (const auto& r : ranking.mappings) {
    const auto* s = scores.find(r.name);
    if (s == nullptr || !r.complete || !(r.score > 0)) continue;
    a.totals.push_back({r.name, "step", s->total_us, r.score, 0, 0});
    for (const auto& d : r.dims) {
      const auto dim = mapping::parse_dim(d.dim);
      if (!dim || !d.complete || !(d.value > 0)) continue;
      a.totals.push_back({r.name, d.dim, (*s)[*dim], d.value, 0, 0});
    }
  }
}

std::vector<std::string> dims_of(const PredictorAccuracy& a) {
  std::vector<std::string> out;
  for (const auto d : mapping::kAllDims) {
    const std::string name(mapping::to_string(d));
    const bool has = std::any_of(a.points.begin(), a.points.end(), [&](const auto& p) { return p.point.dim == name; }) ||
                     std::any_of(a.totals.begin(), a.totals.end(), [&](const auto& t) { return t.dim == name; });
    if (has) out.push_back(name);
  }
  return out;
}

}  // namespace

namespace {

// One dimension's share of a predictor's accuracy: its points' errors and its totals' order.
DimAccuracy dim_accuracy(PredictorAccuracy& a, const std::string& dim) {
  DimAccuracy d;
  d.dim = dim;
  std::vector<double> all, large;
  for (const auto& p : a.points) {
    if (p.point.dim != dim) continue;
    all.push_back(rel_error(p.predicted_us, p.measured_us));
    if (large_point(p)) large.push_back(all.back());
  }
  d.all = summarize_errors(all);
  d.large = summarize_errors(large);
  std::vector<TotalPrediction*> totals;
  for (auto& t : a.totals) {
    if (t.dim == dim) totals.push_back(&t);
  }
  d.order = judge_order(totals);
  return d;
}

}  // namespace

PredictionAccuracy prediction_accuracy(const results::ResultsFile& file, const Ranking& ranking, const std::vector<Predictor>& predictors,
                                       const std::optional<mapping::Workload>& workload, const ReportHardware* hardware) {
  PredictionAccuracy out;
  out.timing = ranking.timing;
  out.per_step = workload.has_value() && ranking.basis == Ranking::Basis::workload;
  const topology::ClusterTopology topo = hardware != nullptr ? hardware->topology : topology_of(file);

  int unpriced = 0, wrong = 0;
  for (std::size_t k = 0; k < predictors.size(); ++k) {
    const Predictor& pred = predictors[k];
    PredictorAccuracy a;
    a.name = pred.name;
    a.source = pred.source;
    const mapping::CostModel model(topo, pred.params);
    const FileScores scores(model, file);
    for (const auto& row : file.measurements()) {
      if (row.point.timing != ranking.timing || !(row.t_median_us > 0)) continue;
      if (row.wrong > 0) {
        wrong += k == 0 ? 1 : 0;
        continue;
      }
      const auto dim = mapping::parse_dim(row.point.dim);
      const auto op = mapping::parse_op(row.point.op);
      const auto* score = scores.find(row.point.mapping);
      if (!dim || !op || score == nullptr) continue;
      const mapping::DimShape& shape = score->of(*dim);
      const bool isolated = row.point.concurrency == "isolated";
      mapping::OpEstimate e;
      if (pred.from_library) {
        const auto it = pred.modelled.find(results::key_of(row));
        if (it == pred.modelled.end()) continue;  // an op the library does not model
        e.time_us = it->second;
      } else if (shape.group_size > 1) {
        e = model.op_estimate(shape, *op, row.point.bytes, isolated);
      }
      if (!(e.time_us > 0)) {
        unpriced += k == 0 ? 1 : 0;
        continue;
      }
      a.points.push_back({file.key_of(row), mapping::calibration_flows(shape, isolated), e.time_us, row.t_median_us, row.busbw_gbps,
                          e.algorithm, e.protocol});
    }
    a.all = summary_of(a.points, any_point);
    a.large = summary_of(a.points, large_point);
    a.concurrent_large = summary_of(a.points, concurrent_large_point);
    a.shared_large = summary_of(a.points, shared_large_point);

    if (out.per_step && pred.from_library) {
      out.notes.push_back(pred.name + "'s model prices single ops: no per-step figures for it");
    } else if (out.per_step) {
      const mapping::CostModel step_model(topo, pred.params, workload);
      workload_totals(a, FileScores(step_model, file), ranking);
    } else {
      sum_common_points(a, out.notes, k == 0);
    }
    std::vector<TotalPrediction*> steps;
    for (auto& t : a.totals) {
      if (t.dim == "step") steps.push_back(&t);
    }
    a.order = judge_order(steps);
    for (const auto& dim : dims_of(a)) a.dims.push_back(dim_accuracy(a, dim));
    out.predictors.push_back(std::move(a));
  }
  out.basis = out.per_step ? "a mapping's total is its communication time per step for the workload: the model's against the one read off "
                             "the measured curves"
                           : "a mapping's total is the sum over the (dimension, op, size) points measured concurrent for every mapping: "
                             "the predicted times against the medians, the same sizes on both sides";
  if (wrong > 0) out.notes.push_back(std::to_string(wrong) + " point(s) with wrong results are left out");
  if (unpriced > 0)
    out.notes.push_back(std::to_string(unpriced) + " point(s) of ops the model does not price on their dimension are left out");
  return out;
}

std::vector<Predictor> report_predictors(const results::ResultsFile& file, const std::string& calibration_path,
                                         const ReportHardware* hardware) {
  if (hardware != nullptr) {
    if (!file.topology_json().empty())
      throw InputError(file.path() + " keeps the topology it was measured on; leave out --node-type, --nodes and --topology");
    const int world = file.layout().world, slots = hardware->topology.slot_count();
    if (world != slots)
      throw InputError(file.path() + " ran on " + std::to_string(world) + " ranks and " + hardware->source + " has " +
                       std::to_string(slots) + " slots; give the hardware it ran on (--nodes N so that the slots are " +
                       std::to_string(world) + ")");
    // The log's ranks say which host each ran on: as many nodes, or the groups' links are wrong.
    const auto& hosts = file.run().hosts;
    const std::set<std::string> distinct(hosts.begin(), hosts.end());
    const bool known = !hosts.empty() && !distinct.contains("");
    const int nodes = hardware->topology.node_count();
    if (known && static_cast<int>(distinct.size()) != nodes)
      throw InputError(file.path() + " ran on " + std::to_string(distinct.size()) + " hosts and " + hardware->source + " has " +
                       std::to_string(nodes) + " nodes; give the hardware it ran on (--nodes " + std::to_string(distinct.size()) +
                       " with that many slots per node, or --topology FILE)");
  }
  // A file without a topology (one imported from another tool's logs) has nothing for a model
  // to price; its report leaves the accuracy out unless a calibration or its hardware is given.
  if (file.topology_json().empty() && calibration_path.empty() && hardware == nullptr) return {};
  const topology::ClusterTopology topo = hardware != nullptr ? hardware->topology : topology_of(file);
  Predictor plain{"uncalibrated", "", mapping::default_cost_params(topo), {}, false};
  std::optional<mapping::Calibration> carried;
  std::string carried_source;
  if (!file.plan_json().empty()) {
    plain.params = plan_of(file).plan.cost_model;
    plain.source = "the cost model of the plan kept in the results file";
    if (plain.params.calibration) {
      carried = plain.params.calibration;
      carried_source = "the calibration of the plan kept in the results file";
    }
  } else if (hardware != nullptr) {
    plain.source = "the default cost model of the hardware given (" + hardware->source + ")";
  } else {
    plain.source = "the topology's default cost model (the file keeps no plan)";
  }
  plain.params.calibration.reset();
  // A run (or an imported log) that states its NCCL release is priced for that release: no NVLS
  // before 2.17, for one.
  if (const auto release = recorded_nccl_release(file)) {
    plain.params.nccl_version = *release;
    plain.source += ", priced for NCCL " + nccl::version_string(*release) + " as the file records";
  }
  // A run whose NCCL_ALGO or NCCL_PROTO left NCCL fewer choices is priced with the same few.
  if (const auto restriction = recorded_nccl_restriction(file)) {
    if (restriction->allowed) {
      plain.params.nccl_allowed = *restriction->allowed;
      plain.source += ", with " + restriction->words + " as the file records";
    } else {
      plain.source += ", without the " + restriction->words + " the file records (names NCCL does not know)";
    }
  }
  // The calibration stored with the file (the probe's files, run --calibrate or --cost-model)
  // is the one the run was planned with; it goes before the plan's copy.
  if (!file.calibration_json().empty()) {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(file.calibration_json());
    } catch (const nlohmann::json::exception&) {
      throw InputError("the calibration stored in " + file.path() + " is not valid JSON; the file is damaged (or pass --cost-model FILE)");
    }
    carried = mapping::calibration_from_json(j, "stored in " + file.path());
    carried_source = "the calibration stored in the results file";
  }
  std::vector<Predictor> out{plain};
  if (!calibration_path.empty()) {
    Predictor c{"calibrated", calibration_path, mapping::load_cost_params(calibration_path, plain.params), {}, false};
    if (c.params.calibration) {
      mapping::check_calibration_topology(*c.params.calibration, topo, calibration_path);
    } else {
      c.name = "cost-model";
    }
    out.push_back(std::move(c));
  } else if (carried) {
    Predictor c{"calibrated", carried_source, plain.params, {}, false};
    mapping::check_calibration_topology(*carried, topo, carried_source);
    c.params.calibration = carried;
    out.push_back(std::move(c));
  }
  if (!file.modelled_times().empty()) {
    Predictor library{file.modelled_times().front().library,
                      "the library's own model of each op, stored per point (/modelled_times)",
                      plain.params,
                      {},
                      true};
    for (const auto& m : file.modelled_times()) library.modelled[results::key_of(m)] = m.modelled_us;
    out.push_back(std::move(library));
  }
  return out;
}

}  // namespace meshbench::analysis
