#pragma once
// Headings, lines and tables in one of the two human formats (console text or Markdown), so
// the report and compare writers say everything once.
#include <ostream>
#include <string>

#include "analysis/report/text_table.hpp"

namespace meshbench::analysis::detail {

class Sink {
 public:
  Sink(std::ostream& out, bool markdown) : out_(out), markdown_(markdown) {}
  void title(const std::string& text) { out_ << (markdown_ ? "# " : "") << text << "\n"; }
  void heading(const std::string& text) { out_ << "\n" << (markdown_ ? "## " + text : "== " + text) << "\n"; }
  void subheading(const std::string& text) { out_ << (markdown_ ? "\n### " + text + "\n" : "\n" + text + "\n"); }
  void line(const std::string& text) {
    if (text.empty()) {
      out_ << "\n";
      return;
    }
    out_ << (markdown_ ? "" : "  ") << text << (markdown_ ? "  \n" : "\n");
  }
  void bullet(const std::string& text) { out_ << (markdown_ ? "- " : "  - ") << text << "\n"; }
  void table(const Table& t) {
    if (markdown_) {  // blank lines around a table keep it one block in every Markdown dialect
      out_ << "\n";
      t.render_markdown(out_);
      out_ << "\n";
    } else {
      t.render_text(out_);
    }
  }

 private:
  std::ostream& out_;
  bool markdown_;
};

}  // namespace meshbench::analysis::detail
