#include "report_fixture.hpp"

#include <algorithm>
#include <cmath>

#include "mapping/cost_params.hpp"
#include "mapping/ops.hpp"
#include "mapping/plan.hpp"
#include "tests/unit/two_cpu_node.hpp"
#include "topology/json.hpp"

namespace meshbench::analysis::testing {

namespace fs = std::filesystem;

FixtureFile::FixtureFile() : FixtureFile(topology::ClusterTopology::replicate(test_support::two_cpu_node("node"), 2)) {}

FixtureFile::FixtureFile(topology::ClusterTopology topology) : topo_(std::move(topology)) {
  header_.run = {"0.1.0", "meshbench run --tp 2 --ep 2 --etp 1 --out x.h5", "2026-11-29T10:00:00Z", "", "running", "mpi",
                 4,       {"node-0", "node-0", "node-1", "node-1"}};
  header_.provenance.versions = {{"meshbench", "0.1.0"}, {"mpi", "Open MPI v4.1.4"}};
  header_.provenance.environment = {{"OMPI_COMM_WORLD_SIZE", "4"}, {"OMPI_MCA_orte_hnp_uri", "123.0;tcp://10.0.0.1:4000"}};
  header_.layout = {4, 2, 1, 1, 2, 1, 2, 2, "tp-cp-ep-dp-pp", ""};
  // header_.topology stays null: a copy would keep the original's address. write() sets it.
  header_.topology_json = topology::dump_readable(topology::to_json(topo_));
}

const mapping::Mapping& FixtureFile::add_mapping(const std::string& name, const std::string& order, std::vector<int> slot_of_rank) {
  mapping::Layout layout;
  layout.world = 4;
  layout.tp = 2;
  layout.ep = 2;
  layout.etp = 1;
  layout.order = order;
  if (slot_of_rank.empty()) slot_of_rank = {0, 1, 2, 3};
  mappings_.push_back(mapping::make_mapping(name, "test mapping, order " + order, layout, slot_of_rank));
  const auto& m = mappings_.back();
  results::MappingRecord r;
  r.name = m.name;
  r.how = m.how;
  r.digest = mapping::structure_digest(m);
  r.slot_of_rank = m.slot_of_rank;
  for (auto dim : mapping::kAllDims) r.groups.emplace_back(std::string(mapping::to_string(dim)), m.groups[dim]);
  header_.mappings.push_back(r);
  return m;
}

namespace {
void set_pair(std::vector<std::pair<std::string, std::string>>& pairs, const std::string& name, const std::string& value) {
  for (auto& [k, v] : pairs) {
    if (k == name) {
      v = value;
      return;
    }
  }
  pairs.emplace_back(name, value);
}
}  // namespace

void FixtureFile::set_version(const std::string& name, const std::string& value) { set_pair(header_.provenance.versions, name, value); }
void FixtureFile::set_env(const std::string& name, const std::string& value) { set_pair(header_.provenance.environment, name, value); }

void FixtureFile::set_predicted(const std::string& mapping, const std::vector<std::pair<std::string, double>>& predicted) {
  for (auto& m : header_.mappings) {
    if (m.name == mapping) m.predicted_us = predicted;
  }
}

void FixtureFile::keep_plan(const std::optional<mapping::Workload>& workload) {
  mapping::Plan plan;
  plan.created_by = "report tests";
  plan.layout = mappings_.front().layout;
  plan.layout.order = header_.layout.order;
  plan.workload = workload;
  plan.time_basis = workload ? "per_step" : "sweep";
  plan.cost_model = mapping::default_cost_params(topo_);
  plan.topology = mapping::plan_topology(topo_);
  int rank = 0;
  for (const auto& m : mappings_) {
    mapping::PlannedMapping pm;
    pm.mapping = m;
    pm.kind = "order";
    pm.digest = mapping::structure_digest(m);
    pm.rank = ++rank;
    plan.mappings.push_back(pm);
  }
  header_.plan_json = mapping::plan_to_json(plan, true).dump();
}

results::PointRecord& FixtureFile::add_point(const std::string& mapping, const std::string& dim, const std::string& op, std::uint64_t bytes,
                                             double median_us, std::vector<double> samples, std::vector<double> group_us,
                                             const std::string& timing) {
  results::PointRecord p;
  auto& row = p.row;
  row.point.mapping = mapping;
  row.point.dim = dim;
  row.point.op = op;
  row.backend = "mpi";
  row.dtype = "float32";
  row.point.bytes = bytes;
  row.groups = 2;
  row.group_size = 2;
  row.iters = samples.empty() ? 20 : static_cast<int>(samples.size());
  row.point.timing = timing;
  row.point.concurrency = "concurrent";
  row.t_min_us = row.t_median_us = row.t_p90_us = row.t_p99_us = row.t_max_us = row.t_mean_us = median_us;
  row.algbw_gbps = static_cast<double>(bytes) / median_us / 1e3;
  row.busbw_gbps = row.algbw_gbps * mapping::busbw_factor(*mapping::parse_op(op), 2);
  row.wrong = 0;
  if (group_us.empty()) group_us = {median_us, median_us};
  for (std::size_t g = 0; g < group_us.size(); ++g) {
    p.groups.push_back({row.point, static_cast<int>(g), group_us[g], group_us[g], static_cast<double>(bytes) / group_us[g] / 1e3});
  }
  row.slowest_group = static_cast<int>(std::max_element(group_us.begin(), group_us.end()) - group_us.begin());
  for (std::size_t i = 0; i < samples.size(); ++i) p.samples.push_back({row.point, static_cast<int>(i), samples[i]});
  points_.push_back(std::move(p));
  return points_.back();
}

std::string FixtureFile::write(const fs::path& path) const {
  // Set here, not kept: a copy's pointer would name the original's topo_, gone once a loop's
  // fixture is (AddressSanitizer's stack-use-after-scope).
  results::RunHeader header = header_;
  header.topology = &topo_;
  auto w = results::ResultsWriter::create(path.string(), header, true);
  if (!calibration_json_.empty()) w.record_calibration(calibration_json_);
  for (const auto& p : points_) w.append(p);
  w.finish("complete", "2026-11-29T10:05:00Z");
  return path.string();
}

topology::ClusterTopology nic_cluster(double gbit) {
  auto node = test_support::two_cpu_node("node");
  topology::Nic nic;
  nic.name = "eth0";
  nic.kind = topology::NicKind::eth;
  nic.speed_gbps = gbit / 8.0;
  node.nics = {nic};
  node.rails = {{0}, {0}};
  return topology::ClusterTopology::replicate(node, 2);
}

void make_isolated(results::PointRecord& p) {
  p.row.point.concurrency = "isolated";
  p.row.groups = 1;
  for (auto& g : p.groups) g.point.concurrency = "isolated";
  for (auto& s : p.samples) s.point.concurrency = "isolated";
  for (auto& r : p.rounds) r.point.concurrency = "isolated";
}

std::vector<double> pattern_samples(double center, int n, double spread, int phase) {
  // A fixed low-discrepancy walk through [-1, 1): the golden-ratio sequence, shifted by phase.
  std::vector<double> out;
  for (int i = 0; i < n; ++i) {
    const double u = std::fmod(0.6180339887498949 * (i + 1 + 7 * phase), 1.0) * 2.0 - 1.0;
    out.push_back(center * (1.0 + spread * u));
  }
  return out;
}

}  // namespace meshbench::analysis::testing
