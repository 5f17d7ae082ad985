#include "bench/run/run_config.hpp"

#include "bench/sensors/nic_counters.hpp"

#include <cstdlib>

#include "common/error.hpp"
#include "common/ops/op.hpp"
#include "common/sizes.hpp"
#include "common/strings.hpp"

namespace meshbench::bench {

namespace {

// MESHBENCH_TEST_KILL_AFTER="N:RANK" (test only; read once, here): anything without a colon
// leaves it off, and each part reads as atoi reads it.
void read_test_kill(const char* spec, RunOptions& run) {
  if (spec == nullptr) return;
  const std::string text(spec);
  const auto colon = text.find(':');
  if (colon == std::string::npos) return;
  run.test_kill_after = std::atoi(text.substr(0, colon).c_str());
  run.test_kill_rank = std::atoi(text.substr(colon + 1).c_str());
}

po::options_description output_options(RunConfig& c) {
  po::options_description out("output");
  // clang-format off
  out.add_options()
      ("out,o", po::value(&c.out)->default_value(""), "results file to write (HDF5)")
      ("force", po::bool_switch(&c.force), "replace an existing --out file")
      ("resume", po::value(&c.resume)->default_value(""), "continue an interrupted run in this file, skipping completed points")
      ("no-samples", "do not keep the per-iteration samples (compare's statistical test needs them)")
      ("group-rows", po::value(&c.run.group_rows)->default_value(256),
       "per point, every group's timing is stored up to this many groups; past it this many that stand for them "
       "(the slowest quarter, the fastest, the median, even steps between); 0 keeps every group")
      ("no-doctor", "do not run the doctor's checks first (they are recorded with the results)")
      ("no-nic-counters", "do not read the hosts' NIC counters around every point (/nic_counters; docs/run.md, 'NIC counters')")
      ("counter-root", po::value(&c.counter_root)->default_value("/"),
       "read the NIC counters under this folder (its sys/class/infiniband and proc/net/dev) instead of the host's own");
  // clang-format on
  return out;
}

po::options_description measure_options(RunConfig& c) {
  const std::string ops_help = "comma-separated ops: " + ops::op_names(",") + " (default: each dimension's typical ops)";
  po::options_description plan("what to measure");
  // clang-format off
  plan.add_options()
      ("plan", po::value(&c.plan_file)->default_value(""), "plan file from 'meshbench plan --out'; otherwise planned here")
      ("tp", po::value(&c.layout.tp)->default_value(1), "tensor parallel size")
      ("cp", po::value(&c.layout.cp)->default_value(1), "context parallel size")
      ("pp", po::value(&c.layout.pp)->default_value(1), "pipeline parallel size")
      ("ep", po::value(&c.layout.ep)->default_value(1), "expert parallel size")
      ("etp", po::value(&c.layout.etp)->default_value(0), "expert tensor parallel size (0: same as --tp)")
      ("order", po::value(&c.layout.order)->default_value(mapping::kDefaultOrder), "Megatron-Core order string, first name fastest")
      ("workload", po::value(&c.workload_file)->default_value(""), "workload JSON: message sizes per step and step-time estimates")
      ("top", po::value(&c.top)->default_value(0), "measure the K best-predicted mappings (0: all)")
      ("cost-model", po::value(&c.cost_model_file)->default_value(""),
       "plan with this calibration (from 'meshbench calibrate') or cost-model file; refused when measured on another topology")
      ("calibrate", po::bool_switch(&c.calibrate),
       "probe this allocation first as 'meshbench calibrate' does (OUT.probe.*.h5, OUT.cost.json), plan with the fit, and measure "
       "the --top K predicted mappings plus the layout's own order as a baseline")
      ("mappings", po::value<std::string>()->default_value(""), "comma-separated mapping names to measure (default: all)")
      ("dims", po::value<std::string>()->default_value(""), "comma-separated dimensions to measure: tp,cp,dp,pp,ep,etp,edp (default: all non-trivial)")
      ("ops", po::value<std::string>()->default_value(""), ops_help.c_str())
      ("nccl-debug", po::value(&c.launch.nccl_debug)->default_value(""),
       "NCCL backend: capture NCCL's INFO log of every process in this folder and record which transport each dimension used")
      ("backend", po::value(&c.launch.backend)->default_value(""), "mpi | nccl (default: nccl where built and every rank has a GPU, else mpi)");
  // clang-format on
  topology::add_topology_options(plan, c.launch.topology);
  return plan;
}

po::options_description timing_options(RunConfig& c) {
  po::options_description timing("timing");
  // clang-format off
  timing.add_options()
      ("timing", po::value<std::string>()->default_value("per_iteration,batched"), "timing modes: per_iteration, batched")
      ("isolated", po::bool_switch(&c.run.isolated), "also measure each group alone, to show what contention costs")
      ("warmup,w", po::value(&c.run.policy.warmup)->default_value(5), "warm-up ops per point, never counted")
      ("min-iters", po::value(&c.run.policy.min_iters)->default_value(20), "fewest timed iterations per point")
      ("max-iters", po::value(&c.run.policy.max_iters)->default_value(2000), "most timed iterations per point")
      ("precision", po::value(&c.run.policy.precision)->default_value(0.02), "stop once the median's 95% interval is within this fraction")
      ("budget", po::value(&c.run.policy.budget_s)->default_value(1.0), "time budget per point, seconds")
      ("batch-ops", po::value(&c.run.policy.batch_ops)->default_value(20), "ops per batch (batched timing)")
      ("batches", po::value(&c.run.policy.batches)->default_value(5), "batches per point (batched timing)")
      ("no-check", "do not check results (check mode counts wrong elements after each point)")
      ("a2av-skew", po::value(&c.run.a2av_skew)->default_value(kDefaultRoutingSkew),
       "routing skew of all_to_allv's traffic: the Zipf exponent over a group's ranks (0: uniform); a --plan's own by default")
      ("rounds", po::value(&c.run.rounds)->default_value(1),
       "visits of every point, each round in a fresh shuffled order; the spread between rounds is the run's own noise (docs/run.md)")
      ("machine-state", po::value<std::string>()->default_value("on"),
       "on: probe the cores' distance around every point and measure a point again when it was worse than the run's best "
       "(docs/run.md, 'Machine state'); off: measure each point once")
      ("state-budget", po::value(&c.run.state.budget_s)->default_value(60.0),
       "seconds the whole run may spend waiting for the machine's better state and measuring again")
      ("host-copies", po::bool_switch(&c.host_copies),
       "first measure every slot's pinned host<->GPU copy bandwidth, both ways, from its GPU's NUMA node and a remote one "
       "(docs/run.md, 'Host<->GPU copies'; needs a build with CUDA)")
      ("gpu-sample-ms", po::value(&c.gpu_sample_ms)->default_value(100.0),
       "read each rank's GPU through NVML every this many milliseconds while a point is measured, and at its start and end "
       "(docs/run.md, 'GPU health'); 0: do not read the GPUs")
      ("seed", po::value(&c.run.seed)->default_value(1), "seed of the skewed traffic matrix, random mappings and the rounds' orders")
      ("random", po::value(&c.run.random_placements)->default_value(1)->value_name("N"), "random mappings among the candidates (seeds seed, seed+1, ...)")
      ("watchdog", po::value(&c.run.watchdog_base_s)->default_value(60.0), "seconds an op may take before the run ends (plus size / 50 MB/s)")
      ("watchdog-grace", po::value(&c.launch.grace_s)->default_value(10.0), "seconds a rank waits for rank 0 after its own watchdog fires")
      ("rank-time", po::value<std::string>()->default_value("max"),
       "an iteration's time over the ranks: max (the slowest rank, what a training step waits for) or avg (nccl-tests' default)")
      ("test-corrupt", po::value(&c.run.test_corrupt)->default_value(""), "test only: corrupt one result of MAPPING:DIM:OP")
      ("test-device-memory", po::value<std::string>()->default_value(""), "test only: device bytes per rank instead of the backend's free memory");
  // clang-format on
  return timing;
}

}  // namespace

po::options_description run_options_description(RunConfig& c) {
  po::options_description sizes("sizes (nccl-tests convention: bytes of the per-rank buffer; K, M, G are binary)");
  // clang-format off
  sizes.add_options()
      ("minbytes,b", po::value<std::string>()->default_value("1K"), "smallest size of the sweep")
      ("maxbytes,e", po::value<std::string>()->default_value("16M"), "largest size of the sweep")
      ("stepfactor,f", po::value<std::string>()->default_value("4"), "multiplicative step of the sweep")
      ("sizes", po::value<std::string>()->default_value(""), "explicit comma-separated sizes instead of the sweep, or 'workload' for the workload's sizes");
  // clang-format on
  po::options_description all;
  all.add(output_options(c)).add(measure_options(c)).add(sizes).add(timing_options(c));
  return all;
}

void finish_run_config(const po::variables_map& vm, RunConfig& c) {
  c.a2av_skew_given = !vm["a2av-skew"].defaulted();
  check_routing_skew(c.run.a2av_skew);
  c.run.keep_samples = vm.count("no-samples") == 0;
  c.run.check = vm.count("no-check") == 0;
  c.doctor = vm.count("no-doctor") == 0;
  c.nic_counters = vm.count("no-nic-counters") == 0;
  c.test_counter_roots = parse_test_counter_roots(std::getenv("MESHBENCH_TEST_COUNTER_ROOTS"));
  if (c.counter_root.empty()) throw InputError("--counter-root is empty; give a folder such as /");
  read_test_kill(std::getenv("MESHBENCH_TEST_KILL_AFTER"), c.run);
  c.run.state.test_readings = parse_test_readings(std::getenv("MESHBENCH_TEST_STATE_NS"));
  if (const auto& state = vm["machine-state"].as<std::string>(); state == "on" || state == "off") {
    c.run.state.enabled = state == "on";
  } else {
    throw InputError("--machine-state '" + state + "': give on or off");
  }
  if (!(c.gpu_sample_ms >= 0)) throw InputError("--gpu-sample-ms must be 0 (off) or more milliseconds");
  if (!(c.run.state.budget_s >= 0)) throw InputError("--state-budget must be 0 or more seconds");
  if (c.out.empty() && c.resume.empty()) throw InputError("no output file; give --out FILE.h5 (or --resume FILE.h5)");
  if (!c.out.empty() && !c.resume.empty() && c.out != c.resume)
    throw InputError("--out and --resume name different files; give one of them");
  if (!c.launch.backend.empty() && c.launch.backend != "mpi" && c.launch.backend != "nccl")
    throw InputError("unknown backend '" + c.launch.backend + "'; use --backend mpi or nccl");

  c.mapping_names = split_nonempty(vm["mappings"].as<std::string>(), ',');
  for (const auto& name : split_nonempty(vm["dims"].as<std::string>(), ',')) {
    const auto dim = mapping::parse_dim(name);
    if (!dim) throw InputError("unknown dimension '" + name + "' in --dims; use tp, cp, dp, pp, ep, etp, edp");
    c.run.dims.push_back(*dim);
  }
  for (const auto& name : split_nonempty(vm["ops"].as<std::string>(), ',')) {
    const auto op = mapping::parse_op(name);
    if (!op) throw InputError("unknown op '" + name + "' in --ops; use " + ops::op_names(", "));
    c.run.ops.push_back(*op);
  }
  c.run.timings.clear();
  for (const auto& name : split_nonempty(vm["timing"].as<std::string>(), ',')) {
    if (name == "per_iteration") c.run.timings.push_back(Timing::per_iteration);
    else if (name == "batched") c.run.timings.push_back(Timing::batched);
    else throw InputError("unknown timing '" + name + "'; use --timing per_iteration,batched");
  }
  if (c.run.timings.empty()) throw InputError("no timing mode; use --timing per_iteration, batched or both");
  const std::string rank_time = vm["rank-time"].as<std::string>();
  if (rank_time == "max") c.run.policy.rank_time = RankTime::max;
  else if (rank_time == "avg") c.run.policy.rank_time = RankTime::avg;
  else throw InputError("unknown --rank-time '" + rank_time + "'; use max or avg");
  if (const std::string memory = vm["test-device-memory"].as<std::string>(); !memory.empty())
    c.run.test_device_memory = parse_bytes(memory);

  const std::string sizes = vm["sizes"].as<std::string>();
  if (sizes == "workload") {
    if (c.workload_file.empty() && c.plan_file.empty())
      throw InputError("--sizes workload needs --workload FILE (or a plan with a workload)");
    c.workload_sizes = true;
  } else if (!sizes.empty()) {
    c.run.sizes = parse_size_list(sizes);
  } else {
    const auto factor = parse_bytes(vm["stepfactor"].as<std::string>());
    c.run.sizes = size_sweep(parse_bytes(vm["minbytes"].as<std::string>()), parse_bytes(vm["maxbytes"].as<std::string>()), factor);
  }
  const auto& p = c.run.policy;
  if (p.min_iters < 1 || p.max_iters < p.min_iters) throw InputError("--min-iters must be at least 1 and at most --max-iters");
  if (p.warmup < 0 || p.batch_ops < 1 || p.batches < 1) throw InputError("--warmup must be >= 0, --batch-ops and --batches >= 1");
  if (p.precision <= 0 || p.budget_s <= 0) throw InputError("--precision and --budget must be positive");
  if (c.run.watchdog_base_s <= 0 || c.launch.grace_s < 0) throw InputError("--watchdog must be positive and --watchdog-grace not negative");
  if (c.top < 0) throw InputError("--top must be 0 (all) or positive");
  if (c.run.rounds < 1 || c.run.rounds > 1000) throw InputError("--rounds must be between 1 and 1000");
  if (c.calibrate && !c.cost_model_file.empty()) throw InputError("--calibrate fits its own cost model; drop --cost-model or --calibrate");
  if ((c.calibrate || !c.cost_model_file.empty()) && !c.plan_file.empty())
    throw InputError("a plan file's mappings are already ranked; drop --plan, or plan with 'meshbench plan --cost-model'");
  if (c.calibrate && !c.resume.empty())
    throw InputError("--calibrate starts a new run; drop --resume (the calibration is stored in the file)");
}

}  // namespace meshbench::bench
