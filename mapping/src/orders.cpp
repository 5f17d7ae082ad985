#include <algorithm>
#include <sstream>

#include "common/error.hpp"
#include "common/strings.hpp"
#include "mapping/candidates.hpp"

namespace meshbench::mapping {

namespace {

// A name is worth permuting when it has size > 1 on either grid.
bool nontrivial(const Layout& l, const std::string& token) {
  if (token == "tp") return l.tp > 1 || l.expert_tp() > 1;
  if (token == "cp") return l.cp > 1;
  if (token == "ep") return l.ep > 1;
  if (token == "dp") return l.dp() > 1 || l.edp() > 1;
  return l.pp > 1;
}

bool accepted(Layout l, const std::string& order) {
  l.order = order;
  try {
    validate(l);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

}  // namespace

std::vector<std::string> valid_orders(const Layout& layout) {
  validate(layout);
  std::vector<std::string> own;
  std::stringstream in(layout.order);
  for (std::string t; std::getline(in, t, '-');) {
    if (nontrivial(layout, t)) own.push_back(t);
  }
  std::vector<std::string> out{layout.order};
  if (own.empty()) return out;
  std::vector<std::string> tokens = own;
  std::sort(tokens.begin(), tokens.end());
  do {
    if (tokens == own) continue;  // the layout's own order, already first
    const std::string order = join(tokens, "-");
    if (accepted(layout, order)) out.push_back(order);
  } while (std::next_permutation(tokens.begin(), tokens.end()));
  return out;
}

}  // namespace meshbench::mapping
