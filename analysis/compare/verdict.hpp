#pragma once
// One vocabulary for every judgement compare and history make (docs/gate.md, "Reading the
// verdict"). A unit (a point, a family of points, the whole run) gets a Verdict; the comparison
// as a whole gets a GateVerdict, which is also the exit status CI reads.
namespace meshbench::analysis {

// The levels at which points are judged together. A real regression moves a family (one op at
// one size everywhere: a protocol threshold; one collective at every size: an algorithm; a
// dimension: a link; the whole run: a transport or a driver), a rerun's noise mostly does not.
enum class UnitKind { point, op_size, collective, dimension, run };
const char* to_string(UnitKind k);
inline constexpr int kUnitKinds = 5;

// The two choices that make a judge (docs/gate.md): where each unit's noise comes from — how the
// other points moved between two runs, the differences between baseline runs, or the
// differences between successive runs of a history — and how new runs are paired with
// baselines: none (every new run against every baseline) or interleaved (each new run against
// the baselines launched just before and after it).
enum class NoiseSource { points, baseline_runs, history };
enum class Pairing { none, interleaved };
const char* to_string(NoiseSource s);
const char* to_string(Pairing p);

// "inconclusive": the unit moved by more than the threshold but not beyond its noise, or its
// noise alone exceeds the threshold: the runs at hand cannot say; more runs would.
enum class Verdict { unchanged, improved, regressed, inconclusive, wrong };
const char* to_string(Verdict v);

// What a comparison or a history concludes: clean (exit 0), regression (1: a unit regressed or
// gave wrong results), inconclusive (3: the runs cannot support either answer).
enum class GateVerdict { clean, regression, inconclusive };
const char* to_string(GateVerdict v);
int exit_status(GateVerdict v);

// The JSON every form of compare writes, and history's verdict fields: "meshbench.compare",
// version 2 (docs/compare.schema.json).
inline constexpr const char* kCompareSchema = "meshbench.compare";
inline constexpr int kCompareSchemaVersion = 2;

}  // namespace meshbench::analysis
