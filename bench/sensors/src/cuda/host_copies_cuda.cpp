// run --host-copies where CUDA is found: pinned host buffers bound to one NUMA node with hwloc,
// copied to and from the slot's GPU with cudaMemcpyAsync, timed with CUDA events.
#include <cuda_runtime.h>
#include <hwloc.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "bench/sensors/host_copies.hpp"

namespace meshbench::bench {

namespace {

void check(cudaError_t rc, const std::string& what) {
  if (rc != cudaSuccess) throw std::runtime_error(what + ": " + cudaGetErrorString(rc));
}

struct Topology {
  hwloc_topology_t t = nullptr;
  Topology() {
    hwloc_topology_init(&t);
    hwloc_topology_load(t);
  }
  ~Topology() { hwloc_topology_destroy(t); }
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;
};

// hwloc's NUMA latency matrix by OS index; empty where the machine reports none.
std::vector<std::uint64_t> numa_distances(hwloc_topology_t t, int count) {
  unsigned nr = 1;
  hwloc_distances_s* d = nullptr;
  if (hwloc_distances_get_by_type(t, HWLOC_OBJ_NUMANODE, &nr, &d, HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) != 0 || nr == 0) return {};
  std::vector<std::uint64_t> out;
  if (static_cast<int>(d->nbobjs) == count) {
    out.assign(static_cast<std::size_t>(count * count), 0);
    for (unsigned i = 0; i < d->nbobjs; ++i) {
      for (unsigned j = 0; j < d->nbobjs; ++j) {
        const auto a = d->objs[i]->os_index, b = d->objs[j]->os_index;
        if (a < static_cast<unsigned>(count) && b < static_cast<unsigned>(count))
          out[a * static_cast<unsigned>(count) + b] = d->values[i * d->nbobjs + j];
      }
    }
  }
  hwloc_distances_release(t, d);
  return out;
}

// Page-aligned memory whose pages sit on one NUMA node (bound, touched, checked), pinned for DMA.
class NodeBuffer {
 public:
  NodeBuffer(hwloc_topology_t t, int numa, std::size_t bytes) : bytes_(bytes) {
    const std::string where = "a " + std::to_string(bytes >> 20) + " MiB host buffer on NUMA node " + std::to_string(numa);
    p_ = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p_ == MAP_FAILED) throw std::runtime_error("mmap of " + where + ": " + std::strerror(errno));
    hwloc_obj_t node = hwloc_get_numanode_obj_by_os_index(t, static_cast<unsigned>(numa));
    if (node == nullptr) throw std::runtime_error("hwloc knows no NUMA node " + std::to_string(numa));
    if (hwloc_set_area_membind(t, p_, bytes, node->nodeset, HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_BYNODESET | HWLOC_MEMBIND_STRICT) != 0)
      throw std::runtime_error("binding " + where + ": " + std::strerror(errno));
    std::memset(p_, 1, bytes);  // places the pages, now, on the bound node
    hwloc_nodeset_t at = hwloc_bitmap_alloc();
    const bool placed =
        hwloc_get_area_memlocation(t, p_, bytes, at, HWLOC_MEMBIND_BYNODESET) == 0 && hwloc_bitmap_isequal(at, node->nodeset);
    hwloc_bitmap_free(at);
    if (!placed) throw std::runtime_error(where + ": its pages are not all on that node (memory full there?)");
    check(cudaHostRegister(p_, bytes, cudaHostRegisterDefault), "pinning " + where);
    pinned_ = true;
  }
  ~NodeBuffer() {
    if (pinned_) cudaHostUnregister(p_);
    if (p_ != MAP_FAILED && p_ != nullptr) munmap(p_, bytes_);
  }
  NodeBuffer(const NodeBuffer&) = delete;
  NodeBuffer& operator=(const NodeBuffer&) = delete;
  void* data() const { return p_; }

 private:
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
  bool pinned_ = false;
};

struct Copier {
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  void* device = nullptr;
  explicit Copier(std::size_t bytes) {
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
    check(cudaMalloc(&device, bytes), "cudaMalloc of the copies' device buffer");
  }
  ~Copier() {
    cudaFree(device);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaStreamDestroy(stream);
  }
  Copier(const Copier&) = delete;
  Copier& operator=(const Copier&) = delete;

  double seconds(void* host, std::size_t bytes, bool to_device) const {
    check(cudaEventRecord(start, stream), "cudaEventRecord");
    check(to_device ? cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream)
                    : cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync");
    check(cudaEventRecord(stop, stream), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    return ms / 1e3;
  }
};

}  // namespace

bool host_copies_built() { return true; }

std::vector<results::HostCopyRow> measure_host_copies(const HostCopyRequest& request) {
  if (!request.bus_id.empty()) {
    int device = -1;
    check(cudaDeviceGetByPCIBusId(&device, request.bus_id.c_str()), "finding the GPU at " + request.bus_id);
    check(cudaSetDevice(device), "cudaSetDevice");
  }
  const Topology topo;
  const int count = hwloc_get_nbobjs_by_type(topo.t, HWLOC_OBJ_NUMANODE);
  const CopySources sources = copy_sources(request.gpu_numa, count, numa_distances(topo.t, count));
  if (sources.local < 0) throw std::runtime_error("the GPU's NUMA node is not known");
  const std::uint64_t largest = *std::max_element(request.sizes.begin(), request.sizes.end());
  const Copier copier(largest);
  std::vector<results::HostCopyRow> rows;
  for (const int numa : {sources.local, sources.remote}) {
    if (numa < 0) continue;
    const NodeBuffer buffer(topo.t, numa, largest);
    for (const bool to_device : {true, false}) {
      for (const std::uint64_t bytes : request.sizes) {
        copier.seconds(buffer.data(), bytes, to_device);  // warm-up: first-touch mappings, the copy engine's clocks
        std::vector<double> seconds;
        for (int i = 0; i < request.iters; ++i) seconds.push_back(copier.seconds(buffer.data(), bytes, to_device));
        rows.push_back(host_copy_row(request.host, request.rank, request.bus_id, numa, numa == sources.local, to_device, bytes, seconds));
      }
    }
  }
  return rows;
}

}  // namespace meshbench::bench
