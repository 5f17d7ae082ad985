// run --counter-root DIR: the NIC counters' files under a host's root folder
// (bench/sensors/nic_counters.hpp).
// The input holds the files, separated by NUL bytes: first proc/net/dev's table, then counter
// files as NAME=TEXT, NAME an RDMA port's hw_counters/ file or counters/NAME. Two readings of
// the same files then grow by zero, as a point that moved nothing would.
#include <algorithm>
#include <map>
#include <string>

#include "bench/sensors/nic_counters.hpp"
#include "tests/fuzz/entries.hpp"

namespace meshbench::fuzz {

void nic_counters(std::string_view input) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0; start <= input.size();) {
    const std::size_t end = std::min(input.find('\0', start), input.size());
    parts.push_back(input.substr(start, end - start));
    start = end + 1;
  }
  std::map<std::string, std::string> hw_counters, counters;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    std::string_view name = parts[i].substr(0, parts[i].find('='));
    const std::string text(parts[i].substr(std::min(name.size() + 1, parts[i].size())));
    auto& folder = name.starts_with("counters/") ? counters : hw_counters;
    if (name.starts_with("counters/")) name.remove_prefix(9);
    folder[std::string(name)] = text;
  }
  auto readings = bench::parse_proc_net_dev(parts[0]);
  readings.push_back(bench::parse_rdma_port("efa_0:1", hw_counters, counters));
  (void)bench::counter_growth(readings, readings);
}

}  // namespace meshbench::fuzz
