// The NCCL backend: this rank's GPU, chosen from its slot, and one NCCL communicator per group.
#include "bench/nccl_backend.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <limits>
#include <map>
#include <sstream>

#include "bench/comm_groups.hpp"
#include "bench/device_choice.hpp"
#include "bench/src/nccl/cuda_calls.hpp"
#include "bench/src/nccl/nccl_group.hpp"
#include "bench/src/nccl_calls.hpp"
#include "bench/watchdog.hpp"
#include "common/error.hpp"
#include "common/mpi/host_comm.hpp"
#include "common/mpi/strings.hpp"

namespace meshbench::bench {

namespace {

std::string join(const std::vector<std::string>& items, char sep) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : std::string(1, sep)) + i;
  return out;
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, sep)) out.push_back(item);
  return out;
}

// One rank's device outcome as a line for the node gather: rank, chosen, visible, error.
std::string encode(const RankDevice& r) {
  return std::to_string(r.world_rank) + "\n" + r.chosen_pci + "\n" + join(r.visible_pci, ',') + "\n" + r.error;
}

RankDevice decode(const std::string& text) {
  const auto lines = split(text, '\n');
  RankDevice r;
  r.world_rank = std::stoi(lines.at(0));
  if (lines.size() > 1) r.chosen_pci = lines[1];
  if (lines.size() > 2 && !lines[2].empty()) r.visible_pci = split(lines[2], ',');
  if (lines.size() > 3) r.error = lines[3];
  return r;
}

// The lowest world rank's error, on every rank; "" when no rank has one.
std::string first_error(const std::string& mine, MPI_Comm world) {
  int rank = 0, size = 0;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  int first = mine.empty() ? size : rank;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, world);
  if (first == size) return "";
  std::string message = mine;
  mpi::broadcast_string(message, world, first);
  return message;
}

class NcclBackend final : public Backend {
 public:
  NcclBackend(MPI_Comm world, std::string device, NcclOptions options, std::vector<std::pair<std::string, std::string>> versions,
              nccl::AlltoAllFn alltoall, nccl::SimulateEndFn simulate, std::uint64_t memory_bytes)
      : world_(world),
        device_(std::move(device)),
        options_(options),
        versions_(std::move(versions)),
        alltoall_(alltoall),
        simulate_(simulate),
        memory_bytes_(memory_bytes) {
    MPI_Comm_rank(world_, &world_rank_);
  }

  std::string_view name() const override { return "nccl"; }
  std::vector<std::pair<std::string, std::string>> versions() const override { return versions_; }
  std::uint64_t device_memory_bytes() const override { return memory_bytes_; }

  // ncclCommInitRank with an id from the group's rank 0, broadcast over the group's MPI
  // communicator (nccl-tests' way), rather than ncclCommSplit of a world communicator: the
  // runner already hands every rank its group as an MPI communicator, no world NCCL
  // communicator has to live through the whole run holding connections and memory, and
  // groups of one dimension initialise independently of each other.
  std::unique_ptr<GroupComm> make_group(MPI_Comm group) override {
    const std::vector<int> members = world_ranks_of(group);
    const NcclMembership m = nccl_membership(members, world_rank_);
    OpContext context;
    context.op = "communicator init";
    context.group_world_ranks = members;
    context.world_rank = world_rank_;
    context.device = device_;

    // The id travels with its creator's status, so that a failed ncclGetUniqueId ends every
    // member rather than leaving them waiting for an id.
    struct {
      ncclUniqueId id;
      int status;
    } message{};
    if (m.rank == m.id_root) message.status = static_cast<int>(ncclGetUniqueId(&message.id));
    MPI_Bcast(&message, static_cast<int>(sizeof message), MPI_BYTE, m.id_root, group);
    if (message.status != ncclSuccess) {
      context.op += " (ncclGetUniqueId on world rank " + std::to_string(m.id_root_world) + ")";
      nccl::throw_nccl(static_cast<ncclResult_t>(message.status), nullptr, context, "ncclGetUniqueId");
    }
    ncclComm_t comm = nullptr;
    ncclResult_t res = ncclCommInitRank(&comm, m.nranks, message.id, m.rank);
    if (res == ncclInProgress) {
      // A non-blocking communicator (refused in the environment, but a site's NCCL config file
      // can ask for one too): not usable until NCCL says the init is done.
      res = nccl::await_communicator(comm, communicator_init_limit_s(options_.watchdog_base_s, m.nranks) + options_.grace_s + 30);
      if (res != ncclSuccess && comm != nullptr) ncclCommAbort(comm);
    }
    nccl::check_nccl(res, res == ncclSuccess ? comm : nullptr, context, "ncclCommInitRank");
    return std::make_unique<nccl::NcclGroup>(comm, members, world_rank_, device_, options_, alltoall_, simulate_);
  }

 private:
  std::vector<int> world_ranks_of(MPI_Comm group) const {
    int size = 0;
    MPI_Comm_size(group, &size);
    MPI_Group g = MPI_GROUP_NULL, w = MPI_GROUP_NULL;
    MPI_Comm_group(group, &g);
    MPI_Comm_group(world_, &w);
    std::vector<int> in(static_cast<std::size_t>(size)), out(static_cast<std::size_t>(size));
    for (int i = 0; i < size; ++i) in[static_cast<std::size_t>(i)] = i;
    MPI_Group_translate_ranks(g, size, in.data(), w, out.data());
    MPI_Group_free(&g);
    MPI_Group_free(&w);
    return out;
  }

  MPI_Comm world_;
  int world_rank_ = 0;
  std::string device_;
  NcclOptions options_;
  std::vector<std::pair<std::string, std::string>> versions_;
  nccl::AlltoAllFn alltoall_;
  nccl::SimulateEndFn simulate_;
  std::uint64_t memory_bytes_;
};

// Left to NCCL's own buffers (per communicator: channels x peers x NCCL_BUFFSIZE, 4 MiB by
// default, and more with NVLS) and to what CUDA allocates lazily. A round figure, not measured:
// a point that still does not fit fails with NCCL's or CUDA's out-of-memory error.
constexpr std::uint64_t kNcclReserveBytes = 2ULL << 30;

// "NVIDIA H200 x16" or "NVIDIA H100 80GB HBM3 x8, NVIDIA A100-SXM4-80GB x8": every rank's model.
std::string model_summary(const std::vector<std::string>& models) {
  std::map<std::string, int> counts;
  for (const auto& m : models) ++counts[m];
  std::string out;
  for (const auto& [model, n] : counts) out += (out.empty() ? "" : ", ") + model + " x" + std::to_string(n);
  return out;
}

}  // namespace

bool nccl_backend_built() { return true; }

std::vector<std::string> visible_gpu_pcis() {
  std::vector<std::string> out;
  const int count = local_gpu_count();
  for (int d = 0; d < count; ++d) {
    char bus[32] = {};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, d) == cudaSuccess) {
      out.push_back(normalize_pci(bus));
    } else {
      cudaGetLastError();
      out.push_back("device " + std::to_string(d));  // two ranks on one such device still compare equal
    }
  }
  return out;
}

int local_gpu_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // no driver or no device: "no GPU", and no sticky error left behind
    return 0;
  }
  return count;
}

bool every_rank_has_gpu(MPI_Comm world) {
  int yes = local_gpu_count() > 0 ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &yes, 1, MPI_INT, MPI_MIN, world);
  return yes == 1;
}

std::unique_ptr<Backend> make_nccl_backend(MPI_Comm world, const GpuSlot& slot, const NcclOptions& options) {
  int rank = 0;
  MPI_Comm_rank(world, &rank);

  DeviceRequest request;
  request.slot_index = slot.index;
  request.slot_pci = slot.pci;
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) request.visible = v;
  request.device_pci = visible_gpu_pcis();
  DeviceChoice choice = choose_device(request);
  if (const auto refusal = nccl_environment_refusal(std::getenv("NCCL_COMM_BLOCKING")); refusal && choice.ok()) {
    choice.error = *refusal;
    choice.ordinal = -1;
  }
  std::string model;
  if (choice.ok()) {
    cudaDeviceProp prop{};
    cudaError_t err = cudaSetDevice(choice.ordinal);
    if (err == cudaSuccess) err = cudaFree(nullptr);  // creates the context now, not inside the first timed op
    if (err == cudaSuccess) err = cudaGetDeviceProperties(&prop, choice.ordinal);
    if (err != cudaSuccess) {
      choice.error = std::string("cannot open CUDA device ") + std::to_string(choice.ordinal) + ": " + cudaGetErrorName(err) + " (" +
                     cudaGetErrorString(err) + ")";
      cudaGetLastError();
    } else {
      model = prop.name;
    }
  }

  RankDevice mine;
  mine.world_rank = rank;
  mine.visible_pci = request.device_pci;
  if (choice.ok()) mine.chosen_pci = request.device_pci[static_cast<std::size_t>(choice.ordinal)];
  mine.error = choice.error;

  // Two ranks on one GPU or too few GPUs show only across the node's ranks: those of this host,
  // as NCCL counts them.
  MPI_Comm node = mpi::split_by_host(world);
  std::vector<RankDevice> node_ranks;
  for (const auto& text : mpi::allgather_strings(encode(mine), node)) node_ranks.push_back(decode(text));
  MPI_Comm_free(&node);
  const std::string error = first_error(check_node_devices(mpi::this_host_name(), node_ranks), world);
  if (!error.empty()) throw InputError(error);

  const std::string device = "GPU " + std::to_string(choice.ordinal) + " (" + mine.chosen_pci + ")";
  int nccl_code = 0, driver = 0, runtime = 0;
  ncclGetVersion(&nccl_code);
  // The library loaded at run time decides, not the headers compiled against.
  void* symbol = dlsym(RTLD_DEFAULT, "ncclAlltoAll");
  const auto alltoall = native_all_to_all(nccl_code, symbol != nullptr) ? reinterpret_cast<nccl::AlltoAllFn>(symbol) : nullptr;
  void* simulate_symbol = dlsym(RTLD_DEFAULT, "ncclGroupSimulateEnd");
  const auto simulate =
      can_simulate(nccl_code, simulate_symbol != nullptr) ? reinterpret_cast<nccl::SimulateEndFn>(simulate_symbol) : nullptr;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  const std::vector<std::string> models = mpi::allgather_strings(model, world);
  std::vector<std::pair<std::string, std::string>> versions = {
      {"nccl", nccl_version_string(nccl_code)},
      {"nccl_headers", nccl_version_string(NCCL_VERSION_CODE)},
      {"cuda_driver", cuda_version_string(driver)},
      {"cuda_runtime", cuda_version_string(runtime)},
      {"gpu", model + " [" + mine.chosen_pci + "] on world rank " + std::to_string(rank)},
      {"gpu_models", model_summary(models)},
      {"nccl_all_to_all", alltoall != nullptr ? "ncclAlltoAll" : "grouped ncclSend/ncclRecv"},
      {"nccl_model", simulate != nullptr ? "ncclGroupSimulateEnd" : "none (NCCL before 2.22)"},
  };
  // Free device memory on the tightest rank, less a reserve for NCCL's communicators; a rank
  // that cannot tell sets no limit.
  std::size_t free_bytes = 0, total_bytes = 0;
  std::uint64_t usable = std::numeric_limits<std::uint64_t>::max();
  if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) {
    usable = free_bytes > kNcclReserveBytes ? free_bytes - kNcclReserveBytes : 1;
  } else {
    cudaGetLastError();
  }
  MPI_Allreduce(MPI_IN_PLACE, &usable, 1, MPI_UINT64_T, MPI_MIN, world);
  if (usable == std::numeric_limits<std::uint64_t>::max()) usable = 0;
  return std::make_unique<NcclBackend>(world, device, options, std::move(versions), alltoall, simulate, usable);
}

}  // namespace meshbench::bench
