#pragma once
// compare's writers: console text, Markdown, JSON. Provenance changes come first, so the cause
// ("NCCL 2.27.5 → 2.27.7") sits above its effect ("ep all_to_all at 64 MiB +11%").
#include <iosfwd>
#include <memory>

#include <nlohmann/json.hpp>

#include "analysis/compare/compare.hpp"
#include "analysis/compare/compare_set.hpp"
#include "common/cli.hpp"

namespace meshbench::analysis {

class CompareWriter {
 public:
  virtual ~CompareWriter() = default;
  virtual void write(const Comparison& comparison, std::ostream& out) const = 0;
};

class TextCompareWriter final : public CompareWriter {
 public:
  void write(const Comparison& comparison, std::ostream& out) const override;
};

class MarkdownCompareWriter final : public CompareWriter {
 public:
  void write(const Comparison& comparison, std::ostream& out) const override;
};

// Every compared row with its statistics (docs/report.md, "compare JSON").
class JsonCompareWriter final : public CompareWriter {
 public:
  void write(const Comparison& comparison, std::ostream& out) const override;
};

nlohmann::ordered_json comparison_to_json(const Comparison& comparison);

std::unique_ptr<CompareWriter> make_compare_writer(OutputFormat format);

// A baseline-set comparison in text, Markdown or JSON (the same schema as two files'; `judge.noise` says which).
nlohmann::ordered_json set_comparison_to_json(const SetComparison& comparison);
void write_set_comparison(const SetComparison& comparison, OutputFormat format, std::ostream& out);

}  // namespace meshbench::analysis
