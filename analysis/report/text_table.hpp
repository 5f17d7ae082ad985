#pragma once
// A small table that renders as aligned console text, as Markdown, or as CSV: the report and
// compare writers build their tables once and render them in the chosen format.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace meshbench::analysis {

class Table {
 public:
  // A column is right-aligned (numbers) when its header is given with a leading '>'.
  explicit Table(std::vector<std::string> headers);
  void add(std::vector<std::string> row);
  bool empty() const { return rows_.empty(); }
  std::size_t size() const { return rows_.size(); }

  void render_text(std::ostream& out, const std::string& indent = "  ") const;
  void render_markdown(std::ostream& out) const;
  // An HTML <table> (cells escaped; right-aligned columns get class "num").
  void render_html(std::ostream& out) const;

 private:
  std::vector<std::string> headers_;
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
};

// Text for HTML content and attribute values: & < > " ' as entities.
std::string html_escape(const std::string& text);

// CSV field quoting (RFC 4180): quoted when it holds a comma, quote or line break.
std::string csv_field(const std::string& value);

// Fixed-point with `digits` after the point ("12.35"), or "-" for a value that is not finite.
std::string fixed(double value, int digits);
// Three significant digits, switching to scientific notation only far from 1 ("0.00123", "1.2e-07").
std::string sig3(double value);
// "+11.0%" / "-3.2%" from a ratio (1.11 -> +11.0%).
std::string percent_change(double ratio);

}  // namespace meshbench::analysis
