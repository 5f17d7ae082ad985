// explore's first step: the size combinations to look at.
#include <algorithm>

#include "explore_steps.hpp"

namespace meshbench::mapping {

namespace {

std::vector<int> divisors(int n) {
  std::vector<int> out;
  for (int d = 1; d <= n; ++d) {
    if (n % d == 0) out.push_back(d);
  }
  return out;
}

// Virtual stages: the user's, or every count that leaves each chunk at least one layer.
std::vector<int> vpps_for(int pp, const Workload& w, const ExploreConstraints& c) {
  if (!c.vpp.empty()) {
    if (pp > 1) return c.vpp;
    return std::find(c.vpp.begin(), c.vpp.end(), 1) != c.vpp.end() ? std::vector<int>{1} : std::vector<int>{};
  }
  std::vector<int> v{1};
  const int most = c.max_vpp > 0 ? c.max_vpp : w.layers / pp;
  for (int n = 2; pp > 1 && n <= most; ++n) v.push_back(n);
  return v;
}

}  // namespace

void generate_layouts(int world, const Workload& w, const ExploreConstraints& c, const std::function<void(const ExploreLayout&)>& visit) {
  const std::vector<int> all = divisors(world);
  auto or_all = [&](const std::vector<int>& given) { return given.empty() ? all : given; };
  const bool dense = w.experts <= 1;
  for (int tp : or_all(c.tp)) {
    for (int etp : dense ? std::vector<int>{tp} : or_all(c.etp)) {
      for (int cp : or_all(c.cp)) {
        for (int pp : or_all(c.pp)) {
          if (world % (1LL * tp * cp * pp) != 0 || world % (1LL * etp * pp) != 0) continue;
          for (int ep : dense ? std::vector<int>{1} : or_all(c.ep)) {
            if (world % (1LL * etp * ep * pp) != 0) continue;
            for (int vpp : vpps_for(pp, w, c)) {
              ExploreLayout e;
              e.layout.world = world;
              e.layout.tp = tp;
              e.layout.cp = cp;
              e.layout.pp = pp;
              e.layout.ep = ep;
              e.layout.etp = etp;
              e.vpp = vpp;
              visit(e);
            }
          }
        }
      }
    }
  }
}

}  // namespace meshbench::mapping
