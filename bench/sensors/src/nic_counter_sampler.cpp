#include "bench/sensors/nic_counter_sampler.hpp"

#include <sstream>

#include "common/error.hpp"
#include "common/mpi/host_comm.hpp"
#include "common/mpi/strings.hpp"

namespace meshbench::bench {

namespace {

// A host's growth as text for the gather: its name, then one line per NIC.
std::string encode(const std::string& host, const std::vector<NicReading>& growth) {
  std::ostringstream out;
  out << host << "\n";
  for (const auto& r : growth) {
    out << r.nic << " " << r.kind;
    for (const auto v : r.values) out << " " << v;
    out << "\n";
  }
  return out.str();
}

void decode(const std::string& text, const SampledVisit& visit, std::int64_t ops, std::vector<results::NicCounterDelta>& rows) {
  std::istringstream in(text);
  std::string host;
  if (!std::getline(in, host)) return;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    results::NicCounterDelta d{visit.key, visit.round, visit.attempt, host, "", "", ops, {}};
    d.point.layout.clear();  // a row's layout is its mapping's (point_key.hpp)
    fields >> d.nic >> d.kind;
    for (auto& v : d.counters) fields >> v;
    if (fields) rows.push_back(std::move(d));
  }
}

}  // namespace

NicCounterSampler::NicCounterSampler(MPI_Comm world, std::string root, std::vector<std::string> test_roots)
    : world_(world), host_(mpi::this_host_name()), root_(std::move(root)), test_roots_(std::move(test_roots)) {
  MPI_Comm_rank(world_, &rank_);
  node_ = mpi::split_by_host(world_);  // the host's first rank reads its counters
  int local = 0;
  MPI_Comm_rank(node_, &local);
  reader_ = local == 0;
  // The first root is read once now, so that a wrong --counter-root stops the run before any
  // point (the readings during the run skip a host that cannot be read rather than stop it).
  if (!reader_) return;
  try {
    read_nic_counters(test_roots_.empty() ? root_ : test_roots_.front());
  } catch (const InputError& e) {
    error_ = host_ + ": " + e.what();
  }
}

NicCounterSampler::~NicCounterSampler() {
  if (node_ != MPI_COMM_NULL) MPI_Comm_free(&node_);
}

std::vector<NicReading> NicCounterSampler::read() {
  const std::string& root = test_roots_.empty() ? root_ : test_roots_[std::min(readings_, test_roots_.size() - 1)];
  ++readings_;
  try {
    return read_nic_counters(root);
  } catch (const InputError&) {
    return {};  // this host has no rows for the visit
  }
}

void NicCounterSampler::before_point(const SampledVisit&) {
  if (reader_) before_ = read();
}

void NicCounterSampler::after_point(const SampledVisit& visit, const VisitWork& work, results::PointReadings& readings) {
  std::string mine;
  if (reader_) {
    const auto after = read();
    mine = encode(host_, counter_growth(before_, after));
  }
  // Every rank knows alike whether the visit was measured: one not measured is not reported.
  if (!work.measured) return;
  const auto all = mpi::gather_strings(mine, world_);
  if (rank_ != 0) return;
  for (const auto& text : all) decode(text, visit, work.ops, readings.nic_counters);
}

}  // namespace meshbench::bench
