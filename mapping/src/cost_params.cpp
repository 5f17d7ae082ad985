#include "mapping/cost_params.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "common/strings.hpp"
#include "json_file.hpp"
#include "mapping/nccl_tuning.hpp"

namespace meshbench::mapping {

namespace {

using nlohmann::json;
using topology::LinkClass;

// Per-step latency, us. NCCL's own tables put a ring step at about 1 us over NVLink, a few over
// PCIe and 5-15 over the network; the exact values matter little for MiB-sized messages.
constexpr std::array<double, topology::kLinkClassCount> kAlphaUs = {0.0, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 8.0};
// Fallback bandwidths (GB/s) for a class the topology does not show: H100 NVLink-class, PCIe Gen4
// x16 through one switch, through several, the host bridge, across sockets; a 100 Gb/s NIC.
constexpr std::array<double, topology::kLinkClassCount> kFallbackGbps = {1000.0, 150.0, 100.0, 24.0, 24.0, 16.0, 12.0, 12.5};
// CPU slots (MPI ranks) of one node reach each other through shared memory, whatever the class
// (PHB in one NUMA node, SYS across): about 1 us per step, and one memory copy's bandwidth for
// messages beyond the caches. Both measured with Open MPI 4.1's shared-memory transport (vader,
// CMA single copy) between two ranks (docs/mapping.md, "CPU slots: shared memory").
constexpr double kShmAlphaUs = 1.0;
constexpr double kShmGbps = 2.5;

}  // namespace

CostParams default_cost_params(const topology::ClusterTopology& topo) {
  CostParams p;
  std::array<double, topology::kLinkClassCount> sum{};
  std::array<int, topology::kLinkClassCount> count{}, cpu_count{};
  double fastest_nic = 0;
  for (int i = 0; i < topo.layout_count(); ++i) {
    const auto& node = topo.layout(i);
    for (int a = 0; a < node.slot_count(); ++a) {
      for (int b = 0; b < node.slot_count(); ++b) {
        if (a == b || node.bandwidth_gbps.empty()) continue;
        const auto c = static_cast<std::size_t>(node.link(a, b));
        if (node.bandwidth(a, b) <= 0) continue;
        // The topology gives CPU slots NCCL's path bandwidth (LOC_BW in a NUMA node): a copy
        // through shared memory is what MPI gets, capped by the inter-socket link across sockets.
        const bool cpu = node.slots[static_cast<std::size_t>(a)].kind == topology::SlotKind::cpu &&
                         node.slots[static_cast<std::size_t>(b)].kind == topology::SlotKind::cpu;
        sum[c] += cpu ? std::min(kShmGbps, node.bandwidth(a, b)) : node.bandwidth(a, b);
        ++count[c];
        cpu_count[c] += cpu ? 1 : 0;
      }
    }
    for (const auto& nic : node.nics) fastest_nic = std::max(fastest_nic, nic.speed_gbps);
  }
  for (std::size_t c = 0; c < p.links.size(); ++c) {
    p.links[c].alpha_us = count[c] > 0 && cpu_count[c] == count[c] ? kShmAlphaUs : kAlphaUs[c];
    p.links[c].bandwidth_gbps = count[c] > 0 ? sum[c] / count[c] : kFallbackGbps[c];
  }
  if (fastest_nic > 0) p[LinkClass::NET].bandwidth_gbps = fastest_nic;
  return p;
}

void apply_cost_overrides(CostParams& p, const json& j, const std::string& where) {
  // `what` quotes the file's keys, which may hold line breaks: one line still.
  auto fail = [&where](const std::string& what) {
    throw InputError(one_line("cost model " + where + ": " + what + "; see docs/mapping.md"));
  };
  if (!j.is_object()) fail("must be a JSON object");
  for (const auto& [key, value] : j.items()) {
    if (key == "contention") {
      if (!value.is_boolean()) fail("'contention' must be true or false");
      p.contention = value.get<bool>();
    } else if (key == "a2av_skew") {
      if (!value.is_number() || value.get<double>() < 0) fail("'a2av_skew' must be a number >= 0 (a Zipf exponent; 0 = balanced)");
      p.a2av_skew = value.get<double>();
    } else if (key == "alltoallv_imbalance") {
      fail(
          "'alltoallv_imbalance' (a fixed ratio) is replaced by 'a2av_skew', the routing skew as run --a2av-skew draws it (a Zipf "
          "exponent; 0 = balanced)");
    } else if (key == "sweep_bytes") {
      if (!value.is_array() || value.empty()) fail("'sweep_bytes' must be a non-empty list of sizes in bytes");
      p.sweep_bytes.clear();
      for (const auto& v : value) {
        if (!v.is_number_unsigned() || v.get<std::uint64_t>() == 0) fail("'sweep_bytes' must hold positive integers");
        p.sweep_bytes.push_back(v.get<std::uint64_t>());
      }
    } else if (key == "links") {
      if (!value.is_object()) fail("'links' must map link class names (NVL, NET, ...) to {alpha_us, bandwidth_gbps}");
      for (const auto& [name, link] : value.items()) {
        const auto c = topology::parse_link_class(name);
        if (!c) fail("unknown link class '" + name + "' (use LOC NVL NVB PIX PXB PHB SYS NET)");
        if (!link.is_object()) fail("'links." + name + "' must be an object");
        for (const auto& [field, v] : link.items()) {
          if (!v.is_number() || v.get<double>() < 0) fail("'links." + name + "." + field + "' must be a number >= 0");
          if (field == "alpha_us") {
            p[*c].alpha_us = v.get<double>();
          } else if (field == "bandwidth_gbps") {
            if (v.get<double>() <= 0) fail("'links." + name + ".bandwidth_gbps' must be above 0");
            p[*c].bandwidth_gbps = v.get<double>();
          } else {
            fail("unknown key 'links." + name + "." + field + "' (use alpha_us, bandwidth_gbps)");
          }
        }
      }
    } else if (key == "nccl_tuning") {
      if (!value.is_boolean()) fail("'nccl_tuning' must be true or false");
      p.nccl_tuning = value.get<bool>();
    } else if (key == "nccl_version") {
      const auto version = value.is_string() ? nccl::parse_version(value.get<std::string>()) : std::nullopt;
      if (!version) fail("'nccl_version' must be a release such as \"2.18.5\"");
      p.nccl_version = *version;
    } else if (key == "calibration") {
      // A plan file's cost model carries the calibration it was planned with.
      if (value.is_null()) {
        p.calibration.reset();
      } else {
        p.calibration = calibration_from_json(value, where);
      }
    } else {
      fail("unknown key '" + key + "' (use contention, a2av_skew, nccl_tuning, nccl_version, sweep_bytes, links, calibration)");
    }
  }
}

CostParams load_cost_params(const std::string& path, CostParams base) {
  const json j = detail::read_json_file(path, "cost model");
  // A calibration file from `meshbench calibrate` keeps the α-β parameters for what it does not fit.
  if (is_calibration_json(j)) {
    base.calibration = calibration_from_json(j, "'" + path + "'");
  } else {
    apply_cost_overrides(base, j, "'" + path + "'");
  }
  return base;
}

json to_json(const CostParams& p) {
  json links = json::object();
  for (std::size_t c = 0; c < p.links.size(); ++c) {
    links[std::string(topology::to_string(static_cast<LinkClass>(c)))] = {{"alpha_us", p.links[c].alpha_us},
                                                                          {"bandwidth_gbps", p.links[c].bandwidth_gbps}};
  }
  json j = {{"contention", p.contention},   {"a2av_skew", p.a2av_skew},
            {"nccl_tuning", p.nccl_tuning}, {"nccl_version", nccl::version_string(p.nccl_version)},
            {"sweep_bytes", p.sweep_bytes}, {"links", links}};
  if (p.calibration) j["calibration"] = to_json(*p.calibration);
  return j;
}

}  // namespace meshbench::mapping
