#include "analysis/compare/src/provenance_writer.hpp"

#include "analysis/report/text_table.hpp"

namespace meshbench::analysis::detail {

void write_provenance_changes(Sink& s, const std::string& heading, const std::vector<ProvenanceChange>& changes, int hidden,
                              std::string_view hidden_examples) {
  s.heading(heading);
  if (changes.empty()) {
    s.line("nothing recorded changed (versions, doctor versions, environment, world size, backend, hosts)");
  } else {
    Table t({"kind", "name", "base", "new"});
    for (const auto& ch : changes) t.add({ch.kind, ch.name, ch.before, ch.after});
    s.table(t);
  }
  if (hidden > 0) {
    s.line("(" + std::to_string(hidden) + " per-launch variables differ as they always do" + std::string(hidden_examples) +
           "; --all-env lists them)");
  }
}

void add_provenance_changes(nlohmann::ordered_json& j, const std::vector<ProvenanceChange>& changes, int hidden) {
  j["changes"] = nlohmann::ordered_json::array();
  for (const auto& ch : changes) j["changes"].push_back({{"kind", ch.kind}, {"name", ch.name}, {"base", ch.before}, {"new", ch.after}});
  j["hidden_changes"] = hidden;
}

}  // namespace meshbench::analysis::detail
