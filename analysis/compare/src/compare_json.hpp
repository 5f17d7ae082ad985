#pragma once
// Private: the parts of compare's JSON that every form writes alike (schema "meshbench.compare",
// version 2; docs/compare.schema.json), so that a CI script reads one schema whichever form ran.
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/compare/compare.hpp"
#include "analysis/compare/verdict.hpp"

namespace meshbench::analysis::detail {

// One run: path, started_at, status, backend, meshbench_version, world_size, core_to_core_ns.
nlohmann::ordered_json run_side_json(const RunSide& side);

// schema, schema_version, judge {noise, pairing}, verdict, exit_status, headline.
nlohmann::ordered_json comparison_head(GateVerdict verdict, NoiseSource noise, Pairing pairing, const std::string& headline);

// {level: {unchanged, improved, regressed, inconclusive, wrong}} for every level, from each
// judged unit's level and verdict.
nlohmann::ordered_json verdict_counts(const std::vector<std::pair<UnitKind, Verdict>>& units);

}  // namespace meshbench::analysis::detail
