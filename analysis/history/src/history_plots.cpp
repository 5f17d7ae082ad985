#include "analysis/history/history_plots.hpp"

#include <cctype>
#include <set>

#include "analysis/history/history_writers.hpp"
#include "analysis/report/plot_script.hpp"
#include "analysis/report/report_plots.hpp"

namespace meshbench::analysis {

namespace {

std::string file_safe(const std::string& name) {
  std::string out;
  for (const char ch : name) {
    const auto c = static_cast<unsigned char>(std::tolower(static_cast<unsigned char>(ch)));
    if (std::isalnum(c) != 0 || c == '_' || c == '.') {
      out.push_back(static_cast<char>(c));
    } else if (!out.empty() && out.back() != '-') {
      out.push_back('-');
    }
  }
  while (!out.empty() && (out.back() == '-' || out.back() == '.')) out.pop_back();
  return out.empty() ? "series" : out;
}

}  // namespace

std::vector<HistoryPlot> history_plots(const History& history) {
  std::vector<HistoryPlot> plots;
  std::set<std::string> taken;
  for (std::size_t c = 0; c < history.configurations.size(); ++c) {
    const auto& series = history.configurations[c].series;
    for (std::size_t s = 0; s < series.size(); ++s) {
      if (series[s].family.kind == UnitKind::point || series[s].changes.empty()) continue;
      const std::string stem = "c" + std::to_string(c + 1) + "-" + file_safe(series[s].name());
      std::string file = stem + ".png";
      for (int n = 2; taken.contains(file); ++n) file = stem + "-" + std::to_string(n) + ".png";
      taken.insert(file);
      plots.push_back({c, s, file});
    }
  }
  return plots;
}

std::vector<std::string> write_history_plots(const History& history, const std::string& dir) {
  const auto plots = history_plots(history);
  if (plots.empty()) return {};
  auto input = history_to_json(history);
  auto& list = input["plots"] = nlohmann::ordered_json::array();
  for (const auto& p : plots) list.push_back({{"configuration", p.configuration}, {"series", p.series}, {"file", p.file}});
  // history_plots.py imports plots.py, report's script, for matplotlib's set-up and its save().
  return run_plot_script({{"history_plots.py", history_plots_script()}, {"plots.py", plots_script()}}, input.dump(), dir);
}

}  // namespace meshbench::analysis
