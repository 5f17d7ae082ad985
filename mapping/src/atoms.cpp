#include "atoms.hpp"

#include <algorithm>
#include <numeric>
#include <tuple>

#include "mapping/rank_groups.hpp"

namespace meshbench::mapping::detail {

namespace {

std::vector<long long> breakpoints(const std::vector<Axis>& axes) {
  std::vector<long long> b{1};
  for (const auto& a : axes) b.push_back(b.back() * a.size);
  return b;
}

// The axis whose block [prefix_i, prefix_{i+1}) holds `at`.
Dim axis_at(const std::vector<Axis>& axes, long long at) {
  long long prefix = 1;
  for (const auto& a : axes) {
    if (a.size > 1 && at >= prefix && at < prefix * a.size) return a.dim;
    prefix *= a.size;
  }
  return axes.back().dim;
}

std::vector<int> prime_factors(int n) {
  std::vector<int> f;
  for (int p = 2; p * p <= n; ++p) {
    while (n % p == 0) {
      f.push_back(p);
      n /= p;
    }
  }
  if (n > 1) f.push_back(n);
  return f;
}

}  // namespace

std::vector<Atom> rank_atoms(const Layout& layout) {
  const auto dense = grid_axes(layout, Grid::dense);
  const auto expert = grid_axes(layout, Grid::expert);
  auto points = breakpoints(dense);
  const auto expert_points = breakpoints(expert);
  points.insert(points.end(), expert_points.begin(), expert_points.end());
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  bool chain = true;
  for (std::size_t i = 1; i < points.size(); ++i) chain &= points[i] % points[i - 1] == 0;
  if (!chain) points = breakpoints(dense);  // the grids do not nest: digits of the dense grid alone
  points.erase(std::unique(points.begin(), points.end()), points.end());

  std::vector<Atom> atoms;
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    const long long lo = points[i];
    long long stride = lo;
    for (int p : prime_factors(static_cast<int>(points[i + 1] / lo))) {
      // Atoms of one digit are interchangeable only where the grids nest; otherwise each atom is
      // its own digit so that the search tells their placements apart.
      const int digit = chain ? static_cast<int>(i) : static_cast<int>(atoms.size());
      atoms.push_back({digit, p, static_cast<int>(stride), axis_at(dense, lo), axis_at(expert, lo)});
      stride *= p;
    }
  }
  return atoms;
}

std::vector<int> place(const std::vector<Atom>& atoms, const AtomPlacement& placement, const topology::ClusterTopology& topo) {
  const int world = topo.slot_count();
  // weight[j]: how far one step of logical atom j moves the slot position.
  std::vector<int> weight(atoms.size());
  int radix = 1;
  for (int j : placement.order) {
    weight[static_cast<std::size_t>(j)] = radix;
    radix *= atoms[static_cast<std::size_t>(j)].size;
  }
  // An odometer over the atoms in rank order keeps the position without a division per rank.
  std::vector<int> value(atoms.size(), 0);
  std::vector<int> slot_of_rank(static_cast<std::size_t>(world));
  const int per_node = topo.node_count() > 0 ? topo.node(0).slot_count() : world;
  const bool local = !placement.local_order.empty() && topo.homogeneous() && static_cast<int>(placement.local_order.size()) == per_node;
  int pos = 0;
  for (int r = 0; r < world; ++r) {
    slot_of_rank[static_cast<std::size_t>(r)] =
        local ? (pos / per_node) * per_node + placement.local_order[static_cast<std::size_t>(pos % per_node)] : pos;
    for (std::size_t j = 0; j < atoms.size(); ++j) {
      pos += weight[j];
      if (++value[j] < atoms[j].size) break;
      pos -= weight[j] * atoms[j].size;
      value[j] = 0;
    }
  }
  return slot_of_rank;
}

std::vector<int> topology_local_order(const topology::NodeTopology& node) {
  std::vector<int> order(static_cast<std::size_t>(node.slot_count()));
  std::iota(order.begin(), order.end(), 0);
  auto key = [&node](int s) {
    const auto& slot = node.slots[static_cast<std::size_t>(s)];
    const auto& rail = static_cast<std::size_t>(s) < node.rails.size() ? node.rails[static_cast<std::size_t>(s)] : std::vector<int>{};
    const int first_nic = rail.empty() ? -1 : *std::min_element(rail.begin(), rail.end());
    return std::make_tuple(slot.numa, slot.pci_switch, first_nic, s);
  };
  std::stable_sort(order.begin(), order.end(), [&key](int a, int b) { return key(a) < key(b); });
  return order;
}

int node_boundary(const std::vector<Atom>& atoms, const std::vector<int>& order, int slots_per_node) {
  long long product = 1;
  for (std::size_t k = 0; k < order.size(); ++k) {
    if (product == slots_per_node) return static_cast<int>(k);
    product *= atoms[static_cast<std::size_t>(order[k])].size;
  }
  return product == slots_per_node ? static_cast<int>(order.size()) : -1;
}

bool node_aligned(const std::vector<Atom>& atoms, const AtomPlacement& placement, const topology::ClusterTopology& topo) {
  return topo.homogeneous() && node_boundary(atoms, placement.order, topo.node(0).slot_count()) >= 0;
}

std::string structure_key(const std::vector<Atom>& atoms, const AtomPlacement& placement) {
  std::string key;
  for (int j : placement.order) {
    key += std::to_string(atoms[static_cast<std::size_t>(j)].digit) + "." + std::to_string(atoms[static_cast<std::size_t>(j)].size) + " ";
  }
  key += "|";
  for (int s : placement.local_order) key += std::to_string(s) + " ";
  return key;
}

}  // namespace meshbench::mapping::detail
