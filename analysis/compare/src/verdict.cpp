#include "analysis/compare/verdict.hpp"

#include "common/error.hpp"

namespace meshbench::analysis {

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::unchanged: return "unchanged";
    case Verdict::improved: return "improved";
    case Verdict::regressed: return "regressed";
    case Verdict::inconclusive: return "inconclusive";
    case Verdict::wrong: return "wrong";
  }
  return "unchanged";
}

const char* to_string(UnitKind k) {
  switch (k) {
    case UnitKind::point: return "point";
    case UnitKind::op_size: return "op_size";
    case UnitKind::collective: return "collective";
    case UnitKind::dimension: return "dimension";
    case UnitKind::run: return "run";
  }
  return "point";
}

const char* to_string(NoiseSource s) {
  switch (s) {
    case NoiseSource::points: return "points";
    case NoiseSource::baseline_runs: return "baseline_runs";
    case NoiseSource::history: return "history";
  }
  return "points";
}

const char* to_string(Pairing p) { return p == Pairing::interleaved ? "interleaved" : "none"; }

const char* to_string(GateVerdict v) {
  switch (v) {
    case GateVerdict::clean: return "clean";
    case GateVerdict::regression: return "regression";
    case GateVerdict::inconclusive: return "inconclusive";
  }
  return "clean";
}

int exit_status(GateVerdict v) {
  switch (v) {
    case GateVerdict::clean: return kExitOk;
    case GateVerdict::regression: return kExitFailure;
    case GateVerdict::inconclusive: return kExitInconclusive;
  }
  return kExitFailure;
}

}  // namespace meshbench::analysis
