// The α-β cost model with contention (docs/mapping.md, "Cost model"; mapping-anchors.md §6).
// All groups of a dimension run at once: a ring's inter-node bandwidth at a node is the sum,
// over the NICs its local members reach, of each NIC's bandwidth divided by the number of the
// dimension's groups using it; an all-to-all is bounded by the node's egress summed over all
// groups, over all of the node's NICs. Scoring is linear in the world size: each group is sorted
// by slot so that its members on one node form a run.
#include "mapping/cost_model.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <map>

#include "common/error.hpp"

namespace meshbench::mapping {

using topology::LinkClass;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// GB/s -> microseconds per byte.
double us_per_byte(double gbps) { return gbps > 0 && gbps < kInf ? 1.0 / (gbps * 1e3) : 0.0; }

// Keeps the profiles no other profile beats on both terms: the slowest group for any size is
// among them.
void add_profile(std::vector<Profile>& front, Profile p) {
  for (const auto& q : front) {
    if (q.alpha_us >= p.alpha_us && q.us_per_byte >= p.us_per_byte) return;
  }
  std::erase_if(front, [&p](const Profile& q) { return p.alpha_us >= q.alpha_us && p.us_per_byte >= q.us_per_byte; });
  front.push_back(p);
}

// Paths that leave a PCIe switch without NVLink share the switch's uplink.
bool crosses_pcie_uplink(LinkClass c) { return c == LinkClass::PXB || c == LinkClass::PHB || c == LinkClass::SYS; }

double ring_steps(Op op, int n) { return op == Op::all_reduce ? 2.0 * (n - 1) : n - 1.0; }

}  // namespace

struct CostModel::Fabric {
  struct NodeLayout {
    int slots = 0;
    std::vector<std::uint64_t> rail;  // per slot: bit i = the node's NIC i
    std::vector<double> nic_gbps;     // per NIC (one virtual NIC where the node lists none)
    double node_gbps = 0;
    std::vector<LinkClass> link;      // slots × slots
    std::vector<double> link_gbps;    // slots × slots, from the class parameters
    std::vector<int> pcie_switch;     // per slot: dense switch id, -1 unknown
    int switches = 0;
  };
  int slots = 0;
  std::vector<int> node_of, local_of, first_slot, layout_of;
  std::vector<int> nic_base, switch_base;
  std::vector<NodeLayout> layouts;
  int total_nics = 0, total_switches = 0;

  // Scratch, reset after each use through the touched lists.
  mutable std::vector<int> sorted, nic_users, switch_users, node_stamp;
  mutable std::vector<double> node_egress;
  mutable std::vector<int> touched_nics, touched_switches, touched_nodes;

  const NodeLayout& at(int node) const { return layouts[static_cast<std::size_t>(layout_of[static_cast<std::size_t>(node)])]; }
};

CostModel::CostModel(const topology::ClusterTopology& topo, CostParams params, std::optional<Workload> workload)
    : params_(std::move(params)), workload_(std::move(workload)), fabric_(std::make_unique<Fabric>()) {
  Fabric& f = *fabric_;
  const double net_cap = params_[LinkClass::NET].bandwidth_gbps;
  for (int i = 0; i < topo.layout_count(); ++i) {
    const auto& node = topo.layout(i);
    if (node.nics.size() > 64) throw InputError("the cost model handles at most 64 NICs per node (a node has " + std::to_string(node.nics.size()) + ")");
    Fabric::NodeLayout l;
    l.slots = node.slot_count();
    for (const auto& nic : node.nics) l.nic_gbps.push_back(std::min(nic.speed_gbps > 0 ? nic.speed_gbps : net_cap, net_cap));
    if (l.nic_gbps.empty()) l.nic_gbps.push_back(net_cap);
    const std::uint64_t all = l.nic_gbps.size() == 64 ? ~0ULL : (1ULL << l.nic_gbps.size()) - 1;
    for (int s = 0; s < l.slots; ++s) {
      std::uint64_t mask = 0;
      if (static_cast<std::size_t>(s) < node.rails.size()) {
        for (int nic : node.rails[static_cast<std::size_t>(s)]) mask |= 1ULL << nic;
      }
      l.rail.push_back(mask != 0 ? mask : all);  // no rail known: any NIC of the node
    }
    for (double b : l.nic_gbps) l.node_gbps += b;
    std::map<int, int> switch_ids;
    for (const auto& slot : node.slots) {
      int id = -1;
      if (slot.pci_switch >= 0) id = switch_ids.emplace(slot.pci_switch, static_cast<int>(switch_ids.size())).first->second;
      l.pcie_switch.push_back(id);
    }
    l.switches = static_cast<int>(switch_ids.size());
    for (int a = 0; a < l.slots; ++a) {
      for (int b = 0; b < l.slots; ++b) {
        const LinkClass c = node.links.empty() ? (a == b ? LinkClass::LOC : LinkClass::SYS) : node.link(a, b);
        l.link.push_back(c);
        l.link_gbps.push_back(params_[c].bandwidth_gbps);
      }
    }
    f.layouts.push_back(std::move(l));
  }
  f.slots = topo.slot_count();
  for (int n = 0; n < topo.node_count(); ++n) {
    f.layout_of.push_back(topo.layout_of(n));
    f.first_slot.push_back(topo.first_slot_of(n));
    f.nic_base.push_back(f.total_nics);
    f.switch_base.push_back(f.total_switches);
    f.total_nics += static_cast<int>(f.at(n).nic_gbps.size());
    f.total_switches += f.at(n).switches;
  }
  f.first_slot.push_back(f.slots);
  f.node_of.resize(static_cast<std::size_t>(f.slots));
  f.local_of.resize(static_cast<std::size_t>(f.slots));
  for (int n = 0; n < topo.node_count(); ++n) {
    for (int s = f.first_slot[static_cast<std::size_t>(n)]; s < f.first_slot[static_cast<std::size_t>(n) + 1]; ++s) {
      f.node_of[static_cast<std::size_t>(s)] = n;
      f.local_of[static_cast<std::size_t>(s)] = s - f.first_slot[static_cast<std::size_t>(n)];
    }
  }
  f.sorted.resize(static_cast<std::size_t>(f.slots));
  f.nic_users.assign(static_cast<std::size_t>(f.total_nics), 0);
  f.switch_users.assign(static_cast<std::size_t>(f.total_switches), 0);
  f.node_stamp.assign(static_cast<std::size_t>(topo.node_count()), 0);
  f.node_egress.assign(static_cast<std::size_t>(topo.node_count()), 0.0);
}

CostModel::~CostModel() = default;
CostModel::CostModel(CostModel&&) noexcept = default;
CostModel& CostModel::operator=(CostModel&&) noexcept = default;

int CostModel::slot_count() const { return fabric_->slots; }

namespace {

// A group's members on one node: [begin, end) of the sorted buffer.
struct Run {
  int node, begin, end;
  LinkClass worst;     // slowest class between two of them (LOC for one member)
  double gbps;         // the bandwidth of that class
};

// The runs of one group, and what its members on each node see among themselves.
template <typename F>
void for_runs(const F& fabric, const int* slots, int n, std::vector<Run>& runs) {
  runs.clear();
  for (int i = 0; i < n;) {
    const int node = fabric.node_of[static_cast<std::size_t>(slots[i])];
    int j = i + 1;
    while (j < n && fabric.node_of[static_cast<std::size_t>(slots[j])] == node) ++j;
    Run r{node, i, j, LinkClass::LOC, kInf};
    const auto& l = fabric.at(node);
    for (int a = i; a < j; ++a) {
      for (int b = a + 1; b < j; ++b) {
        const std::size_t k = static_cast<std::size_t>(fabric.local_of[static_cast<std::size_t>(slots[a])]) * static_cast<std::size_t>(l.slots) +
                              static_cast<std::size_t>(fabric.local_of[static_cast<std::size_t>(slots[b])]);
        r.worst = std::max(r.worst, l.link[k]);
        r.gbps = std::min(r.gbps, l.link_gbps[k]);
      }
    }
    runs.push_back(r);
    i = j;
  }
}

}  // namespace

Score CostModel::score(const Layout& layout, const FlatParallelGroups& groups, std::span<const int> slot_of_rank) const {
  const Fabric& f = *fabric_;
  if (static_cast<int>(slot_of_rank.size()) != f.slots) {
    throw InputError("the layout's world size " + std::to_string(slot_of_rank.size()) + " differs from the topology's " +
                     std::to_string(f.slots) + " slots");
  }
  const auto traffic_list = traffic(layout);
  Score score;
  std::vector<Run> runs, all_runs;
  std::vector<int> runs_begin;
  for (Dim dim : kAllDims) {
    const FlatGroups& g = dim == Dim::dp ? groups.dp_cp : groups[dim];
    DimShape& shape = score.shape[static_cast<std::size_t>(dim)];
    shape.group_size = g.size;
    shape.groups = g.count();
    bool want_ring = false, want_a2a = false, want_p2p = false;
    for (const auto& t : traffic_list) {
      if (t.dim != dim) continue;
      want_a2a |= t.op == Op::all_to_all || t.op == Op::all_to_allv;
      want_p2p |= t.op == Op::send_recv;
      want_ring |= t.op == Op::all_reduce || t.op == Op::all_gather || t.op == Op::reduce_scatter;
    }
    if (g.size <= 1) continue;

    // Pass 1: sort each group's slots, find its runs, count the users of each NIC and switch.
    all_runs.clear();
    runs_begin.assign(1, 0);
    for (int gi = 0; gi < g.count(); ++gi) {
      int* slots = f.sorted.data() + static_cast<std::size_t>(gi) * static_cast<std::size_t>(g.size);
      const auto members = g.group(gi);
      for (int i = 0; i < g.size; ++i) slots[i] = slot_of_rank[static_cast<std::size_t>(members[static_cast<std::size_t>(i)])];
      std::sort(slots, slots + g.size);
      for_runs(f, slots, g.size, runs);
      const bool multi = runs.size() > 1;
      shape.crosses_nodes |= multi;
      shape.max_nodes_per_group = std::max(shape.max_nodes_per_group, static_cast<int>(runs.size()));
      shape.worst_link = std::max(shape.worst_link, multi ? LinkClass::NET : runs.front().worst);
      for (const Run& r : runs) {
        const auto& l = f.at(r.node);
        if (multi) {
          std::uint64_t mask = 0;
          for (int i = r.begin; i < r.end; ++i) mask |= l.rail[static_cast<std::size_t>(f.local_of[static_cast<std::size_t>(slots[i])])];
          for (; mask != 0; mask &= mask - 1) {
            const int nic = f.nic_base[static_cast<std::size_t>(r.node)] + std::countr_zero(mask);
            if (f.nic_users[static_cast<std::size_t>(nic)]++ == 0) f.touched_nics.push_back(nic);
          }
          const double e = g.size, local = r.end - r.begin;
          if (f.node_egress[static_cast<std::size_t>(r.node)] == 0) f.touched_nodes.push_back(r.node);
          f.node_egress[static_cast<std::size_t>(r.node)] += local * (e - local) / e;
        }
        if (crosses_pcie_uplink(r.worst)) {
          int last = -2;
          for (int i = r.begin; i < r.end; ++i) {
            const int sw = l.pcie_switch[static_cast<std::size_t>(f.local_of[static_cast<std::size_t>(slots[i])])];
            if (sw < 0 || sw == last) continue;
            last = sw;
            const int id = f.switch_base[static_cast<std::size_t>(r.node)] + sw;
            if (f.switch_users[static_cast<std::size_t>(id)]++ == 0) f.touched_switches.push_back(id);
          }
        }
      }
      all_runs.insert(all_runs.end(), runs.begin(), runs.end());
      runs_begin.push_back(static_cast<int>(all_runs.size()));
    }
    for (int nic : f.touched_nics) shape.max_nic_flows = std::max(shape.max_nic_flows, f.nic_users[static_cast<std::size_t>(nic)]);

    // Pass 2: each group's bandwidth under that sharing.
    const double n = g.size;
    for (int gi = 0; gi < g.count(); ++gi) {
      const int* slots = f.sorted.data() + static_cast<std::size_t>(gi) * static_cast<std::size_t>(g.size);
      const std::span<const Run> rs(all_runs.data() + runs_begin[static_cast<std::size_t>(gi)],
                                    static_cast<std::size_t>(runs_begin[static_cast<std::size_t>(gi) + 1] - runs_begin[static_cast<std::size_t>(gi)]));
      const bool multi = rs.size() > 1;
      double intra_gbps = kInf, inter_gbps = kInf, a2a_us_per_byte = 0;
      LinkClass worst = LinkClass::LOC;
      for (const Run& r : rs) {
        const auto& l = f.at(r.node);
        worst = std::max(worst, r.worst);
        double run_gbps = r.gbps;
        if (params_.contention && crosses_pcie_uplink(r.worst)) {
          int sharing = 1;
          for (int i = r.begin; i < r.end; ++i) {
            const int sw = l.pcie_switch[static_cast<std::size_t>(f.local_of[static_cast<std::size_t>(slots[i])])];
            if (sw >= 0) sharing = std::max(sharing, f.switch_users[static_cast<std::size_t>(f.switch_base[static_cast<std::size_t>(r.node)] + sw)]);
          }
          run_gbps /= sharing;
        }
        intra_gbps = std::min(intra_gbps, run_gbps);
        const double local = r.end - r.begin;
        if (local > 1) a2a_us_per_byte = std::max(a2a_us_per_byte, (local - 1) / n * us_per_byte(run_gbps));
        if (!multi) continue;
        std::uint64_t mask = 0;
        for (int i = r.begin; i < r.end; ++i) mask |= l.rail[static_cast<std::size_t>(f.local_of[static_cast<std::size_t>(slots[i])])];
        double reach = 0;
        for (; mask != 0; mask &= mask - 1) {
          const int bit = std::countr_zero(mask);
          const int users = params_.contention ? f.nic_users[static_cast<std::size_t>(f.nic_base[static_cast<std::size_t>(r.node)] + bit)] : 1;
          reach += l.nic_gbps[static_cast<std::size_t>(bit)] / users;
        }
        inter_gbps = std::min(inter_gbps, reach);
        // All-to-all: what leaves the node, over what the node (contention) or the group's own
        // rails (alone) can send.
        const double own = local * (n - local) / n;
        const double egress = params_.contention ? f.node_egress[static_cast<std::size_t>(r.node)] : own;
        const double capacity = params_.contention ? l.node_gbps : reach;
        a2a_us_per_byte = std::max(a2a_us_per_byte, egress * us_per_byte(capacity));
      }
      const double alpha = params_[multi ? LinkClass::NET : worst].alpha_us;
      if (want_ring) add_profile(shape.ring, {alpha, us_per_byte(std::min(intra_gbps, inter_gbps))});
      if (want_a2a) add_profile(shape.all_to_all, {alpha, a2a_us_per_byte});
    }

    if (want_p2p) {
      // Neighbouring stages: pair (i, i+1) of each group, in Megatron's order; all boundaries
      // send at once, sharing the sender's rail NICs.
      std::vector<std::pair<int, int>> pairs;
      for (int gi = 0; gi < g.count(); ++gi) {
        const auto members = g.group(gi);
        for (int i = 0; i + 1 < g.size; ++i) {
          pairs.emplace_back(slot_of_rank[static_cast<std::size_t>(members[static_cast<std::size_t>(i)])],
                             slot_of_rank[static_cast<std::size_t>(members[static_cast<std::size_t>(i) + 1])]);
        }
      }
      // Reuse the NIC counters for the pairs: clear the ring counts first.
      for (int nic : f.touched_nics) f.nic_users[static_cast<std::size_t>(nic)] = 0;
      f.touched_nics.clear();
      for (const auto& [a, b] : pairs) {
        const int na = f.node_of[static_cast<std::size_t>(a)];
        if (na == f.node_of[static_cast<std::size_t>(b)]) continue;
        for (std::uint64_t mask = f.at(na).rail[static_cast<std::size_t>(f.local_of[static_cast<std::size_t>(a)])]; mask != 0; mask &= mask - 1) {
          const int nic = f.nic_base[static_cast<std::size_t>(na)] + std::countr_zero(mask);
          if (f.nic_users[static_cast<std::size_t>(nic)]++ == 0) f.touched_nics.push_back(nic);
        }
      }
      for (int nic : f.touched_nics) shape.max_nic_flows = std::max(shape.max_nic_flows, f.nic_users[static_cast<std::size_t>(nic)]);
      for (const auto& [a, b] : pairs) {
        const int na = f.node_of[static_cast<std::size_t>(a)];
        const auto& l = f.at(na);
        const int la = f.local_of[static_cast<std::size_t>(a)];
        if (na == f.node_of[static_cast<std::size_t>(b)]) {
          const std::size_t k = static_cast<std::size_t>(la) * static_cast<std::size_t>(l.slots) + static_cast<std::size_t>(f.local_of[static_cast<std::size_t>(b)]);
          add_profile(shape.send_recv, {params_[l.link[k]].alpha_us, us_per_byte(l.link_gbps[k])});
          continue;
        }
        double gbps = 0;
        for (std::uint64_t mask = l.rail[static_cast<std::size_t>(la)]; mask != 0; mask &= mask - 1) {
          const int bit = std::countr_zero(mask);
          const int users = params_.contention ? f.nic_users[static_cast<std::size_t>(f.nic_base[static_cast<std::size_t>(na)] + bit)] : 1;
          gbps += l.nic_gbps[static_cast<std::size_t>(bit)] / users;
        }
        add_profile(shape.send_recv, {params_[LinkClass::NET].alpha_us, us_per_byte(gbps)});
      }
    }
    for (int nic : f.touched_nics) f.nic_users[static_cast<std::size_t>(nic)] = 0;
    for (int sw : f.touched_switches) f.switch_users[static_cast<std::size_t>(sw)] = 0;
    for (int node : f.touched_nodes) f.node_egress[static_cast<std::size_t>(node)] = 0;
    f.touched_nics.clear();
    f.touched_switches.clear();
    f.touched_nodes.clear();
  }
  for (const auto& t : traffic_list) {
    const double us = t.calls_per_step * op_time_us(score.of(t.dim), t.op, t.bytes);
    score.dim_us[static_cast<std::size_t>(t.dim)] += us;
    score.total_us += us;
  }
  return score;
}

double CostModel::op_time_us(const DimShape& shape, Op op, std::uint64_t bytes) const {
  const int n = shape.group_size;
  if (n <= 1) return 0;
  const double s = static_cast<double>(bytes);
  double worst = 0;
  switch (op) {
    case Op::all_reduce:
    case Op::all_gather:
    case Op::reduce_scatter:
      for (const auto& p : shape.ring) worst = std::max(worst, ring_steps(op, n) * p.alpha_us + s * busbw_factor(op, n) * p.us_per_byte);
      break;
    case Op::all_to_all:
    case Op::all_to_allv: {
      const double skew = op == Op::all_to_allv ? params_.alltoallv_imbalance : 1.0;
      for (const auto& p : shape.all_to_all) worst = std::max(worst, (n - 1) * p.alpha_us + s * skew * p.us_per_byte);
      break;
    }
    case Op::send_recv:
      for (const auto& p : shape.send_recv) worst = std::max(worst, p.alpha_us + s * p.us_per_byte);
      break;
  }
  return worst;
}

std::vector<OpTraffic> CostModel::traffic(const Layout& layout) const {
  if (workload_) return step_traffic(*workload_, layout);
  std::vector<OpTraffic> out;
  for (Dim d : kAllDims) {
    const int size = d == Dim::dp ? layout.dp() * layout.cp : layout.size(d);
    if (size <= 1) continue;
    const auto ops = typical_ops(d);
    // Each dimension weighs the same: the mean over its typical ops of the sweep's sum.
    for (Op op : ops) {
      for (auto bytes : params_.sweep_bytes) out.push_back({d, op, bytes, 1.0 / static_cast<double>(ops.size())});
    }
  }
  return out;
}

}  // namespace meshbench::mapping
