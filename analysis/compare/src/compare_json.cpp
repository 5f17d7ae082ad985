#include "analysis/compare/src/compare_json.hpp"

#include <algorithm>

namespace meshbench::analysis::detail {

using nlohmann::ordered_json;

ordered_json run_side_json(const RunSide& s) {
  return {{"path", s.path},
          {"started_at", s.started_at},
          {"status", s.status},
          {"backend", s.backend},
          {"meshbench_version", s.meshbench_version},
          {"world_size", s.world},
          {"core_to_core_ns", s.core_to_core_ns}};
}

ordered_json comparison_head(GateVerdict verdict, NoiseSource noise, Pairing pairing, const std::string& headline) {
  ordered_json j;
  j["schema"] = kCompareSchema;
  j["schema_version"] = kCompareSchemaVersion;
  j["judge"] = {{"noise", to_string(noise)}, {"pairing", to_string(pairing)}};
  j["verdict"] = to_string(verdict);
  j["exit_status"] = exit_status(verdict);
  j["headline"] = headline;
  return j;
}

ordered_json verdict_counts(const std::vector<std::pair<UnitKind, Verdict>>& units) {
  ordered_json counts;
  for (int k = 0; k < kUnitKinds; ++k) {
    const auto kind = static_cast<UnitKind>(k);
    ordered_json per;
    for (auto v : {Verdict::unchanged, Verdict::improved, Verdict::regressed, Verdict::inconclusive, Verdict::wrong}) {
      per[to_string(v)] = std::count_if(units.begin(), units.end(), [&](const auto& u) { return u.first == kind && u.second == v; });
    }
    counts[to_string(kind)] = per;
  }
  return counts;
}

}  // namespace meshbench::analysis::detail
