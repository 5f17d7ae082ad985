#include "analysis/report/nic_traffic.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace meshbench::analysis {

using results::NicCounter;

const char* to_string(TrafficModel model) {
  switch (model) {
    case TrafficModel::exact: return "exact";
    case TrafficModel::ring: return "ring";
    case TrafficModel::none: break;
  }
  return "none";
}

std::map<std::string, double> bytes_off_each_host(ops::Op op, std::uint64_t bytes, const std::vector<std::vector<int>>& groups,
                                                  const std::vector<std::string>& host_of_rank, TrafficModel& model) {
  std::map<std::string, double> out;
  const auto host = [&](int rank) { return rank >= 0 && static_cast<std::size_t>(rank) < host_of_rank.size() ? host_of_rank[rank] : ""; };
  for (const auto& h : host_of_rank) out[h] = 0;
  model = TrafficModel::none;
  if (op == ops::Op::all_to_allv) return out;  // the skewed matrix is the run's, not the file's
  model = op == ops::Op::all_to_all || op == ops::Op::send_recv ? TrafficModel::exact : TrafficModel::ring;
  const auto b = static_cast<double>(bytes);
  for (const auto& g : groups) {
    const auto n = g.size();
    if (n < 2) continue;
    const double dn = static_cast<double>(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::string from = host(g[i]);
      const auto off = [&](std::size_t j) { return host(g[j]) != from; };
      switch (op) {
        case ops::Op::all_reduce:
          if (off((i + 1) % n)) out[from] += 2 * (dn - 1) / dn * b;
          break;
        case ops::Op::all_gather:
        case ops::Op::reduce_scatter:
          if (off((i + 1) % n)) out[from] += (dn - 1) / dn * b;
          break;
        case ops::Op::all_to_all:
          for (std::size_t j = 0; j < n; ++j) {
            if (j != i && off(j)) out[from] += b / dn;
          }
          break;
        case ops::Op::send_recv:  // each stage sends its buffer to both neighbouring stages
          if (i > 0 && off(i - 1)) out[from] += b;
          if (i + 1 < n && off(i + 1)) out[from] += b;
          break;
        case ops::Op::all_to_allv: break;
      }
    }
  }
  return out;
}

namespace {

double payload(std::int64_t bytes, std::int64_t packets, const std::string& kind) {
  if (bytes < 0) return -1;
  if (kind != "ethernet") return static_cast<double>(bytes);
  if (packets < 0) return -1;
  return static_cast<double>(std::max<std::int64_t>(bytes - packets * kTcpFrameHeaderBytes, 0));
}

std::string plural(std::int64_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

void add_events(const results::NicCounterDelta& d, std::vector<NicEvent>& events) {
  const auto add = [&](std::string what) { events.push_back({results::visit_of(d), d.host, d.nic, std::move(what)}); };
  if (const auto n = d.get(NicCounter::retrans_packets); n > 0) {
    const auto b = d.get(NicCounter::retrans_bytes);
    add(plural(n, "retransmitted packet", "retransmitted packets") + (b >= 0 ? " (" + std::to_string(b) + " bytes)" : ""));
  }
  const std::pair<NicCounter, const char*> counted[] = {{NicCounter::retrans_timeouts, "retransmit timeout(s)"},
                                                        {NicCounter::tx_dropped, "dropped on send"},
                                                        {NicCounter::rx_dropped, "dropped on receive"},
                                                        {NicCounter::tx_errors, "send error(s)"},
                                                        {NicCounter::rx_errors, "receive error(s)"},
                                                        {NicCounter::unresponsive_remote, "unresponsive-remote event(s)"},
                                                        {NicCounter::impaired_remote, "impaired-remote-connection event(s)"}};
  for (const auto& [c, what] : counted) {
    if (const auto n = d.get(c); n > 0) add(std::to_string(n) + " " + what);
  }
}

// One visit of one host.
using HostVisit = std::pair<results::PointVisit, std::string>;
HostVisit host_visit_of(const results::NicCounterDelta& d) { return {results::visit_of(d), d.host}; }

// The bytes each host must send per op of this point, and how that is known.
struct PointModel {
  std::map<std::string, double> per_op;
  TrafficModel model = TrafficModel::none;
};

PointModel model_of(const results::NicCounterDelta& d, const MappingView& view) {
  PointModel m;
  const auto op = ops::parse_op(d.point.op);
  const auto* mapping = view.find_mapping ? view.find_mapping(d.point.mapping) : nullptr;
  // An isolated point runs each group alone with its own count of ops: the file keeps the slowest's.
  if (!op || mapping == nullptr || d.point.concurrency != "concurrent") return m;
  const auto groups = std::find_if(mapping->groups.begin(), mapping->groups.end(), [&](const auto& g) { return g.first == d.point.dim; });
  if (groups == mapping->groups.end()) return m;
  std::vector<std::string> host_of_rank;
  for (const int slot : mapping->slot_of_rank) host_of_rank.push_back(view.host_of_slot ? view.host_of_slot(slot) : "");
  m.per_op = bytes_off_each_host(*op, d.point.bytes, groups->second, host_of_rank, m.model);
  return m;
}

}  // namespace

NicTraffic build_nic_traffic(const std::vector<results::NicCounterDelta>& deltas, const MappingView& view) {
  NicTraffic out;
  // One visit of one host: its NICs' rows side by side, in the file's order.
  std::vector<HostVisit> order;
  std::map<HostVisit, std::vector<const results::NicCounterDelta*>> by_visit;
  for (const auto& d : deltas) {
    add_events(d, out.events);
    auto& rows = by_visit[host_visit_of(d)];
    if (rows.empty()) order.push_back(host_visit_of(d));
    rows.push_back(&d);
  }
  std::set<results::PointVisit> visits;
  std::map<std::string, PointModel> models;  // by mapping, dim, op, concurrency and size
  for (const auto& key : order) {
    const auto& rows = by_visit[key];
    const auto& first = *rows.front();
    visits.insert(key.first);
    const std::string model_key = first.point.mapping + "|" + first.point.dim + "|" + first.point.op + "|" + first.point.concurrency + "|" +
                                  std::to_string(first.point.bytes);
    if (!models.count(model_key)) models[model_key] = model_of(first, view);
    const auto& model = models[model_key];
    std::vector<NicTrafficRow> nics;
    for (const auto* d : rows) {
      NicTrafficRow r{results::visit_of(*d), d->host, d->nic, d->kind, d->ops};
      r.tx_bytes = d->get(NicCounter::tx_bytes);
      r.rx_bytes = d->get(NicCounter::rx_bytes);
      r.tx_payload = payload(r.tx_bytes, d->get(NicCounter::tx_packets), d->kind);
      r.rx_payload = payload(r.rx_bytes, d->get(NicCounter::rx_packets), d->kind);
      r.model = model.model;
      nics.push_back(std::move(r));
    }
    // The carriers: the busiest kind's NICs with a tenth of its busiest NIC's payload or more.
    std::map<std::string, double> by_kind;
    for (const auto& r : nics) by_kind[r.kind] += std::max(r.tx_payload, 0.0) + std::max(r.rx_payload, 0.0);
    const auto busiest_kind =
        std::max_element(by_kind.begin(), by_kind.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    if (busiest_kind == by_kind.end() || busiest_kind->second <= 0) continue;
    double busiest = 0;
    for (const auto& r : nics) {
      if (r.kind == busiest_kind->first) busiest = std::max(busiest, std::max(r.tx_payload, 0.0) + std::max(r.rx_payload, 0.0));
    }
    std::vector<NicTrafficRow> carriers;
    for (auto& r : nics) {
      if (r.kind == busiest_kind->first && std::max(r.tx_payload, 0.0) + std::max(r.rx_payload, 0.0) >= 0.1 * busiest)
        carriers.push_back(std::move(r));
    }
    const auto host = model.per_op.find(first.host);
    for (auto& r : carriers) {
      if (model.model != TrafficModel::none && host != model.per_op.end()) {
        r.expected_tx = host->second * static_cast<double>(r.ops) / static_cast<double>(carriers.size());
        if (r.expected_tx > 0 && r.tx_payload >= 0) r.ratio = r.tx_payload / r.expected_tx;
      }
      out.rows.push_back(std::move(r));
    }
  }
  out.visits = static_cast<int>(visits.size());
  if (!out.rows.empty()) {
    out.notes.push_back(
        "bytes off each host per op: all_to_all and send_recv exactly; all_reduce, all_gather and reduce_scatter as a ring in "
        "the group's order moves them (the library may choose another algorithm; for groups of 2 every one moves the ring's)");
    out.notes.push_back("Ethernet payload = counted bytes - " + std::to_string(kTcpFrameHeaderBytes) +
                        " header bytes per counted packet (IPv4 TCP with timestamps); the model counts the op's data only, "
                        "not the barriers, time reductions or the library's own headers");
  }
  return out;
}

}  // namespace meshbench::analysis
