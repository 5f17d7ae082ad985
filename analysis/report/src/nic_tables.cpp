// The report's NIC-counter section (nic_traffic.hpp): the bytes each host's NICs counted per
// visit against the op's bytes off the host, and every retransmit or drop by point.
#include "analysis/report/src/report_tables.hpp"
#include "common/sizes.hpp"

namespace meshbench::analysis::detail {

namespace {

std::string megabytes(double bytes) { return bytes < 0 ? "-" : fixed(bytes / 1e6, 3); }

std::string visit_name(const results::PointVisit& v) {
  std::string s = v.point.timing;
  if (v.round > 0 || v.attempt > 1) s += " r" + std::to_string(v.round) + (v.attempt > 1 ? "." + std::to_string(v.attempt) : "");
  return s;
}

}  // namespace

Table nic_traffic_table(const Report& report, std::size_t limit, std::size_t& left_out) {
  Table t({"mapping", "dim", "op", ">size", "timing", "host", "nic", ">ops", ">tx MB", ">tx payload MB", ">expected MB",
           ">measured/expected", "model"});
  left_out = 0;
  for (const auto& r : report.nic.rows) {
    if (t.size() >= limit) {
      ++left_out;
      continue;
    }
    const auto& k = r.visit.point;
    t.add({k.mapping, k.dim, k.op, format_bytes(k.bytes), visit_name(r.visit), r.host, r.nic, std::to_string(r.ops),
           megabytes(static_cast<double>(r.tx_bytes)), megabytes(r.tx_payload), megabytes(r.expected_tx),
           r.ratio > 0 ? fixed(r.ratio, 3) : std::string("-"), to_string(r.model)});
  }
  return t;
}

std::vector<std::string> nic_event_lines(const Report& report) {
  std::vector<std::string> out;
  for (const auto& e : report.nic.events) {
    const auto& k = e.visit.point;
    out.push_back(k.mapping + " " + k.dim + " " + k.op + " " + format_bytes(k.bytes) + " " + visit_name(e.visit) + " (" + k.concurrency +
                  "): " + e.host + " " + e.nic + ": " + e.what);
  }
  return out;
}

}  // namespace meshbench::analysis::detail
