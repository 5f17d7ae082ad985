#pragma once
// A results file of several layouts (run --plan with a plan of several layouts, as `explore`
// writes it): the layouts ranked by the measured communication per step of each one's best
// mapping, with its baseline's and the explorer's estimate kept beside it.
#include <optional>
#include <string>
#include <vector>

#include "analysis/report/ranking.hpp"
#include "analysis/report/text_table.hpp"
#include "results/reader.hpp"

namespace meshbench::analysis {

struct LayoutRow {
  int rank = 0;                                // 1 = least communication per step; 0 when it has no complete mapping
  std::string name;                            // "ep4"
  std::string layout;                          // its sizes, as the point keys spell them (results::layout_key)
  std::string sizes;                           // layout_sizes
  std::string best_mapping, baseline_mapping;  // baseline: the layout's own order; "" when not measured
  double best_us = 0, baseline_us = 0;         // measured µs per step (the ranking's); 0 when none
  double vs_best = 1;                          // best_us over the best layout's
  std::string estimate_json;                   // the explorer's estimate as the plan gave it; "" when none
};

struct LayoutRanking {
  std::vector<LayoutRow> rows;  // best first; layouts without a complete mapping last
  std::string note;             // why there are no figures (no workload), else ""
};

// Nothing for a file of one layout.
std::optional<LayoutRanking> rank_layouts(const results::ResultsFile& file, const Ranking& ranking);

// rank, layout, best mapping and its time per step, vs best, the baseline's, the estimate.
Table layouts_table(const LayoutRanking& layouts);

// "TP1 CP1 PP1 EP4 ETP1 -> DP8 EDP2"
std::string layout_sizes(const results::LayoutRecord& layout);

// The explorer's memory estimate in an estimate (`memory_max_gib` of `memory_limit_gib`, as
// `explore --out` writes them): the most-loaded stage's GiB per GPU and the GPU's; nullopt
// when the estimate lacks either.
struct EstimatedMemory {
  double need_gib = 0, limit_gib = 0;
};
std::optional<EstimatedMemory> estimated_memory(const std::string& estimate_json);

// The estimate's scalar entries as "key value, key value" (nested objects as key.sub); "" when none.
std::string estimate_text(const std::string& estimate_json);

}  // namespace meshbench::analysis
