// Megatron-Core's RankGenerator (megatron/core/parallel_state.py), transcribed: the order string
// names the dimensions fastest first; a group is every combination of the masked coordinates
// with the others fixed. The checks run in the order initialize_model_parallel runs them, so a
// layout that breaks several rules is told about the rule Megatron would report.
// docs/mapping.md ("meshbench groups") lists the rules and their messages.
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

// RankGenerator's name_to_size keys, in the order it appends missing size-1 names.
constexpr std::array<const char*, 5> kAppendOrder = {"tp", "pp", "dp", "ep", "cp"};

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
  for (const char* name : kAppendOrder) {
    if (std::find(tokens.begin(), tokens.end(), name) != tokens.end()) continue;
    const std::string n = name;
    const int size = n == "tp" ? tp : n == "pp" ? pp : n == "dp" ? dp : n == "ep" ? ep : cp;
    if (size != 1) {
      throw InputError("order '" + order + "' leaves out " + n + " of size " + std::to_string(size) +
                       "; name every dimension larger than 1 in --order");
    }
    tokens.push_back(n);
  }
  return tokens;
}

// One of Megatron's RankGenerator instances: the dense one (ep = 1) or the expert one (cp = 1).
struct Generator {
  std::vector<std::string> tokens;
  std::vector<int> sizes;

  Generator(const std::string& order, int tp, int cp, int ep, int dp, int pp) : tokens(order_tokens(order, tp, cp, ep, dp, pp)) {
    for (const auto& t : tokens) sizes.push_back(t == "tp" ? tp : t == "cp" ? cp : t == "ep" ? ep : t == "dp" ? dp : pp);
  }
  FlatGroups get(std::initializer_list<const char*> names) const {
    std::vector<bool> mask;
    for (const auto& t : tokens) mask.push_back(std::any_of(names.begin(), names.end(), [&](const char* n) { return t == n; }));
    return masked_orthogonal_groups_flat(sizes, mask);
  }
};

// a*b*c, or 0 when it exceeds `world` (so cannot divide it): sizes read from a plan file can be
// anything, and their product must not overflow an int.
long long product_within(int world, int a, int b, int c) {
  long long p = 1;
  for (const int v : {a, b, c}) {
    p *= v;
    if (p > world) return 0;
  }
  return p;
}

void check_sizes(const Layout& l) {
  const std::pair<const char*, int> sizes[] = {{"--world", l.world}, {"--tp", l.tp}, {"--cp", l.cp}, {"--pp", l.pp}, {"--ep", l.ep}};
  for (const auto& [name, size] : sizes) {
    if (size < 1) throw InputError(std::string(name) + " must be at least 1 (got " + std::to_string(size) + ")");
  }
  if (l.etp < 0) throw InputError("--etp must be at least 1, or 0 for 'same as --tp' (got " + std::to_string(l.etp) + ")");
  const long long dense = product_within(l.world, l.tp, l.cp, l.pp);
  if (dense == 0 || l.world % dense != 0) {
    throw InputError("world size " + std::to_string(l.world) + " is not divisible by TP*CP*PP = " +
                     (dense == 0 ? std::to_string(l.tp) + "*" + std::to_string(l.cp) + "*" + std::to_string(l.pp) : std::to_string(dense)) +
                     "; choose sizes whose product divides the world size");
  }
}

void check_expert_sizes(const Layout& l) {
  const long long expert = product_within(l.world, l.expert_tp(), l.ep, l.pp);
  if (expert == 0 || l.world % expert != 0) {
    throw InputError(
        "world size " + std::to_string(l.world) + " is not divisible by ETP*EP*PP = " +
        (expert == 0 ? std::to_string(l.expert_tp()) + "*" + std::to_string(l.ep) + "*" + std::to_string(l.pp) : std::to_string(expert)) +
        "; choose expert sizes whose product divides the world size");
  }
}

bool ends_in_pp(const std::string& order) { return order.size() >= 2 && order.compare(order.size() - 2, 2, "pp") == 0; }

struct Grids {
  Generator dense;
  Generator expert;
};

// initialize_model_parallel's sequence: dense sizes, dense generator, expert sizes, expert
// generator, the pp-last rule, then equal PP groups on both grids.
Grids checked_grids(const Layout& l) {
  check_sizes(l);
  Generator dense(l.order, l.tp, l.cp, 1, l.dp(), l.pp);
  check_expert_sizes(l);
  Generator expert(l.order, l.expert_tp(), 1, l.ep, l.edp(), l.pp);
  if (!ends_in_pp(l.order) && l.pp != 1 && l.edp() != l.dp()) {
    throw InputError("order '" + l.order + "' does not end in pp, so DP (" + std::to_string(l.dp()) + ") must equal EDP (" +
                     std::to_string(l.edp()) + "); end the order in pp or make ETP*EP = TP*CP");
  }
  if (dense.get({"pp"}).ranks != expert.get({"pp"}).ranks) {
    throw InputError("order '" + l.order +
                     "' gives different PP groups on the dense and the expert grid; end the order in pp or make ETP*EP = TP*CP");
  }
  return {std::move(dense), std::move(expert)};
}

}  // namespace

RankGroups FlatGroups::nested() const {
  RankGroups out(static_cast<std::size_t>(count()));
  for (int g = 0; g < count(); ++g) {
    const auto members = group(g);
    out[static_cast<std::size_t>(g)].assign(members.begin(), members.end());
  }
  return out;
}

FlatGroups masked_orthogonal_groups_flat(const std::vector<int>& sizes, const std::vector<bool>& mask) {
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
  std::vector<int> inner(static_cast<std::size_t>(group_size));
  for (int r = 0; r < group_size; ++r) inner[static_cast<std::size_t>(r)] = offset(r, masked_shape, masked_stride);
  FlatGroups out;
  out.size = group_size;
  out.ranks.reserve(static_cast<std::size_t>(group_size) * static_cast<std::size_t>(num_groups));
  out.group_of_rank.resize(static_cast<std::size_t>(group_size) * static_cast<std::size_t>(num_groups));
  for (int g = 0; g < num_groups; ++g) {
    const int base = offset(g, unmasked_shape, unmasked_stride);
    for (int v : inner) {
      out.ranks.push_back(base + v);
      out.group_of_rank[static_cast<std::size_t>(base + v)] = g;
    }
  }
  return out;
}

FlatParallelGroups flat_rank_groups(const Layout& l) {
  const Grids grids = checked_grids(l);
  FlatParallelGroups g;
  auto set = [&g](Dim d, FlatGroups groups) { g.by_dim[static_cast<std::size_t>(d)] = std::move(groups); };
  set(Dim::tp, grids.dense.get({"tp"}));
  set(Dim::cp, grids.dense.get({"cp"}));
  set(Dim::dp, grids.dense.get({"dp"}));
  set(Dim::pp, grids.dense.get({"pp"}));
  set(Dim::ep, grids.expert.get({"ep"}));
  set(Dim::etp, grids.expert.get({"tp"}));
  set(Dim::edp, grids.expert.get({"dp"}));
  g.dp_cp = l.cp == 1 ? g[Dim::dp] : grids.dense.get({"dp", "cp"});
  return g;
}

ParallelGroups rank_groups(const Layout& l) {
  const FlatParallelGroups flat = flat_rank_groups(l);
  ParallelGroups g;
  for (Dim d : kAllDims) g[d] = flat[d].nested();
  return g;
}

std::vector<Axis> grid_axes(const Layout& l, Grid grid) {
  const Grids grids = checked_grids(l);
  const Generator& gen = grid == Grid::dense ? grids.dense : grids.expert;
  std::vector<Axis> axes;
  for (std::size_t i = 0; i < gen.tokens.size(); ++i) {
    const std::string& t = gen.tokens[i];
    Dim d = *parse_dim(t);
    if (grid == Grid::expert) d = t == "tp" ? Dim::etp : t == "dp" ? Dim::edp : d;
    axes.push_back({d, gen.sizes[i]});
  }
  return axes;
}

}  // namespace meshbench::mapping
