#include "results/point_key.hpp"

#include <cstdio>

#include "results/records.hpp"

namespace meshbench::results {

std::string layout_key(const LayoutRecord& l) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "world %d, tp %d cp %d pp %d ep %d etp %d dp %d edp %d", l.world, l.tp, l.cp, l.pp, l.ep, l.etp, l.dp,
                l.edp);
  return buf;
}

std::string digest_hex(std::uint64_t digest) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(digest));
  return buf;
}

}  // namespace meshbench::results
