#pragma once
// compare's writers: console text, Markdown, JSON. Provenance changes come first, so the cause
// ("NCCL 2.27.5 → 2.27.7") sits above its effect ("ep all_to_all at 64 MiB +11%").
#include <iosfwd>
#include <memory>

#include <nlohmann/json.hpp>

#include "analysis/compare/compare.hpp"
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

// Every form in one schema; `judge.noise` says where the noise came from.
nlohmann::ordered_json comparison_to_json(const Comparison& comparison);

std::unique_ptr<CompareWriter> make_compare_writer(OutputFormat format);

}  // namespace meshbench::analysis
