#pragma once
// The report's writers, one class per format (as Google Benchmark's reporters): the analysis
// builds a Report, a writer only formats it.
#include <iosfwd>
#include <memory>

#include <nlohmann/json.hpp>

#include "analysis/report/report.hpp"
#include "common/cli.hpp"

namespace meshbench::analysis {

class ReportWriter {
 public:
  virtual ~ReportWriter() = default;
  virtual void write(const Report& report, std::ostream& out) const = 0;
};

// Console tables: the ML view (ranking, step breakdown, how to apply the best mapping), then the
// infrastructure view (busbw by size, group spread and slow hosts, predicted against measured).
class TextReportWriter final : public ReportWriter {
 public:
  void write(const Report& report, std::ostream& out) const override;
};

// The same sections as Markdown (headings and tables), for a wiki page or a pull request.
class MarkdownReportWriter final : public ReportWriter {
 public:
  void write(const Report& report, std::ostream& out) const override;
};

// One tidy table for pandas: section, rank, mapping, dim, op, timing, concurrency, bytes,
// metric, value, detail (docs/report.md lists the sections and metrics).
class CsvReportWriter final : public ReportWriter {
 public:
  void write(const Report& report, std::ostream& out) const override;
};

// Everything, as documented in docs/report.md ("schema": "meshbench.report"); also what the
// plotting script reads.
class JsonReportWriter final : public ReportWriter {
 public:
  void write(const Report& report, std::ostream& out) const override;
};

// One self-contained HTML page (`report --html FILE`): the ranking, how to apply the best
// mapping, where each mapping's groups land (inline SVG per dimension), the slot × slot link
// classes, busbw curves, predicted against measured, group spread and slow hosts. Nothing
// is fetched: styles, pictures and its one small script are inside.
class HtmlReportWriter final : public ReportWriter {
 public:
  void write(const Report& report, std::ostream& out) const override;
};

inline constexpr int kReportJsonVersion = 1;
nlohmann::ordered_json report_to_json(const Report& report);

std::unique_ptr<ReportWriter> make_report_writer(OutputFormat format);

}  // namespace meshbench::analysis
