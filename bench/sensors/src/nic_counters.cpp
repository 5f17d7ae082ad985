#include "bench/sensors/nic_counters.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "common/error.hpp"
#include "common/strings.hpp"

namespace meshbench::bench {

namespace fs = std::filesystem;
using results::NicCounter;

namespace {

bool parse_u64(std::string_view s, std::int64_t& out) {
  s = trim(s);
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return false;
  // Counters are 64-bit; past 2^63 they are as good as wrapped, and the delta says so (-1).
  out = v > static_cast<std::uint64_t>(INT64_MAX) ? -1 : static_cast<std::int64_t>(v);
  return true;
}

NicReading empty_reading(std::string nic, std::string kind) {
  NicReading r{std::move(nic), std::move(kind), {}};
  r.values.fill(-1);
  return r;
}

// proc/net/dev's columns: receive bytes, packets, errs, drop, fifo, frame, compressed,
// multicast; then transmit bytes, packets, errs, drop, fifo, colls, carrier, compressed.
constexpr int kProcNetDevColumns = 16;
struct ProcColumn {
  int column;
  NicCounter counter;
};
constexpr ProcColumn kProcColumns[] = {{0, NicCounter::rx_bytes},   {1, NicCounter::rx_packets}, {2, NicCounter::rx_errors},
                                       {3, NicCounter::rx_dropped}, {8, NicCounter::tx_bytes},   {9, NicCounter::tx_packets},
                                       {10, NicCounter::tx_errors}, {11, NicCounter::tx_dropped}};

// An RDMA counter file's name, what it becomes, and by what it is multiplied.
struct RdmaName {
  const char* file;
  NicCounter counter;
  std::int64_t scale;
};
// hw_counters: EFA's names (and mlx5's ACK timeout, after which the sender retransmits).
constexpr RdmaName kHwCounters[] = {
    {"tx_bytes", NicCounter::tx_bytes, 1},
    {"rx_bytes", NicCounter::rx_bytes, 1},
    {"tx_pkts", NicCounter::tx_packets, 1},
    {"rx_pkts", NicCounter::rx_packets, 1},
    {"rx_drops", NicCounter::rx_dropped, 1},
    {"retrans_pkts", NicCounter::retrans_packets, 1},
    {"retrans_bytes", NicCounter::retrans_bytes, 1},
    {"retrans_timeout_events", NicCounter::retrans_timeouts, 1},
    {"local_ack_timeout_err", NicCounter::retrans_timeouts, 1},
    {"unresponsive_remote_events", NicCounter::unresponsive_remote, 1},
    {"impaired_remote_conn_events", NicCounter::impaired_remote, 1},
    {"rdma_read_bytes", NicCounter::rdma_read_bytes, 1},
    {"rdma_write_bytes", NicCounter::rdma_write_bytes, 1},
};
// counters: InfiniBand's port counters; the data counters count 4-byte words.
constexpr RdmaName kPortCounters[] = {
    {"port_xmit_data", NicCounter::tx_bytes, 4},       {"port_rcv_data", NicCounter::rx_bytes, 4},
    {"port_xmit_packets", NicCounter::tx_packets, 1},  {"port_rcv_packets", NicCounter::rx_packets, 1},
    {"port_xmit_discards", NicCounter::tx_dropped, 1}, {"port_rcv_errors", NicCounter::rx_errors, 1},
};

template <std::size_t N>
void apply(NicReading& r, const std::string& folder, const RdmaName (&names)[N], const std::map<std::string, std::string>& files) {
  for (const auto& n : names) {
    const auto it = files.find(n.file);
    if (it == files.end()) continue;
    std::int64_t v = 0;
    if (!parse_u64(it->second, v))
      throw InputError(one_line(r.nic + ": " + folder + "/" + n.file + " is not a counter ('" +
                                std::string(trim(it->second).substr(0, 40)) +
                                "'); point --counter-root at a folder holding sys/class/infiniband"));
    // Words past 2^63 bytes are as good as wrapped, like a counter past 2^63.
    if (v > INT64_MAX / n.scale) v = -1;
    auto& slot = r.values[results::index_of(n.counter)];
    if (slot < 0) slot = v < 0 ? -1 : v * n.scale;  // the first source that has it wins
  }
}

bool read_file(const fs::path& p, std::string& out) {
  std::ifstream in(p);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  out = s.str();
  return true;
}

// Every readable file of a folder by name (sysfs counter files are small).
std::map<std::string, std::string> files_of(const fs::path& dir) {
  std::map<std::string, std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string text;
    if (it->is_regular_file(ec) && read_file(it->path(), text)) out[it->path().filename().string()] = text;
  }
  return out;
}

std::vector<fs::path> sorted_entries(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<NicReading> parse_proc_net_dev(std::string_view text) {
  std::vector<NicReading> out;
  std::istringstream in{std::string(text)};
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (number <= 2) {
      if (number == 2 && line.find("|bytes") == std::string::npos)
        throw InputError("proc/net/dev: line 2 is not its column header; point --counter-root at a host's root folder");
      continue;
    }
    if (trim(line).empty()) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) throw InputError("proc/net/dev: line " + std::to_string(number) + " has no 'NAME:'");
    const std::string name(trim(std::string_view(line).substr(0, colon)));
    std::istringstream fields(line.substr(colon + 1));
    std::vector<std::string> columns;
    for (std::string f; fields >> f;) columns.push_back(f);
    if (name.empty() || columns.size() != kProcNetDevColumns)
      throw InputError("proc/net/dev: line " + std::to_string(number) + " has " + std::to_string(columns.size()) + " counters, not " +
                       std::to_string(kProcNetDevColumns));
    if (name == "lo") continue;
    NicReading r = empty_reading(name, "ethernet");
    for (const auto& c : kProcColumns) {
      std::int64_t v = 0;
      if (!parse_u64(columns[static_cast<std::size_t>(c.column)], v))
        throw InputError("proc/net/dev: line " + std::to_string(number) + " column " + std::to_string(c.column + 1) + " is not a number");
      r.values[results::index_of(c.counter)] = v;
    }
    out.push_back(std::move(r));
  }
  if (number < 2) throw InputError("proc/net/dev: no column header; point --counter-root at a host's root folder");
  return out;
}

NicReading parse_rdma_port(const std::string& nic, const std::map<std::string, std::string>& hw_counters,
                           const std::map<std::string, std::string>& counters) {
  NicReading r = empty_reading(nic, "rdma");
  apply(r, "hw_counters", kHwCounters, hw_counters);
  apply(r, "counters", kPortCounters, counters);
  return r;
}

std::vector<NicReading> read_nic_counters(const std::string& root) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) throw InputError("--counter-root '" + root + "' is not a folder; give a host's root folder such as /");
  std::vector<NicReading> out;
  for (const auto& dev : sorted_entries(fs::path(root) / "sys/class/infiniband")) {
    for (const auto& port : sorted_entries(dev / "ports")) {
      const auto hw = files_of(port / "hw_counters");
      const auto counters = files_of(port / "counters");
      if (hw.empty() && counters.empty()) continue;
      out.push_back(parse_rdma_port(dev.filename().string() + ":" + port.filename().string(), hw, counters));
    }
  }
  if (std::string text; read_file(fs::path(root) / "proc/net/dev", text)) {
    for (auto& r : parse_proc_net_dev(text)) out.push_back(std::move(r));
  }
  return out;
}

std::vector<NicReading> counter_growth(const std::vector<NicReading>& before, const std::vector<NicReading>& after) {
  std::vector<NicReading> out;
  for (const auto& a : after) {
    const auto b = std::find_if(before.begin(), before.end(), [&](const NicReading& r) { return r.nic == a.nic; });
    if (b == before.end()) continue;
    NicReading d = empty_reading(a.nic, a.kind);
    for (std::size_t i = 0; i < d.values.size(); ++i) {
      if (a.values[i] >= 0 && b->values[i] >= 0 && a.values[i] >= b->values[i]) d.values[i] = a.values[i] - b->values[i];
    }
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<std::string> parse_test_counter_roots(const char* text) {
  std::vector<std::string> out;
  if (text == nullptr) return out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    if (item.empty()) throw InputError("MESHBENCH_TEST_COUNTER_ROOTS: an empty folder name; give a list like t0,t1,t2");
    out.push_back(item);
  }
  return out;
}

}  // namespace meshbench::bench
