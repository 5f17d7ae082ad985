// meshbench groups: Megatron-Core's rank groups for a layout, as JSON or text.
#include <iostream>
#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "common/strings.hpp"
#include "layout_options.hpp"
#include "mapping/commands.hpp"
#include "mapping/rank_groups.hpp"

namespace meshbench::mapping {

namespace {

// One line per dimension so that a large world stays greppable.
std::string groups_json(const ParallelGroups& g) {
  std::string out = "{\n";
  for (std::size_t i = 0; i < kAllDims.size(); ++i) {
    out += "  \"" + std::string(to_string(kAllDims[i])) + "\": " + nlohmann::json(g[kAllDims[i]]).dump() +
           (i + 1 < kAllDims.size() ? ",\n" : "\n");
  }
  return out + "}\n";
}

std::string groups_text(const Layout& l, const ParallelGroups& g) {
  std::string out = "layout: W=" + std::to_string(l.world) + " TP" + std::to_string(l.tp) + " CP" + std::to_string(l.cp) + " PP" +
                    std::to_string(l.pp) + " EP" + std::to_string(l.ep) + " ETP" + std::to_string(l.expert_tp()) + " -> DP" +
                    std::to_string(l.dp()) + " EDP" + std::to_string(l.edp()) + ", order " + l.order + "\n";
  for (Dim d : kAllDims) {
    const auto& groups = g[d];
    out += std::string(to_string(d)) + (to_string(d).size() == 2 ? " " : "") + " (" + std::to_string(groups.size()) + " groups of " +
           std::to_string(groups.empty() ? 0 : groups.front().size()) + "):";
    for (const auto& group : groups) out += " [" + join(group, " ", [](int r) { return std::to_string(r); }) + "]";
    out += "\n";
  }
  return out;
}

}  // namespace

int groups_command(const Args& args) {
  Layout layout;
  std::string format;
  po::options_description options("options");
  // clang-format off
  options.add_options()("world", po::value<int>(&layout.world)->required()->value_name("W"), "world size (required)");
  // clang-format on
  detail::add_layout_options(options, layout);
  // clang-format off
  options.add_options()("format", po::value<std::string>(&format)->default_value("text"), "output format: text|json");
  // clang-format on
  const auto vm = parse_command("groups", "Prints every dimension's rank groups exactly as Megatron-Core's RankGenerator lists them.",
                                options, args, std::cout);
  if (!vm) return kExitOk;
  const OutputFormat f = parse_output_format(format, {OutputFormat::text, OutputFormat::json});
  const ParallelGroups groups = rank_groups(layout);
  std::cout << (f == OutputFormat::json ? groups_json(groups) : groups_text(layout, groups));
  return kExitOk;
}

}  // namespace meshbench::mapping
