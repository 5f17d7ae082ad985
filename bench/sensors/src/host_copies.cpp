#include "bench/sensors/host_copies.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace meshbench::bench {

CopySources copy_sources(int gpu_numa, int count, const std::vector<std::uint64_t>& distances) {
  CopySources s;
  if (gpu_numa < 0 || gpu_numa >= count) return s;
  s.local = gpu_numa;
  const bool known = distances.size() == static_cast<std::size_t>(count) * static_cast<std::size_t>(count);
  std::uint64_t farthest = 0;
  for (int n = 0; n < count; ++n) {
    if (n == gpu_numa) continue;
    const std::uint64_t d =
        known ? distances[static_cast<std::size_t>(gpu_numa * count + n)] : static_cast<std::uint64_t>(std::abs(n - gpu_numa));
    if (s.remote < 0 || d > farthest) {
      s.remote = n;
      farthest = d;
    }
  }
  return s;
}

double copy_gbps(std::uint64_t bytes, double seconds) { return seconds > 0 ? static_cast<double>(bytes) / seconds / 1e9 : 0; }

results::HostCopyRow host_copy_row(const std::string& host, int rank, const std::string& bus_id, int numa_node, bool local,
                                   bool host_to_device, std::uint64_t bytes, const std::vector<double>& seconds) {
  results::HostCopyRow row{
      host, rank, bus_id, numa_node, local ? "local" : "remote", host_to_device ? "h2d" : "d2h", bytes, static_cast<int>(seconds.size()),
      0,    0};
  if (seconds.empty()) return row;
  std::vector<double> sorted = seconds;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  const double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  row.gbps_median = copy_gbps(bytes, median);
  row.gbps_max = copy_gbps(bytes, sorted.front());
  return row;
}

std::string encode_host_copies(const std::vector<results::HostCopyRow>& rows) {
  std::ostringstream out;
  out.precision(17);
  for (const auto& r : rows) {
    out << r.host << '\t' << r.rank << '\t' << r.bus_id << '\t' << r.numa_node << '\t' << r.locality << '\t' << r.direction << '\t'
        << r.bytes << '\t' << r.iters << '\t' << r.gbps_median << '\t' << r.gbps_max << '\n';
  }
  return out.str();
}

std::vector<results::HostCopyRow> decode_host_copies(const std::string& text) {
  std::vector<results::HostCopyRow> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream f(line);
    results::HostCopyRow r;
    std::string field;
    const auto next = [&] {
      if (!std::getline(f, field, '\t')) throw std::runtime_error("a host-copy row lost its fields: " + line);
      return field;
    };
    r.host = next();
    r.rank = std::stoi(next());
    r.bus_id = next();
    r.numa_node = std::stoi(next());
    r.locality = next();
    r.direction = next();
    r.bytes = std::stoull(next());
    r.iters = std::stoi(next());
    r.gbps_median = std::stod(next());
    r.gbps_max = std::stod(next());
    rows.push_back(std::move(r));
  }
  return rows;
}

#ifndef MESHBENCH_HAVE_CUDA
bool host_copies_built() { return false; }
std::vector<results::HostCopyRow> measure_host_copies(const HostCopyRequest&) {
  throw std::runtime_error("this meshbench was built without CUDA");
}
#endif

}  // namespace meshbench::bench
