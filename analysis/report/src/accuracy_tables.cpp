// The accuracy section's console and Markdown tables: the predictors side by side.
#include <algorithm>
#include <cmath>

#include "analysis/report/src/report_tables.hpp"

namespace meshbench::analysis::detail {

namespace {

std::string percent(double fraction) { return std::isfinite(fraction) ? fixed(100.0 * fraction, 1) + "%" : "-"; }

std::string errors(const ErrorSummary& e) {
  return e.points == 0 ? "-" : percent(e.median_rel_error) + " / " + percent(e.p90_rel_error) + " (" + std::to_string(e.points) + ")";
}

std::string rho(double r) { return std::isfinite(r) ? fixed(r, 2) : "-"; }

}  // namespace

Table accuracy_summary_table(const PredictionAccuracy& a) {
  std::vector<std::string> headers{"accuracy"};
  for (const auto& p : a.predictors) headers.push_back(">" + p.name);
  Table t(headers);
  const auto row = [&](const std::string& what, auto cell) {
    std::vector<std::string> r{what};
    for (const auto& p : a.predictors) r.push_back(cell(p));
    t.add(r);
  };
  row("error per point, all sizes", [](const PredictorAccuracy& p) { return errors(p.all); });
  row("error per point, >= 64 KiB", [](const PredictorAccuracy& p) { return errors(p.large); });
  row("error per point, concurrent >= 64 KiB", [](const PredictorAccuracy& p) { return errors(p.concurrent_large); });
  row("error per point, flows sharing a NIC or uplink, >= 64 KiB", [](const PredictorAccuracy& p) { return errors(p.shared_large); });
  row("error of the mapping totals", [](const PredictorAccuracy& p) { return errors(p.order.error); });
  row("Spearman over mappings", [](const PredictorAccuracy& p) { return rho(p.order.spearman); });
  row("regret (measured time of the predicted best / the best - 1)", [](const PredictorAccuracy& p) { return percent(p.order.regret); });
  row("predicted best (measured best: " + (a.predictors.empty() ? std::string("-") : a.predictors.front().order.measured_best) + ")",
      [](const PredictorAccuracy& p) {
        if (p.order.predicted_best.empty()) return std::string("-");
        const int ties = p.order.predicted_best_ties;
        return p.order.predicted_best + (ties > 0 ? " (tied with " + std::to_string(ties) + " more)" : "");
      });
  return t;
}

Table accuracy_dims_table(const PredictionAccuracy& a) {
  Table t({"dim", "predictor", ">points: median / p90 (n)", ">>= 64 KiB", ">mapping totals", ">Spearman", ">regret"});
  for (const auto& p : a.predictors) {
    for (const auto& d : p.dims) {
      t.add({d.dim, p.name, errors(d.all), errors(d.large), errors(d.order.error), rho(d.order.spearman), percent(d.order.regret)});
    }
  }
  return t;
}

Table accuracy_mappings_table(const PredictionAccuracy& a) {
  std::vector<std::string> headers{"mapping", ">measured us", ">measured rank"};
  for (const auto& p : a.predictors) {
    headers.push_back(">" + p.name + " us");
    headers.push_back(">rank");
  }
  Table t(headers);
  if (a.predictors.empty()) return t;
  // One row per mapping in measured order; each predictor's figure beside it.
  std::vector<const TotalPrediction*> order;
  for (const auto& s : a.predictors.front().totals) {
    if (s.dim == "step") order.push_back(&s);
  }
  std::stable_sort(order.begin(), order.end(), [](const auto* x, const auto* y) { return x->measured_rank < y->measured_rank; });
  for (const auto* s : order) {
    std::vector<std::string> r{s->mapping, sig3(s->measured_us), rank_text(s->measured_rank)};
    for (const auto& p : a.predictors) {
      const TotalPrediction* mine = nullptr;
      for (const auto& x : p.totals) {
        if (x.dim == "step" && x.mapping == s->mapping) mine = &x;
      }
      r.push_back(mine != nullptr ? sig3(mine->predicted_us) : "-");
      r.push_back(mine != nullptr ? rank_text(mine->predicted_rank) : "-");
    }
    t.add(r);
  }
  return t;
}

}  // namespace meshbench::analysis::detail
