#include <ostream>
#include <set>

#include "analysis/doctor/doctor.hpp"
#include "common/strings.hpp"

namespace meshbench::analysis {

namespace {

std::string pad(const std::string& s, std::size_t width) { return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' '); }

}  // namespace

void print_doctor_text(const DoctorFindings& report, std::ostream& out, bool verbose) {
  std::set<std::string> hosts;
  for (const auto& n : report.nodes) hosts.insert(n.host);
  const std::string host_list = join(hosts, ", ");
  out << "meshbench doctor: " << report.world_size << (report.world_size == 1 ? " rank" : " ranks") << " on " << hosts.size()
      << (hosts.size() == 1 ? " node" : " nodes") << " (" << host_list << ")" << (report.mpi ? " over MPI" : ", no MPI launcher")
      << "; template: " << report.env_template_source << "; node type: " << report.node_type_option << (report.strict ? "; strict" : "")
      << "\n";
  std::size_t width = 0;
  for (const auto& c : report.checks) width = std::max(width, c.id.size());
  const std::string indent(6, ' ');
  for (const auto& c : report.checks) {
    out << pad(std::string(to_string(c.status)), 6) << pad(c.id, width + 2) << c.title << " — " << c.reason << "\n";
    if (!c.fix.empty()) out << indent << "fix: " << c.fix << "\n";
    const bool show = verbose || c.status == CheckStatus::warn || c.status == CheckStatus::fail || c.id == "clock.offset";
    if (!show) continue;
    for (const auto& [key, value] : c.details) out << indent << "· " << key << ": " << value << "\n";
  }
  out << "summary: " << report.count(CheckStatus::pass) << " PASS, " << report.count(CheckStatus::warn) << " WARN, "
      << report.count(CheckStatus::fail) << " FAIL, " << report.count(CheckStatus::skip) << " SKIP — exit status " << report.exit_status()
      << "\n";
}

}  // namespace meshbench::analysis
