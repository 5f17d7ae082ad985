#include "explore_measured.hpp"

#include <fstream>

#include "common/error.hpp"
#include "mapping/training_log.hpp"

namespace meshbench::mapping {

MeasuredRun measured_run_of(const ExploreOptions& o, const TrainingSettings& settings, const Workload& w, int world) {
  std::ifstream in(o.measured, std::ios::binary);
  if (!in) throw InputError("cannot read --measured log '" + o.measured + "'; give the path of a Megatron-LM training log");
  const TrainingLog log = parse_megatron_log(in, o.measured);
  const LoggedJob job = logged_job(log);
  const std::string where = "--measured log '" + o.measured + "'";
  if (job.world && *job.world != world) {
    throw InputError(where + " ran on " + std::to_string(*job.world) + " GPUs, this cluster has " + std::to_string(world) +
                     "; give the topology (--nodes) the log ran on");
  }
  if (job.layers && *job.layers != w.layers) {
    throw InputError(where + " trained " + std::to_string(*job.layers) + " layers, --workload has " + std::to_string(w.layers) +
                     "; give the model the log trained");
  }
  MeasuredRun run;
  run.source = "'" + o.measured + "'";
  if (!o.measured_layout.empty()) {
    run.layout = parse_measured_layout(o.measured_layout, world);
    const Layout& l = run.layout.layout;
    for (const auto& [name, logged, given] :
         {std::tuple{"TP", job.tp, l.tp}, std::tuple{"PP", job.pp, l.pp}, std::tuple{"CP", job.cp, l.cp}, std::tuple{"EP", job.ep, l.ep},
          std::tuple{"ETP", job.etp, l.expert_tp()}, std::tuple{"VPP", job.vpp, run.layout.vpp}}) {
      if (logged && *logged != given) {
        throw InputError(where + " states " + name + " " + std::to_string(*logged) + ", --measured-layout gives " + std::to_string(given) +
                         "; drop --measured-layout (the log's arguments say the layout) or correct it");
      }
    }
  } else {
    if (!job.tp || !job.pp) {
      throw InputError(where + " prints no arguments block to give its layout; pass --measured-layout tp=N,pp=N,ep=N,... as it ran");
    }
    run.layout.layout.world = world;
    run.layout.layout.tp = *job.tp;
    run.layout.layout.pp = *job.pp;
    run.layout.layout.cp = job.cp.value_or(1);
    run.layout.layout.ep = job.ep.value_or(1);
    run.layout.layout.etp = job.etp.value_or(*job.tp);
    run.layout.vpp = job.vpp.value_or(1);
  }
  run.settings = settings;
  if (job.micro_batch) run.settings.micro_batch = *job.micro_batch;
  if (job.global_batch) run.settings.global_batch = *job.global_batch;
  if (job.precision) run.settings.precision = *job.precision == "fp8" ? "fp8" : "bf16";
  if (job.recompute) run.settings.recompute = *job.recompute;
  if (job.distributed_optimizer) run.settings.distributed_optimizer = *job.distributed_optimizer;
  run.seq_len = job.seq_len.value_or(0);
  run.step_ms = measured_step(log).step_ms;
  return run;
}

}  // namespace meshbench::mapping
