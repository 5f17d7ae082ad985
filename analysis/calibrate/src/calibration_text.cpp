#include "analysis/calibrate/calibration_text.hpp"

#include <cmath>
#include <sstream>

#include "analysis/report/text_table.hpp"
#include "common/sizes.hpp"
#include "common/strings.hpp"

namespace meshbench::analysis {

namespace {

std::string percent(double fraction) { return std::isfinite(fraction) ? fixed(100.0 * fraction, 1) + "%" : "-"; }

std::string exponent_line(const char* what, const std::optional<double>& exponent, const mapping::FitQuality& q) {
  if (!exponent) return std::string(what) + ": not determined (no concurrent point shares one)";
  return std::string(what) + ": sharing(k) = k^" + fixed(*exponent, 2) + " from " + std::to_string(q.points) + " points, median error " +
         percent(q.median_rel_error) + ", p90 " + percent(q.p90_rel_error) + ", rms log residual " + fixed(q.rms_log_residual, 3);
}

}  // namespace

std::string calibration_text(const mapping::Calibration& c) {
  std::ostringstream out;
  out << "calibration of " << c.topology_summary << " (topology " << c.topology_digest << "), fitted " << c.created_at << " from "
      << join(c.sources, ", ") << "\n";
  // "of line": the bandwidth over the line rate it was fitted at (links of other rates scale).
  Table t({"link", "family", ">from size", ">alpha us", ">bandwidth GB/s", ">of line", ">points", ">median error", ">p90 error"});
  for (const auto& l : c.links) {
    for (const auto& s : l.segments) {
      t.add({std::string(topology::to_string(l.link)), std::string(ops::to_string(l.family)), format_bytes(s.min_bytes), sig3(s.alpha_us),
             sig3(s.bandwidth_gbps), l.line_gbps > 0 ? percent(s.bandwidth_gbps / l.line_gbps) + " of " + sig3(l.line_gbps) : "-",
             std::to_string(s.quality.points), percent(s.quality.median_rel_error), percent(s.quality.p90_rel_error)});
    }
  }
  t.render_text(out);
  out << "  " << exponent_line("NIC sharing", c.sharing.nic_exponent, c.sharing.nic_quality) << "\n";
  out << "  " << exponent_line("PCIe switch uplink sharing", c.sharing.uplink_exponent, c.sharing.uplink_quality) << "\n";
  return out.str();
}

}  // namespace meshbench::analysis
