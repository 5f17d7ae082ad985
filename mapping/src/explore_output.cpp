#include "explore_output.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "common/strings.hpp"

namespace meshbench::mapping {

namespace {

double gib(double bytes) { return bytes / kBytesPerGiB; }
double ms(double us) { return us / 1000.0; }

std::string settings_line(const TrainingSettings& s, const Workload& w) {
  std::string out = s.precision + " GEMMs at " + fixed(100 * s.compute_efficiency, 0) + "% of peak, " +
                    (s.distributed_optimizer ? "distributed optimizer" : "optimizer state on every DP rank") +
                    (s.precision_aware_optimizer ? " (bf16 moments)" : " (fp32 moments)") + ", " +
                    (s.sequence_parallel ? "sequence parallel with TP" : "no sequence parallelism") + ", " + to_string(s.recompute) +
                    " recompute, micro-batch " + std::to_string(s.micro_batch) + ", global batch " + std::to_string(s.global_batch) +
                    ", sequence " + std::to_string(w.seq_len);
  if (w.experts > 1) {
    out += ", routing skew " + fixed(s.routing_skew, 2) + (s.ep_overlap ? ", EP all-to-all overlapped" : ", EP all-to-all exposed");
  }
  if (s.comm_overlap > 0) out += ", " + fixed(100 * s.comm_overlap, 0) + "% of the exposed communication hidden";
  return out;
}

// A dense model's layout has no expert dimensions to print.
std::string sizes(const LayoutEstimate& e, bool dense) {
  const Layout& l = e.layout.layout;
  std::ostringstream s;
  s << "TP" << l.tp << " CP" << l.cp << " PP" << l.pp;
  if (e.layout.vpp > 1) s << "x" << e.layout.vpp;
  if (!dense) s << " EP" << l.ep << " ETP" << l.expert_tp();
  s << " DP" << l.dp();
  if (!dense) s << " EDP" << l.edp();
  return s.str();
}

nlohmann::ordered_json memory_terms(const StageMemory& m) {
  return {{"stage", m.stage},
          {"layers", m.layers},
          {"parameters", m.parameters},
          {"weights_gib", gib(m.weights)},
          {"gradients_gib", gib(m.gradients)},
          {"optimizer_gib", gib(m.optimizer)},
          {"activations_gib", gib(m.activations)},
          {"allowance_gib", gib(m.allowance)},
          {"total_gib", gib(m.total())}};
}

// The index in `ranked` of the best layout of each EP size, by EP size.
std::map<int, std::size_t> best_by_ep(const ExploreResult& r) {
  std::map<int, std::size_t> out;
  for (std::size_t i = 0; i < r.ranked.size(); ++i) out.emplace(r.ranked[i].layout.layout.ep, i);
  return out;
}

// Which constants the measured run moved and by how much.
std::string fit_text(const MeasuredFit& f, const std::string& source) {
  auto moved = [](double before, double after) {
    if (before == after) return std::string(" (unchanged)");
    return before > 0 ? " (" + std::string(after >= before ? "+" : "") + fixed(100 * (after / before - 1), 0) + "%)" : std::string();
  };
  std::string out = "measured: " + source + " " + fixed(f.measured_ms, 0) + " ms per step; explore's estimate of that layout " +
                    fixed(f.before_ms, 0) + " ms before the fit, " + fixed(f.after_ms, 0) + " ms after\n";
  out += "  fitted: compute efficiency " + fixed(f.efficiency_before, 3) + " -> " + fixed(f.efficiency_after, 3) +
         moved(f.efficiency_before, f.efficiency_after) + ", communication hidden " + fixed(f.overlap_before, 3) + " -> " +
         fixed(f.overlap_after, 3) + moved(f.overlap_before, f.overlap_after) + "\n";
  for (const auto& n : f.notes) out += "  note: " + n + "\n";
  return out;
}

}  // namespace

nlohmann::ordered_json layout_json(const LayoutEstimate& e, const TrainingSettings& s) {
  const Layout& l = e.layout.layout;
  nlohmann::ordered_json j;
  j["tp"] = l.tp;
  j["cp"] = l.cp;
  j["pp"] = l.pp;
  j["vpp"] = e.layout.vpp;
  j["ep"] = l.ep;
  j["etp"] = l.expert_tp();
  j["dp"] = l.dp();
  j["edp"] = l.edp();
  j["fits"] = e.fits;
  j["stage_layers"] = e.split.stage_layers;
  j["micro_batches"] = e.micro_batches;
  j["memory"] = {{"minimum", memory_terms(e.memory.minimum)},
                 {"typical", memory_terms(e.memory.typical)},
                 {"maximum", memory_terms(e.memory.maximum)}};
  if (e.fits) {
    nlohmann::ordered_json comm;
    for (Dim d : kAllDims) {
      const double us = e.comm.dim_us[static_cast<std::size_t>(d)];
      if (us > 0) comm[std::string(to_string(d))] = ms(us);
    }
    j["time_ms"] = {{"compute", ms(e.compute_us)},
                    {"bubble", ms(e.bubble_us)},
                    {"comm_exposed", ms(e.comm.exposed_us)},
                    {"comm_overlapped", ms(e.comm.overlapped_us)},
                    {"step", ms(e.step_us)},
                    {"comm_by_dim", comm}};
    j["tokens_per_s"] = e.tokens_per_s;
    j["mfu"] = e.mfu;
    j["routing_imbalance"] = e.imbalance;
    j["placement"] = e.comm.placement;
    j["placement_searched"] = e.comm.planned;
    j["order"] = l.order;
    j["megatron_args"] = megatron_layout_args(e, s);
  }
  return j;
}

nlohmann::ordered_json explore_json(const ExploreResult& r, const ExploreReportContext& c) {
  nlohmann::ordered_json j;
  j["model"] = c.workload->name.empty() ? c.model_source : c.workload->name;
  j["world"] = c.topology->slot_count();
  j["gpu"] = {{"model", c.hardware->gpu_model},
              {"memory_gib", c.hardware->memory_gib},
              {"bf16_tflops", c.hardware->bf16_tflops},
              {"fp8_tflops", c.hardware->fp8_tflops},
              {"per_node", c.hardware->gpus_per_node}};
  const TrainingSettings& s = *c.settings;
  j["settings"] = {{"micro_batch", s.micro_batch},
                   {"global_batch", s.global_batch},
                   {"recompute", to_string(s.recompute)},
                   {"distributed_optimizer", s.distributed_optimizer},
                   {"bf16_moments", s.precision_aware_optimizer},
                   {"sequence_parallel", s.sequence_parallel},
                   {"precision", s.precision},
                   {"efficiency", s.compute_efficiency},
                   {"a2av_skew", s.routing_skew},
                   {"ep_overlap", s.ep_overlap},
                   {"comm_overlap", s.comm_overlap},
                   {"allowance_gib", s.allowance_gib},
                   {"fragmentation", s.fragmentation}};
  if (c.fit) {
    j["measured"] = {{"log", c.measured_source},
                     {"step_ms", c.fit->measured_ms},
                     {"estimate_before_ms", c.fit->before_ms},
                     {"estimate_after_ms", c.fit->after_ms},
                     {"efficiency_before", c.fit->efficiency_before},
                     {"efficiency_after", c.fit->efficiency_after},
                     {"comm_overlap_before", c.fit->overlap_before},
                     {"comm_overlap_after", c.fit->overlap_after},
                     {"memory_estimate_gib", c.fit->memory_estimate_gib},
                     {"fits", c.fit->fits},
                     {"notes", c.fit->notes}};
  }
  j["candidates"] = r.candidates;
  j["rejected_by_rule"] = r.rejected_by_rule;
  j["model_flops_per_token"] = r.model_flops_per_token;
  auto layouts = nlohmann::ordered_json::array();
  int rank = 0;
  for (const auto& e : r.ranked) {
    auto one = layout_json(e, s);
    one["rank"] = ++rank;
    layouts.push_back(std::move(one));
  }
  for (const auto& e : r.too_big) layouts.push_back(layout_json(e, s));
  j["layouts"] = std::move(layouts);
  nlohmann::ordered_json by_ep = nlohmann::ordered_json::object();
  for (const auto& [ep, index] : best_by_ep(r)) by_ep[std::to_string(ep)] = index + 1;
  j["best_rank_by_ep"] = std::move(by_ep);
  return j;
}

std::string explore_text(const ExploreResult& r, const ExploreReportContext& c, int top) {
  std::ostringstream out;
  const Workload& w = *c.workload;
  const ExploreHardware& hw = *c.hardware;
  const bool dense = w.experts <= 1;
  out << "explore: " << (w.name.empty() ? c.model_source : w.name) << " on " << c.topology->node_count() << " node(s), "
      << c.topology->slot_count() << " x " << (hw.gpu_model.empty() ? "slot" : hw.gpu_model) << " (" << fixed(hw.memory_gib, 1) << " GiB, "
      << fixed(hw.bf16_tflops, hw.bf16_tflops < 10 ? 2 : 0) << " TFLOPS bf16)\n";
  out << "settings: " << settings_line(*c.settings, w) << "\n";
  for (const auto& note : c.notes) out << "note: " << note << "\n";
  if (c.fit) out << fit_text(*c.fit, c.measured_source);
  int valid = static_cast<int>(r.ranked.size() + r.too_big.size());
  out << r.candidates << " size combinations, " << valid << " valid, " << r.ranked.size() << " fit; memory is the most-loaded stage"
      << (c.settings->routing_skew > 0 ? " under the routing skew" : "") << ", allowance " << fixed(c.settings->allowance_gib, 1)
      << " GiB + " << fixed(100 * c.settings->fragmentation, 0) << "% of activations\n\n";
  out << "rank  layout                                   mem GiB min/typ/max   compute  bubble  comm exp (hid)   step ms  tokens/s   MFU  "
         "placement\n";
  const std::size_t rows = top == 0 ? r.ranked.size() : std::min<std::size_t>(r.ranked.size(), static_cast<std::size_t>(top));
  for (std::size_t i = 0; i < rows; ++i) {
    const auto& e = r.ranked[i];
    char line[400];
    std::snprintf(line, sizeof line, "%4zu  %-40s %5.1f/%5.1f/%5.1f  %8.0f %7.0f %8.0f (%5.0f) %9.0f %9.0f %4.0f%%  %s%s\n", i + 1,
                  sizes(e, dense).c_str(), gib(e.memory.minimum.total()), gib(e.memory.typical.total()), gib(e.memory.maximum.total()),
                  ms(e.compute_us), ms(e.bubble_us), ms(e.comm.exposed_us), ms(e.comm.overlapped_us), ms(e.step_us), e.tokens_per_s,
                  100 * e.mfu, e.comm.placement.c_str(), e.comm.planned ? "" : " (not searched)");
    out << line;
  }
  if (rows < r.ranked.size()) out << "  ... " << r.ranked.size() - rows << " more that fit (--top 0 lists all)\n";
  // The guide's question (EP 8 or EP 16?) in one place: the best layout of each EP size.
  const auto by_ep = best_by_ep(r);
  if (by_ep.size() > 1) {
    out << "\nbest of each EP size:\n";
    for (const auto& [ep, index] : by_ep) {
      const auto& e = r.ranked[index];
      out << "  EP" << ep << ": rank " << index + 1 << ", " << sizes(e, dense) << ", step " << fixed(ms(e.step_us), 0) << " ms ("
          << fixed(100.0 * (e.step_us / r.ranked.front().step_us - 1), 1) << "% over the best), EP all-to-all "
          << fixed(ms(e.comm.dim_us[static_cast<std::size_t>(Dim::ep)] * e.imbalance), 0) << " ms, busiest rank " << fixed(e.imbalance, 2)
          << "x the mean, memory " << fixed(gib(e.memory.maximum.total()), 1) << " GiB\n";
    }
  }
  out << "\nrejected:";
  if (r.rejected_by_rule.empty()) out << " none";
  out << "\n";
  for (const auto& [rule, n] : r.rejected_by_rule) out << "  " << n << "  " << rule << "\n";
  if (!r.too_big.empty()) {
    const auto& e = r.too_big.front();
    out << "  smallest that does not fit: " << sizes(e, dense) << " needs " << fixed(gib(e.memory.maximum.total()), 1) << " GiB on stage "
        << e.memory.maximum.stage << "\n";
  }
  const auto& best = r.ranked.front();
  const StageMemory& m = best.memory.maximum;
  out << "\nbest: " << sizes(best, dense) << ", " << best.micro_batches << " micro-batches, layers per stage "
      << join(best.split.stage_layers, " ", [](int v) { return std::to_string(v); }) << "\n  memory (stage " << m.stage << "): weights "
      << fixed(gib(m.weights), 1) << " + gradients " << fixed(gib(m.gradients), 1) << " + optimizer " << fixed(gib(m.optimizer), 1)
      << " + activations " << fixed(gib(m.activations), 1) << " + allowance " << fixed(gib(m.allowance), 1) << " = "
      << fixed(gib(m.total()), 1) << " GiB of " << fixed(hw.memory_gib, 1) << "\n";
  if (w.experts > 1 && best.layout.layout.ep > 1) {
    out << "  routing imbalance at EP" << best.layout.layout.ep << ": busiest rank " << fixed(best.imbalance, 2) << "x the mean\n";
  }
  out << "  megatron: " << megatron_layout_args(best, *c.settings) << "\n";
  return out.str();
}

}  // namespace meshbench::mapping
