// Megatron-Core's RankGenerator (megatron/core/parallel_state.py), transcribed: the order string
// names the dimensions fastest first; a group is every combination of the masked coordinates
// with the others fixed. See shared/reference/mapping-anchors.md §1.
#include "mapping/rank_groups.hpp"

#include <algorithm>
#include <sstream>
#include <string>

#include "common/error.hpp"

namespace meshbench::mapping {

namespace {

std::vector<int> prefix_product(const std::vector<int>& a) {
  std::vector<int> r{1};
  for (int v : a) r.push_back(r.back() * v);
  return r;
}

// Splits the order string and appends any missing dimension of size 1, as RankGenerator does.
std::vector<std::string> order_tokens(const std::string& order, int tp, int cp, int ep, int dp, int pp) {
  std::vector<std::string> tokens;
  std::stringstream in(order);
  for (std::string t; std::getline(in, t, '-');) {
    if (t != "tp" && t != "cp" && t != "ep" && t != "dp" && t != "pp") {
      throw InputError("order '" + order + "' names unknown dimension '" + t + "'; use the names tp, cp, ep, dp, pp joined by '-'");
    }
    if (std::find(tokens.begin(), tokens.end(), t) != tokens.end()) {
      throw InputError("order '" + order + "' names '" + t + "' twice; name each dimension once");
    }
    tokens.push_back(t);
  }
  const std::pair<const char*, int> sizes[] = {{"tp", tp}, {"pp", pp}, {"dp", dp}, {"ep", ep}, {"cp", cp}};
  for (const auto& [name, size] : sizes) {
    if (std::find(tokens.begin(), tokens.end(), name) != tokens.end()) continue;
    if (size != 1) {
      throw InputError("order '" + order + "' leaves out " + name + " of size " + std::to_string(size) + "; name every dimension larger than 1 in --order");
    }
    tokens.emplace_back(name);
  }
  return tokens;
}

// One of Megatron's RankGenerator instances: the dense one (ep = 1) or the expert one (cp = 1).
struct Generator {
  std::vector<std::string> tokens;
  std::vector<int> sizes;

  Generator(const std::string& order, int tp, int cp, int ep, int dp, int pp) : tokens(order_tokens(order, tp, cp, ep, dp, pp)) {
    for (const auto& t : tokens) {
      sizes.push_back(t == "tp" ? tp : t == "cp" ? cp : t == "ep" ? ep : t == "dp" ? dp : pp);
    }
  }
  RankGroups get(const std::string& token) const {
    std::vector<bool> mask;
    for (const auto& t : tokens) mask.push_back(t == token);
    return masked_orthogonal_groups(sizes, mask);
  }
};

}  // namespace

RankGroups masked_orthogonal_groups(const std::vector<int>& sizes, const std::vector<bool>& mask) {
  std::vector<int> masked_shape, unmasked_shape, masked_stride, unmasked_stride;
  const auto global_stride = prefix_product(sizes);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    (mask[i] ? masked_shape : unmasked_shape).push_back(sizes[i]);
    (mask[i] ? masked_stride : unmasked_stride).push_back(global_stride[i]);
  }
  const int group_size = prefix_product(masked_shape).back();
  const int num_groups = prefix_product(unmasked_shape).back();
  // Mixed-radix decomposition, first dimension fastest, dotted with the strides.
  auto offset = [](int index, const std::vector<int>& shape, const std::vector<int>& stride) {
    int r = 0;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      r += (index % shape[i]) * stride[i];
      index /= shape[i];
    }
    return r;
  };
  RankGroups groups(static_cast<std::size_t>(num_groups));
  for (int g = 0; g < num_groups; ++g) {
    const int base = offset(g, unmasked_shape, unmasked_stride);
    auto& group = groups[static_cast<std::size_t>(g)];
    group.reserve(static_cast<std::size_t>(group_size));
    for (int r = 0; r < group_size; ++r) group.push_back(base + offset(r, masked_shape, masked_stride));
  }
  return groups;
}

ParallelGroups rank_groups(const Layout& l) {
  const int etp = l.expert_tp();
  const std::pair<const char*, int> sizes[] = {{"--world", l.world}, {"--tp", l.tp}, {"--cp", l.cp}, {"--pp", l.pp}, {"--ep", l.ep}, {"--etp", etp}};
  for (const auto& [name, size] : sizes) {
    if (size < 1) throw InputError(std::string(name) + " must be at least 1 (got " + std::to_string(size) + ")");
  }
  const int dense = l.tp * l.cp * l.pp;
  if (l.world % dense != 0) {
    throw InputError("world size " + std::to_string(l.world) + " is not divisible by TP*CP*PP = " + std::to_string(dense) +
                     "; choose sizes whose product divides the world size");
  }
  const int expert = etp * l.ep * l.pp;
  if (l.world % expert != 0) {
    throw InputError("world size " + std::to_string(l.world) + " is not divisible by ETP*EP*PP = " + std::to_string(expert) +
                     "; choose expert sizes whose product divides the world size");
  }
  const bool pp_last = l.order.size() >= 2 && l.order.compare(l.order.size() - 2, 2, "pp") == 0;
  if (!pp_last && l.pp != 1 && l.edp() != l.dp()) {
    throw InputError("order '" + l.order + "' does not end in pp, so DP (" + std::to_string(l.dp()) + ") must equal EDP (" +
                     std::to_string(l.edp()) + "); end the order in pp or make ETP*EP = TP*CP");
  }
  const Generator dense_grid(l.order, l.tp, l.cp, 1, l.dp(), l.pp);
  const Generator expert_grid(l.order, etp, 1, l.ep, l.edp(), l.pp);
  ParallelGroups g;
  g[Dim::tp] = dense_grid.get("tp");
  g[Dim::cp] = dense_grid.get("cp");
  g[Dim::dp] = dense_grid.get("dp");
  g[Dim::pp] = dense_grid.get("pp");
  g[Dim::ep] = expert_grid.get("ep");
  g[Dim::etp] = expert_grid.get("tp");
  g[Dim::edp] = expert_grid.get("dp");
  if (expert_grid.get("pp") != g[Dim::pp]) {
    throw InputError("order '" + l.order + "' gives different PP groups on the dense and the expert grid; end the order in pp or make ETP*EP = TP*CP");
  }
  return g;
}

}  // namespace meshbench::mapping
