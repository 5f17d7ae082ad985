#pragma once
// Something read around every measured visit of a point, outside its timed part: the NICs'
// counters (nic_counter_sampler.hpp), and any other per-point reading of the machine. The
// runner calls before_point just before a visit's first op (after the machine-state probe's
// reading) and after_point just after its last op (before the probe's next reading), on every
// rank, so a sampler may use collectives of the world; what a sampler sends between ranks must
// come after its own reading in after_point, so that it never counts itself.
#include <cstdint>

#include "results/records.hpp"

namespace meshbench::bench {

// Which visit: the point, the round (0 first) and the attempt (1 first; the machine-state probe
// may measure a visit again).
struct SampledVisit {
  const results::PointKey& key;
  int round = 0;
  int attempt = 1;
};

// What the visit did between the two calls.
struct VisitWork {
  bool measured = false;  // false: some rank could not allocate, no op ran
  std::int64_t ops = 0;   // ops every rank ran: warm-up, timed and the check's
};

class PointSampler {
 public:
  virtual ~PointSampler() = default;
  // Collective over the world.
  virtual void before_point(const SampledVisit& visit) = 0;
  // Collective over the world: adds this sampler's rows for the visit to `readings` on world
  // rank 0 (the only rank whose readings are stored).
  virtual void after_point(const SampledVisit& visit, const VisitWork& work, results::PointReadings& readings) = 0;
};

}  // namespace meshbench::bench
