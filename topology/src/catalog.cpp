// The node-type catalog: data only. Every fact carries its source; facts that no public page
// found during this work confirmed are marked "not confirmed" beside them.
//
// Sources referred to below:
//  [aws-p4d-blog]  AWS Compute Blog, "Amazon EC2 P4d instances deep dive" (2020),
//                  https://aws.amazon.com/blogs/compute/amazon-ec2-p4d-instances-deep-dive/ :
//                  2x Intel Cascade Lake 8275CL, 8x A100 40 GB with NVSwitch, 400 Gbps EFA.
//  [aws-ofi-nccl]  aws/aws-ofi-nccl topology/p4d-24xl-topo.xml, p4de-24xl-topo.xml,
//                  p5.48xl-topo.xml (v1.15.0), g5.48xl-topo.xml: PCIe layout, NUMA split,
//                  GPU device ids (10de:20b0 / 10de:20b2), Intel family 6 model 85, link speeds.
//  [aws-efa-p5]    AWS EC2 User Guide, "Maximize network bandwidth ... multiple network cards",
//                  section "EFA configuration for P5 and P5e instances",
//                  https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-acc-inst-types.html :
//                  32 EFA devices for P5/P5e.
//  [awsome-hc]     aws-samples/awsome-distributed-training, gpu-cluster-healthcheck
//                  instance-profiles.conf: GPUs|EFA devices per type (p5 8|32, p5en 8|16,
//                  p6-b200 8|8, p4d 8|4), NVLink present.
//  [aws-g5]        AWS EC2 User Guide, accelerated computing instances, "G5 instances":
//                  up to 8 A10G, second generation AMD EPYC, up to 100 Gbps,
//                  https://docs.aws.amazon.com/AWSEC2/latest/WindowsGuide/accelerated-computing-instances.html
//  [dstack-4110]   dstackai/dstack PR #4110 "Add AWS p5en.48xlarge (8:H200 + Sapphire Rapids)".
//  [nv-hgx-h100]   NVIDIA Technical Blog, "Introducing NVIDIA HGX H100": 8 H100, 4 NVSwitch,
//                  every GPU to all four NVSwitches, 900 GB/s NVLink.
//  [nv-basepod]    NVIDIA DGX BasePOD reference architecture, "Core Components",
//                  https://docs.nvidia.com/dgx-basepod/reference-architecture-infrastructure-foundation-enterprise-ai/latest/core-components.html
//                  : DGX H100: 8 Hopper GPUs, 4 NVSwitch, 2x Xeon Platinum 8480C, PCIe 5.0, 8 single-port ConnectX-7 up to 400 Gb/s
//                  InfiniBand.
//  [nv-dgx-ug]     NVIDIA DGX H100 User Guide, 1.2.3 "Network Modules", Table 6: ConnectX-7
//                  CX0..CX3 of network module 0 (CPU 0) serve GPUs 0-3, module 1 (CPU 1)
//                  GPUs 4-7, one per GPU.
//  [nv-mig]        NVIDIA MIG User Guide, "Supported GPUs": compute capability A100 8.0,
//                  H100/H200 9.0, B200 10.0.
//  [nccl-topo]     topology-formats.md §4 (NCCL src/graph/topo.h): A100 12 NVLinks, H100 and
//                  B200 18; PCI bandwidth = width x speed / 80.
#include <algorithm>
#include <cctype>

#include "common/error.hpp"
#include "common/strings.hpp"
#include "topology/catalog.hpp"

namespace meshbench::topology {

namespace {

// `switches` PCIe switches per NUMA node, each with the same GPUs and NICs.
std::vector<DeviceGroup> per_switch(int numa_nodes, int switches, int gpus, int nics) {
  std::vector<DeviceGroup> groups;
  for (int n = 0; n < numa_nodes; ++n) {
    for (int s = 0; s < switches; ++s) groups.push_back({n, true, gpus, nics});
  }
  return groups;
}

constexpr int kIntelFamily = 6;
constexpr int kCascadeLake = 85;      // 0x55, NCCL's SKL class: 10 GB/s between sockets
constexpr int kSapphireRapids = 143;  // 0x8F, NCCL's SRP class: 22 GB/s
constexpr int kEmeraldRapids = 207;   // 0xCF, NCCL's ERP class: 40 GB/s

std::vector<NodeType> build_catalog() {
  std::vector<NodeType> c;

  // p4d.24xlarge. GPUs, EFA bandwidth, CPU: [aws-p4d-blog]. 4 EFA NICs: [awsome-hc]
  // (100 Gbps each = 400/4). Two GPUs and one EFA per PCIe switch, two switches per
  // socket, 8 GT/s x16 links (12 GB/s to NCCL): [aws-ofi-nccl]. 12 NVLinks per A100:
  // [nccl-topo]. sm 80: [nv-mig].
  c.push_back({"p4d.24xlarge", "NVIDIA A100-SXM4-40GB", 8, 80, 12, NicKind::efa, 4, 100, 12.0, "GenuineIntel", kIntelFamily, kCascadeLake,
               "Intel Xeon Platinum 8275CL", 2, per_switch(2, 2, 2, 1), "aws-p4d-blog, aws-ofi-nccl p4d-24xl-topo.xml"});

  // p4de.24xlarge: the p4d layout with A100 80 GB (device 10de:20b2 in [aws-ofi-nccl]
  // p4de-24xl-topo.xml, otherwise identical to the p4d file). CPU and EFA as p4d: not
  // confirmed by an AWS page found here.
  c.push_back({"p4de.24xlarge", "NVIDIA A100-SXM4-80GB", 8, 80, 12, NicKind::efa, 4, 100, 12.0, "GenuineIntel", kIntelFamily, kCascadeLake,
               "Intel Xeon Platinum 8275CL", 2, per_switch(2, 2, 2, 1), "aws-ofi-nccl p4de-24xl-topo.xml"});

  // p5.48xlarge: 32 EFA [aws-efa-p5], [awsome-hc]; 4 EFA per GPU switch, 4 switches per
  // socket, 32 GT/s x16 (48 GB/s): [aws-ofi-nccl] p5.48xl-topo.xml. 100 Gbps per EFA
  // (3200 Gbps in all): not confirmed by an AWS page found here. H100 with 4 NVSwitches,
  // 18 NVLinks: [nv-hgx-h100], [nccl-topo]. sm 90: [nv-mig]. CPU AMD EPYC 7R13 (3rd gen):
  // not confirmed (vendor AMD is what NCCL's bandwidth rule needs).
  c.push_back({"p5.48xlarge", "NVIDIA H100 80GB HBM3", 8, 90, 18, NicKind::efa, 32, 100, 48.0, "AuthenticAMD", -1, -1, "AMD EPYC 7R13", 2,
               per_switch(2, 4, 1, 4), "aws-efa-p5, aws-ofi-nccl p5.48xl-topo.xml, nv-hgx-h100"});

  // p5e.48xlarge: H200 (141 GB) on the P5 platform; 32 EFA [aws-efa-p5] (documented
  // together with P5). Layout, 100 Gbps per EFA and CPU as p5: not confirmed.
  c.push_back({"p5e.48xlarge", "NVIDIA H200", 8, 90, 18, NicKind::efa, 32, 100, 48.0, "AuthenticAMD", -1, -1, "AMD EPYC 7R13", 2,
               per_switch(2, 4, 1, 4), "aws-efa-p5 (P5 and P5e), nv-mig"});

  // p5en.48xlarge: H200 with Intel Sapphire Rapids [dstack-4110]; 16 EFA [awsome-hc].
  // 200 Gbps per EFA (3200 Gbps in all), two EFA per GPU switch, PCIe Gen5: not confirmed.
  c.push_back({"p5en.48xlarge", "NVIDIA H200", 8, 90, 18, NicKind::efa, 16, 200, 48.0, "GenuineIntel", kIntelFamily, kSapphireRapids,
               "Intel Xeon Sapphire Rapids", 2, per_switch(2, 4, 1, 2), "awsome-hc, dstack-4110"});

  // p6-b200.48xlarge: B200 (sm 100 [nv-mig]), 18 NVLink 5 links [nccl-topo]; 8 EFA
  // [awsome-hc]. 400 Gbps per EFA, one per GPU switch, Intel Emerald Rapids CPU: not confirmed.
  c.push_back({"p6-b200.48xlarge", "NVIDIA B200", 8, 100, 18, NicKind::efa, 8, 400, 48.0, "GenuineIntel", kIntelFamily, kEmeraldRapids,
               "Intel Xeon Emerald Rapids", 2, per_switch(2, 4, 1, 1), "awsome-hc, nv-mig"});

  // g5.48xlarge: 8 A10G, second generation AMD EPYC, up to 100 Gbps [aws-g5]; four GPUs
  // directly on each socket [aws-ofi-nccl] g5.48xl-topo.xml; no NVLink (PCIe only).
  // One EFA NIC on socket 0, sm 86, PCIe Gen4 x16 (24 GB/s): not confirmed.
  c.push_back({"g5.48xlarge",
               "NVIDIA A10G",
               8,
               86,
               0,
               NicKind::efa,
               1,
               100,
               24.0,
               "AuthenticAMD",
               -1,
               -1,
               "AMD EPYC 7R32",
               2,
               {{0, false, 4, 1}, {1, false, 4, 0}},
               "aws-g5, aws-ofi-nccl g5.48xl-topo.xml"});

  // NVIDIA DGX H100: [nv-basepod] (GPUs, 4 NVSwitch, 2x Xeon 8480C Sapphire Rapids,
  // 8x ConnectX-7 400 Gb/s), [nv-dgx-ug] (one ConnectX-7 per GPU, GPUs 0-3 on CPU 0,
  // 4-7 on CPU 1). The storage/management ConnectX-7 ports are left out: they are not
  // the compute fabric. That GPU and NIC share a PCIe switch: not confirmed.
  c.push_back({"dgx-h100", "NVIDIA H100 80GB HBM3", 8, 90, 18, NicKind::ib, 8, 400, 48.0, "GenuineIntel", kIntelFamily, kSapphireRapids,
               "Intel Xeon Platinum 8480C", 2, per_switch(2, 4, 1, 1), "nv-basepod, nv-dgx-ug"});
  return c;
}

}  // namespace

const std::vector<NodeType>& node_types() {
  static const std::vector<NodeType> catalog = build_catalog();
  return catalog;
}

std::vector<std::string> node_type_names() {
  std::vector<std::string> names;
  for (const auto& t : node_types()) names.push_back(t.name);
  return names;
}

const NodeType& find_node_type(std::string_view name) {
  for (const auto& t : node_types()) {
    if (lower(t.name) == lower(name)) return t;
  }
  throw InputError("unknown node type '" + std::string(name) + "'; known node types: " + join(node_type_names(), ", "));
}

}  // namespace meshbench::topology
