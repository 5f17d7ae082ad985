#include "analysis/import/import_results.hpp"
#include "common/median.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

#include "common/error.hpp"
#include "common/ops/op.hpp"
#include "common/strings.hpp"
#include "common/version.hpp"
#include "mapping/mapping.hpp"

namespace meshbench::analysis {

namespace {

// The one dimension an imported communicator is stored as: with TP = CP = PP = EP = 1 the dp
// group is every rank, which is what nccl-tests and OSU measure.
constexpr const char* kDim = "dp";

double nearest_rank(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const auto n = values.size();
  const auto k = static_cast<std::size_t>(std::max(1.0, std::ceil(q * static_cast<double>(n))));
  return values[std::min(k, n) - 1];
}

// Distinct values in first-seen order, joined.
void add_distinct(std::vector<std::pair<std::string, std::string>>& into, const std::string& name, const std::string& value) {
  for (auto& [k, v] : into) {
    if (k != name) continue;
    if (v != value && ("," + v + ",").find("," + value + ",") == std::string::npos) v += "," + value;
    return;
  }
  into.emplace_back(name, value);
}

// "8x NVIDIA H100 80GB HBM3": each model with how many ranks had it.
std::string devices_in_brief(const std::vector<std::string>& devices) {
  std::vector<std::pair<std::string, int>> counts;
  for (const auto& d : devices) {
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == d; });
    if (it == counts.end()) counts.emplace_back(d, 1);
    else ++it->second;
  }
  return join(counts, ", ", [](const auto& c) { return std::to_string(c.second) + "x " + c.first; });
}

void check_same_shape(const ImportedLog& first, const ImportedLog& log) {
  if (log.tool != first.tool)
    throw InputError(log.path + " is a " + log.tool + " log and " + first.path + " a " + first.tool +
                     " log; import each tool's logs into its own file");
  if (log.ranks != first.ranks)
    throw InputError(log.path + " ran on " + std::to_string(log.ranks) + " ranks and " + first.path + " on " + std::to_string(first.ranks) +
                     "; a results file holds one run shape: import them into separate files");
  if (!log.hosts.empty() && !first.hosts.empty() && log.hosts != first.hosts)
    throw InputError(log.path + " ran on other hosts than " + first.path + " (" + join(std::set(log.hosts.begin(), log.hosts.end()), ",") +
                     "); a results file holds one run shape: import them into separate files");
}

results::PointRecord point_of(const std::vector<const LoggedPoint*>& visits, int ranks, const std::string& mapping,
                              const std::string& backend) {
  const LoggedPoint& first = *visits.front();
  results::PointRecord p;
  auto& r = p.row;
  r.point = {"", mapping, kDim, first.op, first.timing, "concurrent", first.bytes};
  r.backend = backend;
  r.dtype = first.dtype;
  r.groups = 1;
  r.group_size = ranks;
  r.warmup = first.warmup;
  std::vector<double> times;
  std::int64_t iters = 0;
  for (const auto* v : visits) {
    times.push_back(v->time_us);
    iters += v->iters;
    r.wrong = std::max(r.wrong, v->wrong);
  }
  r.iters = static_cast<int>(std::min<std::int64_t>(iters, std::numeric_limits<int>::max()));
  r.t_median_us = median_of(times);
  r.t_mean_us = std::accumulate(times.begin(), times.end(), 0.0) / static_cast<double>(times.size());
  if (visits.size() == 1) {
    // One visit: the spread the tool printed around its mean, where it printed one.
    r.t_min_us = first.min_us.value_or(first.time_us);
    r.t_max_us = first.max_us.value_or(first.time_us);
    r.t_p99_us = first.p99_us.value_or(r.t_max_us);
    r.t_p90_us = r.t_p99_us;  // the tools print no p90: the p99 (or max) stands for it
  } else {
    r.t_min_us = *std::min_element(times.begin(), times.end());
    r.t_max_us = *std::max_element(times.begin(), times.end());
    r.t_p90_us = nearest_rank(times, 0.90);
    r.t_p99_us = nearest_rank(times, 0.99);
  }
  const auto op = ops::parse_op(r.point.op);
  r.algbw_gbps = r.t_median_us > 0 ? static_cast<double>(r.point.bytes) / r.t_median_us / 1e3 : 0;
  r.busbw_gbps = op ? r.algbw_gbps * ops::busbw_factor(*op, ranks) : 0;
  r.slowest_group = 0;
  p.groups.push_back({r.point, 0, r.t_median_us, r.t_p90_us, r.busbw_gbps});
  // Each visit's time is one batch's mean, as meshbench's batched samples are.
  for (std::size_t i = 0; i < visits.size(); ++i) {
    p.samples.push_back({r.point, static_cast<int>(i), visits[i]->time_us});
    if (visits.size() > 1) p.rounds.push_back({r.point, static_cast<int>(i), visits[i]->time_us});
  }
  return p;
}

}  // namespace

ImportedResults imported_results(const std::vector<ImportedLog>& logs, const std::string& command_line, const std::string& started_at) {
  if (logs.empty()) throw InputError("no logs to import; give one or more LOG files");
  const ImportedLog& first = logs.front();
  for (const auto& log : logs) check_same_shape(first, log);
  const int n = first.ranks;
  ImportedResults out;
  auto& h = out.header;
  h.run.meshbench_version = kVersion;
  h.run.command_line = command_line;
  h.run.started_at = started_at;
  h.run.finished_at = started_at;
  h.run.status = "complete";
  h.run.backend = first.tool == "osu" ? "mpi" : "nccl";
  h.run.world_size = n;
  h.run.hosts = first.hosts;
  auto& versions = h.provenance.versions;
  versions.emplace_back("meshbench", kVersion);
  versions.emplace_back("imported_from", first.tool);
  for (const auto& log : logs) {
    for (const auto& [k, v] : log.versions) add_distinct(versions, k, v);
    if (!log.devices.empty()) add_distinct(versions, "devices", devices_in_brief(log.devices));
    for (const auto& e : log.environment) {
      if (std::none_of(h.provenance.environment.begin(), h.provenance.environment.end(), [&](const auto& x) { return x.first == e.first; }))
        h.provenance.environment.push_back(e);
    }
    if (!log.command_line.empty()) add_distinct(versions, "logged_command", log.command_line);
  }
  std::sort(h.provenance.environment.begin(), h.provenance.environment.end());

  mapping::Layout layout;
  layout.world = n;
  h.layout = {n, 1, 1, 1, 1, 1, n, n, layout.order, ""};
  std::vector<int> identity(static_cast<std::size_t>(n));
  std::iota(identity.begin(), identity.end(), 0);
  const std::string name = first.tool;
  const auto m = mapping::make_mapping(
      name, "imported from " + first.tool + " logs: one communicator of all " + std::to_string(n) + " ranks, in rank order", layout,
      identity);
  results::MappingRecord record;
  record.name = m.name;
  record.how = m.how;
  record.digest = mapping::structure_digest(m);
  record.slot_of_rank = m.slot_of_rank;
  for (const auto dim : mapping::kAllDims) record.groups.emplace_back(std::string(mapping::to_string(dim)), m.groups[dim]);
  h.mappings.push_back(std::move(record));

  // Points in the order they were first printed; a point printed again is another round of it.
  using Key = std::tuple<std::string, std::string, std::uint64_t, std::string>;
  std::map<Key, std::size_t> index;
  std::vector<std::vector<const LoggedPoint*>> visits;
  for (const auto& log : logs) {
    for (const auto& p : log.points) {
      const auto [it, fresh] = index.try_emplace(Key{p.op, p.dtype, p.bytes, p.timing}, visits.size());
      if (fresh) visits.emplace_back();
      visits[it->second].push_back(&p);
    }
  }
  int rounds = 1;
  for (const auto& v : visits) {
    rounds = std::max(rounds, static_cast<int>(v.size()));
    out.points.push_back(point_of(v, n, name, h.run.backend));
  }
  h.run.rounds = rounds;
  if (rounds > 1)
    out.notes.push_back("points printed up to " + std::to_string(rounds) +
                        " times (runs appended, or nccl-tests -N) are stored as rounds of one point");
  return out;
}

}  // namespace meshbench::analysis
