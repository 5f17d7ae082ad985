#include <algorithm>
#include <cctype>
#include <charconv>
#include <istream>

#include "analysis/logs/nccl_log.hpp"
#include "common/strings.hpp"

namespace meshbench::analysis {

namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// The token after `mark` in `s` (up to a space, comma or parenthesis), "" when `mark` is absent.
std::string after(std::string_view s, std::string_view mark) {
  const auto pos = s.find(mark);
  if (pos == std::string_view::npos) return {};
  std::size_t start = pos + mark.size();
  while (start < s.size() && s[start] == ' ') ++start;
  std::size_t end = start;
  while (end < s.size() && s[end] != ' ' && s[end] != ',' && s[end] != '(' && s[end] != ')') ++end;
  return std::string(s.substr(start, end - start));
}

int int_after(std::string_view s, std::string_view mark) {
  const std::string t = after(s, mark);
  try {
    return t.empty() ? -1 : std::stoi(t);
  } catch (const std::exception&) {
    return -1;
  }
}

// "N coll channels, M collnet channels, K nvls channels, P p2p channels, Q p2p channels per peer"
// (older NCCL: "N coll channels, P p2p channels, Q p2p channels per peer").
int count_before(std::string_view s, std::string_view label) {
  const auto pos = s.find(label);
  if (pos == std::string_view::npos) return -1;
  std::size_t end = pos;
  while (end > 0 && s[end - 1] == ' ') --end;
  std::size_t start = end;
  while (start > 0 && std::isdigit(static_cast<unsigned char>(s[start - 1])) != 0) --start;
  int n = -1;  // digits past INT_MAX (a damaged line) count as no number, as none does
  if (start == end || std::from_chars(s.data() + start, s.data() + end, n).ec != std::errc()) return -1;
  return n;
}

// "r[dev]" -> r
std::optional<int> peer_rank(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) != 0) ++i;
  int rank = 0;
  if (i == 0 || std::from_chars(s.data(), s.data() + i, rank).ec != std::errc()) return std::nullopt;
  return rank;
}

}  // namespace

// One process's view of one communicator (NCCL prints one such entry per rank).
struct RankComm {
  std::string key;  // host:pid:pointer
  std::string host;
  std::string comm_id;
  int rank = -1;
  int nranks = -1;
  int nnodes = -1;
  bool complete = false;
  int coll = -1;
  int nvls = -1;
  int p2p = -1;
  int ring_channels = -1;
  std::vector<NcclConnection> connections;
};

struct NcclLogParser::State {
  NcclLogSummary summary;
  std::map<std::string, RankComm> comms;
  std::vector<std::string> order;
  // NCCL sets up one communicator at a time per thread; lines without a comm pointer (channels,
  // connections) belong to the last one that thread (else that process) announced.
  std::map<std::string, std::string> by_thread;
  std::map<std::string, std::string> by_process;
  // A communicator destroyed and the next one created at the same address: each "Init START"
  // of an address already seen begins a new communicator there (its key gets "#N").
  std::map<std::string, int> reuses;

  RankComm& comm_for(const NcclLine& l) {
    const std::string process = l.host + ":" + std::to_string(l.pid);
    std::string key;
    if (auto it = by_thread.find(process + ":" + std::to_string(l.tid)); it != by_thread.end()) {
      key = it->second;
    } else if (auto jt = by_process.find(process); jt != by_process.end()) {
      key = jt->second;
    } else {
      key = process + ":?";
    }
    return comm(key, l.host);
  }

  RankComm& comm(const std::string& key, const std::string& host) {
    auto [it, inserted] = comms.try_emplace(key);
    if (inserted) {
      it->second.key = key;
      it->second.host = host;
      order.push_back(key);
    }
    return it->second;
  }

  void on_comm_line(const NcclLine& l) {
    const std::string ptr = after(l.message, "comm ");
    if (ptr.rfind("0x", 0) != 0) return;
    const std::string process = l.host + ":" + std::to_string(l.pid);
    const std::string address = process + ":" + ptr;
    int& reuse = reuses[address];
    const auto key_of = [&] { return reuse == 0 ? address : address + "#" + std::to_string(reuse); };
    if (l.message.find("Init START") != std::string::npos && comms.count(key_of()) != 0) ++reuse;
    RankComm& c = comm(key_of(), l.host);
    adopt_placeholder(process, c);
    by_thread[process + ":" + std::to_string(l.tid)] = c.key;
    by_process[process] = c.key;
    if (int r = int_after(l.message, " rank "); r >= 0) c.rank = r;
    if (int n = int_after(l.message, " nRanks "); n > 0) c.nranks = n;
    if (int n = int_after(l.message, " nranks "); n > 0) c.nranks = n;
    if (int n = int_after(l.message, " nNodes "); n > 0) c.nnodes = n;
    if (auto id = after(l.message, " commId "); !id.empty()) c.comm_id = id;
    if (l.message.find("Init COMPLETE") != std::string::npos) c.complete = true;
  }

  // Older NCCL announced the comm pointer only at "Init COMPLETE", after its channel lines: the
  // lines collected for the process so far belong to the first comm it then names.
  void adopt_placeholder(const std::string& process, RankComm& c) {
    auto it = comms.find(process + ":?");
    if (it == comms.end()) return;
    RankComm& p = it->second;
    c.connections.insert(c.connections.begin(), p.connections.begin(), p.connections.end());
    c.coll = std::max(c.coll, p.coll);
    c.nvls = std::max(c.nvls, p.nvls);
    c.p2p = std::max(c.p2p, p.p2p);
    c.ring_channels = std::max(c.ring_channels, p.ring_channels);
    order.erase(std::remove(order.begin(), order.end(), p.key), order.end());
    comms.erase(it);
  }

  void on_channel_line(const NcclLine& l) {
    std::string_view m = l.message;
    m.remove_prefix(std::string_view("Channel ").size());
    const auto colon = m.find(" : ");
    if (colon == std::string_view::npos) return;
    const std::string_view head = m.substr(0, colon);
    std::string_view rest = m.substr(colon + 3);
    const auto arrow = rest.find(" -> ");
    if (arrow == std::string_view::npos) {
      // A ring: "Channel 00/24 :    0   1   2   3"; after the slash is the channel count.
      const auto slash = head.find('/');
      if (slash != std::string_view::npos) {
        const int n = int_after(head.substr(slash), "/");
        RankComm& c = comm_for(l);
        c.ring_channels = std::max(c.ring_channels, n);
      }
      return;
    }
    const auto via = rest.find(" via ");
    if (via == std::string_view::npos) return;
    const auto from = peer_rank(rest);
    std::string_view to_part = rest.substr(arrow + 4);
    const auto to = peer_rank(to_part);
    if (!from || !to) return;
    NcclConnection conn;
    conn.channel = peer_rank(head).value_or(0);
    conn.from_rank = *from;
    conn.to_rank = *to;
    const std::string_view between = rest.substr(arrow + 4, via - arrow - 4);
    if (between.find("[send]") != std::string_view::npos) conn.direction = "send";
    if (between.find("[receive]") != std::string_view::npos) conn.direction = "receive";
    std::string_view v = rest.substr(via + 5);
    while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
    conn.via = std::string(v);
    conn.transport = classify_nccl_transport(v);
    comm_for(l).connections.push_back(std::move(conn));
  }

  void on_version(std::string_view message) {
    const std::string v = after(message, "NCCL version ");
    const auto plus = v.find('+');
    summary.nccl_version = v.substr(0, plus);
    summary.nccl_versions.insert(summary.nccl_version);
    if (plus != std::string::npos && v.compare(plus + 1, 4, "cuda") == 0) summary.nccl_cuda = v.substr(plus + 5);
  }

  void on_ofi(std::string_view m) {
    if (starts_with(m, "NET/OFI Initializing aws-ofi-nccl ")) summary.ofi_plugin_version = after(m, "aws-ofi-nccl ");
    if (starts_with(m, "NET/OFI Using Libfabric version ")) summary.ofi_libfabric_version = after(m, "version ");
    if (starts_with(m, "NET/OFI Plugin selected platform: ")) summary.ofi_platform = after(m, "platform: ");
    if (starts_with(m, "NET/OFI Using transport protocol ")) summary.ofi_protocol = after(m, "protocol ");
    // "Selected provider is efa, fabric is efa (found 16 nics)"; older plugins "Selected Provider is efa".
    const std::string low = lower(m);
    if (low.find("selected provider is ") != std::string::npos) {
      const auto offset = low.find("selected provider is ");
      summary.ofi_provider = after(m.substr(offset), "is ");
      if (auto f = low.find("fabric is "); f != std::string::npos) summary.ofi_fabric = after(m.substr(f), "is ");
      if (auto n = int_after(low, "(found "); n >= 0) summary.ofi_nics = n;
    }
  }

  void on_plugin(std::string_view m) {
    constexpr std::string_view kLoaded = "Loaded net plugin ";
    if (auto pos = m.find(kLoaded); pos != std::string_view::npos) {
      std::string name(m.substr(pos + kLoaded.size()));
      while (!name.empty() && name.back() == ' ') name.pop_back();
      if (std::find(summary.net_plugins.begin(), summary.net_plugins.end(), name) == summary.net_plugins.end()) {
        summary.net_plugins.push_back(name);
      }
    } else if (m.find("No plugin found") != std::string_view::npos) {
      if (summary.net_plugins.empty()) summary.net_plugins.push_back("none (internal)");
    }
  }

  void add(std::string_view raw) {
    ++summary.lines;
    const auto parsed = parse_nccl_line(raw);
    if (!parsed) return;
    const NcclLine& l = *parsed;
    ++summary.nccl_lines;
    if (!l.host.empty()) {
      summary.hosts.insert(l.host);
      summary.processes.insert(l.host + ":" + std::to_string(l.pid));
    }
    const std::string_view m = l.message;
    if (l.level == "WARN") {
      summary.warnings.push_back({l.host, l.pid, l.location, l.message, l.timestamp});
      return;
    }
    if (starts_with(m, "NCCL version ")) return on_version(m);
    if (starts_with(m, "cudaDriverVersion ")) {
      summary.cuda_driver = after(m, "cudaDriverVersion ");
      return;
    }
    if (starts_with(m, "NET/Plugin")) return on_plugin(m);
    if (starts_with(m, "Using network ")) {
      std::string net(m.substr(std::string_view("Using network ").size()));
      while (!net.empty() && net.back() == ' ') net.pop_back();
      summary.networks.insert(net);
      return;
    }
    if (starts_with(m, "NET/OFI ")) return on_ofi(m);
    if (starts_with(m, "NVLS multicast support is ")) {
      ++(m.find("is not available") != std::string_view::npos ? summary.nvls_unavailable : summary.nvls_available);
      return;
    }
    if (starts_with(m, "Channel ")) return on_channel_line(l);
    if (m.find(" coll channels") != std::string_view::npos) {
      RankComm& c = comm_for(l);
      c.coll = count_before(m, " coll channels");
      c.nvls = count_before(m, " nvls channels");
      c.p2p = count_before(m, " p2p channels,");
      return;
    }
    if (m.find("comm 0x") != std::string_view::npos) on_comm_line(l);
  }

  NcclLogSummary finish() {
    std::map<std::string, std::size_t> index;  // communicator key -> position
    for (const auto& key : order) {
      const RankComm& rc = comms.at(key);
      const std::string id = rc.comm_id.empty() ? rc.key : rc.comm_id;
      auto [it, inserted] = index.try_emplace(id, summary.communicators.size());
      if (inserted) {
        summary.communicators.emplace_back();
        summary.communicators.back().comm_id = id;
      }
      NcclCommunicator& c = summary.communicators[it->second];
      c.nranks = std::max(c.nranks, rc.nranks);
      c.nnodes = std::max(c.nnodes, rc.nnodes);
      if (rc.rank >= 0) c.ranks_seen.insert(rc.rank);
      c.hosts.insert(rc.host);
      c.init_complete += rc.complete ? 1 : 0;
      c.coll_channels = std::max({c.coll_channels, rc.coll, rc.ring_channels});
      c.nvls_channels = std::max(c.nvls_channels, rc.nvls);
      c.p2p_channels = std::max(c.p2p_channels, rc.p2p);
      for (const auto& conn : rc.connections) {
        ++c.transport_counts[conn.transport];
        ++summary.transport_counts[conn.transport];
        c.pairs[{conn.from_rank, conn.to_rank}].insert(conn.transport);
      }
    }
    return std::move(summary);
  }
};

NcclLogParser::NcclLogParser() : state_(std::make_unique<State>()) {}
NcclLogParser::~NcclLogParser() = default;
void NcclLogParser::add(std::istream& in) {
  std::string line;
  while (std::getline(in, line)) state_->add(line);
}
NcclLogSummary NcclLogParser::finish() { return state_->finish(); }

NcclLogSummary parse_nccl_log(std::istream& in) {
  NcclLogParser parser;
  parser.add(in);
  return parser.finish();
}

std::set<NcclTransport> transports_used(const NcclLogSummary& summary) {
  return transports_used(summary, [](const NcclCommunicator&) { return true; });
}

std::set<NcclTransport> transports_used(const NcclLogSummary& summary, const std::function<bool(const NcclCommunicator&)>& select) {
  std::set<NcclTransport> out;
  for (const auto& c : summary.communicators) {
    if (!select(c)) continue;
    for (const auto& [t, n] : c.transport_counts) {
      if (n > 0) out.insert(t);
    }
  }
  return out;
}

}  // namespace meshbench::analysis
