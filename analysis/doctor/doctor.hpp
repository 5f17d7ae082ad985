#pragma once
#include <iosfwd>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/doctor/clock_offset.hpp"
#include "analysis/doctor/doctor_check.hpp"
#include "analysis/doctor/doctor_env.hpp"
#include "analysis/doctor/doctor_facts.hpp"

namespace meshbench::analysis {

// `meshbench doctor`: the collaboration checklist (environment template, versions, provider,
// devices, clocks, GPU health) as checks with a status, a reason and a fix. run_doctor
// (doctor_run.hpp) gathers the facts over MPI; evaluate_doctor turns facts into checks.

// 2: each distinct set of rank facts once with the ranks that hold it ("rank_facts"), where 1
// listed every rank ("ranks"); 1 is still read.
inline constexpr int kDoctorSchemaVersion = 2;

// Environment values, library strings and log lines may hold bytes that are not UTF-8; JSON
// output replaces them (U+FFFD) rather than failing (and, under MPI, leaving ranks waiting).
inline constexpr auto kReplaceInvalidUtf8 = nlohmann::json::error_handler_t::replace;

struct DoctorOptions {
  EnvTemplate env_template = builtin_env_template();
  // "auto": each node's EC2 instance type from DMI where the catalog knows it; otherwise a
  // catalog name (p4d, p5, p5en, ...) that every node must match.
  std::string node_type = "auto";
  // Template variables that are unset, and (with the built-in template) values that differ
  // from it, are WARN; --strict makes them FAIL.
  bool strict = false;
  double clock_threshold_ms = 10.0;
  int clock_samples = 64;
  double inject_clock_offset_ms = 0.0;  // test only: added to every rank's clock but rank 0's
};

struct DoctorFindings {
  int schema_version = kDoctorSchemaVersion;
  std::string meshbench_version;
  std::string created_utc;
  int world_size = 1;
  bool mpi = false;  // gathered over MPI (launched by mpirun/srun) rather than one process
  bool strict = false;
  std::string env_template_source;
  std::string node_type_option;
  std::vector<Check> checks;
  // component -> host -> version, present components only: what compare shows between runs.
  std::map<std::string, std::map<std::string, std::string>> versions;
  std::vector<RankFacts> ranks;  // complete on rank 0; other ranks get checks and versions only
  std::vector<NodeFacts> nodes;
  ClockMeasurement clock;

  const Check* find(std::string_view id) const;
  int count(CheckStatus status) const;
  bool failed() const { return count(CheckStatus::fail) > 0; }
  int exit_status() const;  // kExitFailure when anything FAILs, kExitOk otherwise
};

// Pure: the checks from gathered facts, in the order they are printed.
DoctorFindings evaluate_doctor(std::vector<RankFacts> ranks, std::vector<NodeFacts> nodes, ClockMeasurement clock,
                               const DoctorOptions& options);

// JSON both ways, for the results file (run) and for compare. from_json accepts what to_json
// writes (and version 1's per-rank list) and refuses another schema_version with an InputError.
void to_json(nlohmann::json& j, const Check& c);
void from_json(const nlohmann::json& j, Check& c);
void to_json(nlohmann::json& j, const DoctorFindings& r);
void from_json(const nlohmann::json& j, DoctorFindings& r);
DoctorFindings doctor_findings_from_json(const nlohmann::json& j);

// component -> version where all hosts agree, "mixed: a, b" where they do not.
std::map<std::string, std::string> common_versions(const DoctorFindings& report);

// What changed between two runs' versions (compare): rows of (component, before, after),
// with "absent" for a component one side does not have.
struct VersionChange {
  std::string component;
  std::string before;
  std::string after;
};
std::vector<VersionChange> version_changes(const DoctorFindings& before, const DoctorFindings& after);

// Console form: one line per check, `STATUS  id  title — reason`, then `fix:` and details.
// Details are printed for WARN/FAIL and for the clock check; `verbose` prints all of them.
void print_doctor_text(const DoctorFindings& report, std::ostream& out, bool verbose);

}  // namespace meshbench::analysis
