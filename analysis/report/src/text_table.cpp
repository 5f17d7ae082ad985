#include "analysis/report/text_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

namespace meshbench::analysis {

namespace {

// Display width of UTF-8 text: count the bytes that start a character.
std::size_t width(const std::string& s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U; }));
}

std::string markdown_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

}  // namespace

Table::Table(std::vector<std::string> headers) {
  for (auto& h : headers) {
    const bool right = !h.empty() && h.front() == '>';
    right_.push_back(right);
    headers_.push_back(right ? h.substr(1) : h);
  }
}

void Table::add(std::vector<std::string> row) {
  row.resize(headers_.size());
  rows_.push_back(std::move(row));
}

void Table::render_text(std::ostream& out, const std::string& indent) const {
  std::vector<std::size_t> w(headers_.size());
  for (std::size_t c = 0; c < headers_.size(); ++c) {
    w[c] = width(headers_[c]);
    for (const auto& r : rows_) w[c] = std::max(w[c], width(r[c]));
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text = indent;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::string pad(w[c] - width(cells[c]), ' ');
      if (c > 0) text += "  ";
      text += right_[c] ? pad + cells[c] : cells[c] + pad;
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out << text << "\n";
  };
  line(headers_);
  for (const auto& r : rows_) line(r);
}

void Table::render_markdown(std::ostream& out) const {
  out << "|";
  for (const auto& h : headers_) out << " " << markdown_cell(h) << " |";
  out << "\n|";
  for (std::size_t c = 0; c < headers_.size(); ++c) out << (right_[c] ? " ---: |" : " --- |");
  out << "\n";
  for (const auto& r : rows_) {
    out << "|";
    for (const auto& cell : r) out << " " << markdown_cell(cell) << " |";
    out << "\n";
  }
}

void Table::render_html(std::ostream& out) const {
  const auto cell = [&](const char* tag, std::size_t c, const std::string& text) {
    out << "<" << tag << (right_[c] ? " class=\"num\"" : "") << ">" << html_escape(text) << "</" << tag << ">";
  };
  out << "<table><thead><tr>";
  for (std::size_t c = 0; c < headers_.size(); ++c) cell("th", c, headers_[c]);
  out << "</tr></thead><tbody>\n";
  for (const auto& r : rows_) {
    out << "<tr>";
    for (std::size_t c = 0; c < r.size(); ++c) cell("td", c, r[c]);
    out << "</tr>\n";
  }
  out << "</tbody></table>\n";
}

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string csv_field(const std::string& value) {
  if (value.find_first_of(",\"\r\n") == std::string::npos) return value;
  std::string out = "\"";
  for (char c : value) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string fixed(double value, int digits) {
  if (!std::isfinite(value)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, value);
  return buf;
}

std::string sig3(double value) {
  if (!std::isfinite(value)) return "-";
  char buf[64];
  const double a = std::fabs(value);
  if (a != 0 && (a < 1e-3 || a >= 1e7)) std::snprintf(buf, sizeof buf, "%.2e", value);
  else if (a >= 100) std::snprintf(buf, sizeof buf, "%.0f", value);
  else if (a >= 10) std::snprintf(buf, sizeof buf, "%.1f", value);
  else if (a >= 1) std::snprintf(buf, sizeof buf, "%.2f", value);
  else std::snprintf(buf, sizeof buf, "%.3g", value);
  return buf;
}

std::string percent_change(double ratio) {
  if (!std::isfinite(ratio)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", (ratio - 1.0) * 100.0);
  return buf;
}

}  // namespace meshbench::analysis
