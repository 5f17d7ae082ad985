#pragma once
// The machine's state around each measured point, and when a point is measured again.
//
// Why: on a shared or virtual machine the same two cores are not always equally far apart.
// On this project's 2-vCPU VM a cache line goes from one rank's core to the other's and back
// in about 55 ns most of the time and in about 330 ns for spells of seconds to half a minute
// (the host has put the two vCPUs on different last-level caches); in those spells every
// reduction of two ranks is about 3x slower (all-reduce 4 MiB 0.7 ms against 2.5 ms) while
// all-gather is not. A run that lands in such a spell looks exactly like a regression to
// `compare`. The probe (core_to_core_probe.hpp) measures that distance directly, without the
// MPI or NCCL under test, and the runner measures a point again, after waiting for the state
// to come back, when its state was worse than the best the run has seen (docs/run.md).
#include <limits>
#include <vector>

#include "results/records.hpp"

namespace meshbench::bench {

struct StatePolicy {
  bool enabled = true;
  // A visit whose slowest node read this many times its own best is disturbed.
  double factor = results::kMachineStateFactor;
  int max_attempts = 3;         // measurements of one visit, the first included
  double budget_s = 60;         // what the whole run may spend waiting and measuring again
  double wait_per_visit_s = 5;  // the longest wait for the state before one new attempt
  double poll_s = 0.05;         // between probes while waiting
  // Test only (MESHBENCH_TEST_STATE_NS): the readings every rank takes in turn instead of
  // probing, the last one repeated; lets a test drive the re-measuring on any machine.
  std::vector<double> test_readings;
};

// One node's best reading so far (local rank 0 of a probed node keeps it).
class NodeStateBest {
 public:
  // The reading over the best one before it or this one: 1 at the best.
  double observe(double ns) {
    if (ns < best_) best_ = ns;
    return ns / best_;
  }
  double best() const { return best_; }

 private:
  double best_ = std::numeric_limits<double>::infinity();
};

// What one probe of every node says: the largest ratio of a node's reading to its own best (1
// when no node is probed), the slowest node's reading in ns (0 when none), and when: seconds
// since the probe was made, the latest rank's clock, so that every rank decides alike.
struct StateReading {
  double ratio = 1;
  double ns = 0;
  double at_s = 0;
};

// The state of a measured visit: the worse of the readings just before and just after it.
StateReading worse_of(const StateReading& a, const StateReading& b);

bool disturbed(const StateReading& r, const StatePolicy& policy);

// Whether a visit measured in state `r` (attempt `attempt`, 1 the first) is measured again.
bool measure_again(const StateReading& r, int attempt, double budget_left_s, const StatePolicy& policy);

// Parses MESHBENCH_TEST_STATE_NS ("55,330,55"): positive numbers; InputError otherwise.
std::vector<double> parse_test_readings(const char* text);

}  // namespace meshbench::bench
