#pragma once
// Canned facts for the doctor unit tests: ranks and nodes as run_doctor would gather them.
#include <string>
#include <utility>
#include <vector>

#include "analysis/doctor/doctor_facts.hpp"

namespace meshbench::analysis::testing {

// An environment template a p5 cluster might check against (the doctor env and report tests).
inline const results::Environment kTemplateEnv = {{"FI_EFA_USE_DEVICE_RDMA", "1"},       {"FI_PROVIDER", "efa"},
                                                  {"NCCL_BUFFSIZE", "67108864"},         {"NCCL_NET_GDR_LEVEL", "PHB"},
                                                  {"NCCL_P2P_NET_CHUNKSIZE", "4194304"}, {"NCCL_PROTO", "LL128"}};

inline RankFacts rank_facts(int rank, std::string host, results::Environment env = {}) {
  RankFacts r;
  r.rank = rank;
  r.host = std::move(host);
  r.env = std::move(env);
  r.versions = {{"nccl", {"2.27.7", "/opt/nccl/lib/libnccl.so.2"}},
                {"cuda_driver", {"12.9", "/usr/lib/libcuda.so.1"}},
                {"cuda_runtime", {"12.9", "/usr/local/cuda/lib64/libcudart.so.12"}},
                {"libfabric", {"1.22", "/opt/amazon/efa/lib/libfabric.so.1"}},
                {"mpi", {"Open MPI v4.1.7", "Open MPI v4.1.7"}},
                {"hwloc", {"2.9.0", "/usr/lib/libhwloc.so.15"}}};
  return r;
}

// A p5 node: 8 GPUs, 32 EFA devices, efa RDM on every device, ENA at 9001.
inline NodeFacts p5_node(std::string host, int leader, int gpus = 8, int efa = 32) {
  NodeFacts n;
  n.host = std::move(host);
  n.leader_rank = leader;
  n.ranks = {leader};
  n.instance_type = "p5.48xlarge";
  n.pci = {gpus, efa};
  n.interfaces = {{"enp71s0", 9001, "ena"}, {"docker0", 1500, ""}};
  n.versions = {{"kernel", {"6.8.0-1021-aws", "uname"}},
                {"efa_installer", {"1.38.0", "/opt/amazon/efa_installed_packages"}},
                {"aws_ofi_nccl", {"1.16.3", "/opt/amazon/ofi-nccl/lib/libnccl-net.so"}},
                {"nvidia_driver", {"550.127.05", "/proc/driver/nvidia/version"}}};
  n.fabric.listed = true;
  for (int d = 0; d < efa; ++d) {
    n.fabric.entries.push_back({"efa", "efa", "rdmap" + std::to_string(d) + "s0-rdm", "FI_EP_RDM"});
    n.fabric.entries.push_back({"efa", "efa", "rdmap" + std::to_string(d) + "s0-dgrm", "FI_EP_DGRAM"});
  }
  n.fabric.entries.push_back({"tcp;ofi_rxm", "10.0.0.0/16", "enp71s0", "FI_EP_RDM"});
  n.gpu.source = "nvml";
  for (int g = 0; g < gpus; ++g) {
    GpuHealth h;
    h.index = g;
    h.name = "NVIDIA H100 80GB HBM3";
    h.temperature_c = 40.0 + g;
    h.power_w = 120;
    h.power_limit_w = 700;
    h.ecc_uncorrected = 0;
    h.sm_clock_mhz = 1980;
    h.max_sm_clock_mhz = 1980;
    n.gpu.gpus.push_back(h);
  }
  return n;
}

// A developer box: no GPU, no EFA, libfabric with tcp/sockets only, no NVML.
inline NodeFacts dev_box(std::string host, int leader) {
  NodeFacts n;
  n.host = std::move(host);
  n.leader_rank = leader;
  n.ranks = {leader};
  n.interfaces = {{"eth0", 1500, "virtio_net"}};
  n.versions = {{"kernel", {"6.1.0-18-amd64", "uname"}},
                {"efa_installer", {"", "/opt/amazon/efa_installed_packages missing"}},
                {"aws_ofi_nccl", {"", "no aws-ofi-nccl plugin"}},
                {"nvidia_driver", {"", "/proc/driver/nvidia/version missing"}}};
  n.fabric.listed = true;
  n.fabric.entries = {{"tcp;ofi_rxm", "10.0.0.0/16", "eth0", "FI_EP_RDM"},
                      {"sockets", "10.0.0.0/16", "eth0", "FI_EP_RDM"},
                      {"tcp", "10.0.0.0/16", "eth0", "FI_EP_MSG"}};
  n.gpu.note = "libnvidia-ml.so.1 not found and nvidia-smi is not available or failed";
  return n;
}

}  // namespace meshbench::analysis::testing
