// nccl_check: the NCCL backend's device check. Runs every op of `meshbench run` through the
// NCCL backend's GroupComm and the run's own driver (measure_concurrent: barrier, op, slowest
// rank, check mode), over one group of the whole world, and prints an nccl-tests-like table.
//
// On a one-GPU machine the world is one rank and every communicator has one rank (NCCL refuses
// two ranks of one communicator on one GPU). The collectives then still run NCCL's kernels and
// the check compares every element; send_recv, which has no neighbour in a one-rank group, is
// run as an exchange with the rank itself so that NCCL's send/receive path is exercised too.
//
//   mpirun -np N nccl_check [--sizes 4,1K,64K,1M,16M] [--gpu-index I] [--gpu-pci BUSID] [--budget S]
//   nccl_check --list-devices    # without MPI: the PCI bus id of each GPU CUDA shows, by ordinal
//
// Without --gpu-index or --gpu-pci a rank uses the CUDA device at its node-local rank, named by
// its bus id, so that any CUDA_VISIBLE_DEVICES (indexes or UUIDs) works as CUDA sees it.
//
// Exit status: 0 all points correct and both probes as expected; 1 a wrong element, a failed
// probe or an NCCL/CUDA error; 2 no usable GPU (the backend's one-line device error).
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "bench/backend_error.hpp"
#include "bench/measure.hpp"
#include "bench/nccl_backend.hpp"
#include "bench/op_spec.hpp"
#include "bench/traffic_matrix.hpp"
#include "bench/watchdog.hpp"
#include "common/error.hpp"
#include "common/sizes.hpp"

namespace mb = meshbench;
namespace bench = meshbench::bench;
using meshbench::mapping::Op;

namespace {

struct Options {
  std::vector<std::uint64_t> sizes = mb::parse_size_list("4,1K,64K,1M,16M");
  int gpu_index = -1;  // -1: the node-local rank
  std::string gpu_pci;
  double budget_s = 0.2;
  double watchdog_s = 60;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--sizes" && has_value) o.sizes = mb::parse_size_list(argv[++i]);
    else if (a == "--gpu-index" && has_value) o.gpu_index = std::atoi(argv[++i]);
    else if (a == "--gpu-pci" && has_value) o.gpu_pci = argv[++i];
    else if (a == "--budget" && has_value) o.budget_s = std::atof(argv[++i]);
    else if (a == "--watchdog" && has_value) o.watchdog_s = std::atof(argv[++i]);
    else throw mb::InputError("unknown or incomplete option '" + a + "'; see the header of tests/gpu/nccl_check.cpp");
  }
  return o;
}

int local_rank(MPI_Comm world) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int r = 0;
  MPI_Comm_rank(node, &r);
  MPI_Comm_free(&node);
  return r;
}

std::vector<std::string> hostnames(MPI_Comm world) {
  constexpr int kChars = 256;
  char mine[kChars] = {};
  ::gethostname(mine, kChars - 1);
  int size = 0;
  MPI_Comm_size(world, &size);
  std::vector<char> all(static_cast<std::size_t>(size) * kChars);
  MPI_Allgather(mine, kChars, MPI_CHAR, all.data(), kChars, MPI_CHAR, world);
  std::vector<std::string> out;
  for (int r = 0; r < size; ++r) out.emplace_back(all.data() + static_cast<std::ptrdiff_t>(r) * kChars);
  return out;
}

bench::OpLayout layout_for(Op op, std::uint64_t bytes, int rank, int n) {
  bench::TrafficMatrix matrix;
  if (op == Op::all_to_allv) matrix = bench::alltoallv_matrix(n, bytes / bench::kElementBytes, 1.0, 1);
  bench::OpLayout l = bench::op_layout(op, bytes, rank, n, op == Op::all_to_allv ? &matrix : nullptr);
  if (op == Op::send_recv && n == 1) {
    // A one-rank group has no neighbouring stage: exchange with itself (see the file header).
    l.peers = {0};
    l.recv = l.count;
  }
  return l;
}

void print_row(const bench::OpLayout& l, bench::Timing timing, const bench::PointResult& r) {
  const double algbw = r.summary.median > 0 ? static_cast<double>(l.algbw_bytes) / r.summary.median / 1e3 : 0;
  const double busbw = algbw * mb::mapping::busbw_factor(l.op, l.n);
  std::printf("  %10s %12zu %-14s %-13s %6d %11.2f %11.2f %10.3f %10.3f %7lld%s\n", mb::format_bytes(l.bytes).c_str(), l.count,
              std::string(mb::mapping::to_string(l.op)).c_str(), std::string(bench::to_string(timing)).c_str(), r.iters, r.summary.min,
              r.summary.median, algbw, busbw, static_cast<long long>(r.wrong), r.wrong != 0 ? "  <-- WRONG" : "");
  std::fflush(stdout);
}

int check_all(MPI_Comm world, const Options& o) {
  int rank = 0, size = 0;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  const bool root = rank == 0;

  const bool all_have_gpu = bench::every_rank_has_gpu(world);
  bench::GpuSlot slot;
  const int local = local_rank(world);
  slot.index = o.gpu_index >= 0 ? o.gpu_index : local;
  slot.pci = o.gpu_pci;
  if (o.gpu_index < 0 && o.gpu_pci.empty()) {
    const auto visible = bench::visible_gpu_pcis();
    if (static_cast<std::size_t>(local) < visible.size()) slot.pci = visible[static_cast<std::size_t>(local)];
  }
  bench::NcclOptions nccl_options;
  nccl_options.watchdog_base_s = o.watchdog_s;
  std::unique_ptr<bench::Backend> backend;
  try {
    backend = bench::make_nccl_backend(world, slot, nccl_options);
  } catch (const mb::InputError& e) {
    if (root) std::cerr << "nccl_check: error: " << e.what() << "\n";
    return mb::kExitBadInput;
  }

  if (root) {
    std::printf("# nccl_check: the NCCL backend of meshbench, every op with the check mode on\n");
    std::printf("# world: %d rank(s), one group of %d; float32, sum; every_rank_has_gpu: %s\n", size, size, all_have_gpu ? "yes" : "no");
    for (const auto& [name, value] : backend->versions()) std::printf("# %-16s %s\n", name.c_str(), value.c_str());
    std::printf("# %10s %12s %-14s %-13s %6s %11s %11s %10s %10s %7s\n", "size", "count", "op", "timing", "iters", "min(us)", "median(us)",
                "algbw", "busbw", "#wrong");
  }

  bench::Watchdog watchdog(world, hostnames(world), 10.0, [](const std::string& m, bool) { std::cerr << "nccl_check: " << m << "\n"; });
  MPI_Comm group_mpi = MPI_COMM_NULL;
  MPI_Comm_split(world, 0, rank, &group_mpi);
  watchdog.set_point("creating the NCCL communicator");
  watchdog.arm(bench::communicator_init_limit_s(o.watchdog_s, size));
  auto group = backend->make_group(group_mpi);
  watchdog.disarm();

  bench::PointContext ctx;
  ctx.world = world;
  ctx.group_comm = group_mpi;
  ctx.group = group.get();
  ctx.watchdog = &watchdog;
  ctx.limit_floor_s = o.watchdog_s;
  bench::TimingPolicy policy;
  policy.warmup = 2;
  policy.min_iters = 5;
  policy.max_iters = 50;
  policy.budget_s = o.budget_s;
  policy.batch_ops = 10;
  policy.batches = 3;

  std::int64_t wrong = 0;
  int points = 0;
  for (Op op : mb::mapping::kAllOps) {
    for (std::uint64_t bytes : o.sizes) {
      const bench::OpLayout layout = layout_for(op, bytes, rank, size);
      if (layout.count == 0) continue;
      ctx.op_limit_s = bench::default_op_limit_s(o.watchdog_s, layout.bytes);
      for (bench::Timing timing : {bench::Timing::per_iteration, bench::Timing::batched}) {
        watchdog.set_point(std::string(mb::mapping::to_string(op)) + " " + mb::format_bytes(layout.bytes) + " " +
                           std::string(bench::to_string(timing)));
        const auto r = bench::measure_concurrent(ctx, layout, timing, policy, true, false);
        if (root) print_row(layout, timing, r);
        wrong += r.wrong != 0 ? 1 : 0;
        ++points;
      }
    }
  }

  int failures = 0;
  // Negative control: the test-only corrupt flag must show as exactly one wrong element.
  {
    const bench::OpLayout l = layout_for(Op::all_reduce, 1024, rank, size);
    group->prepare(l);
    std::int64_t damaged = group->check(root);
    MPI_Allreduce(MPI_IN_PLACE, &damaged, 1, MPI_INT64_T, MPI_SUM, world);
    if (root)
      std::printf("# corrupt probe: %lld wrong element(s) with one damaged (expected 1): %s\n", static_cast<long long>(damaged),
                  damaged == 1 ? "OK" : "FAILED");
    if (damaged != 1) ++failures;
  }
  // Error probe: a size no GPU holds must fail as one line naming the op, size and group.
  {
    std::string message;
    try {
      group->prepare(bench::op_layout(Op::all_reduce, 1ULL << 44, rank, size));
    } catch (const bench::BackendError& e) {
      message = e.what();
    }
    const bool ok = message.find("all_reduce of 16 TiB") != std::string::npos && message.find("world ranks") != std::string::npos &&
                    message.find('\n') == std::string::npos;
    if (root) std::printf("# error probe: %s\n#   %s\n", ok ? "OK" : "FAILED", message.empty() ? "(no error raised)" : message.c_str());
    int all_ok = ok ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &all_ok, 1, MPI_INT, MPI_MIN, world);
    if (all_ok == 0) ++failures;
  }

  group.reset();  // communicator destroyed here, as the runner does after each dimension
  MPI_Comm_free(&group_mpi);
  if (root) {
    std::printf("# %d point(s); points with wrong elements: %lld; probes failed: %d  %s\n", points, static_cast<long long>(wrong), failures,
                wrong == 0 && failures == 0 ? "OK" : "FAILED");
  }
  return wrong == 0 && failures == 0 ? mb::kExitOk : mb::kExitFailure;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--list-devices") == 0) {
    const auto pcis = bench::visible_gpu_pcis();
    for (std::size_t d = 0; d < pcis.size(); ++d) std::printf("%zu %s\n", d, pcis[d].c_str());
    return mb::kExitOk;
  }
  MPI_Init(&argc, &argv);
  int status = mb::kExitOk;
  try {
    status = check_all(MPI_COMM_WORLD, parse(argc, argv));
  } catch (const mb::InputError& e) {
    std::cerr << "nccl_check: error: " << e.what() << "\n";
    MPI_Abort(MPI_COMM_WORLD, mb::kExitBadInput);
  } catch (const std::exception& e) {
    // Other ranks may wait inside NCCL or MPI for this one: end them all.
    std::cerr << "nccl_check: failed: " << e.what() << "\n";
    MPI_Abort(MPI_COMM_WORLD, mb::kExitFailure);
  }
  MPI_Finalize();
  return status;
}
