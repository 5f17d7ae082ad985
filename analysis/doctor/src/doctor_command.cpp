#include <mpi.h>

#include <iostream>

#include "analysis/doctor/doctor_command.hpp"
#include "analysis/doctor/doctor_run.hpp"
#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/mpi/session.hpp"
#include "topology/options.hpp"

namespace meshbench::analysis {

namespace {

void write_json_file(const std::string& path, const nlohmann::json& j) {
  try {
    write_file_atomically(path, j.dump(2, ' ', false, kReplaceInvalidUtf8) + "\n");
  } catch (const AtomicWriteError& e) {
    switch (e.step()) {
      case AtomicWriteError::Step::exists:
      case AtomicWriteError::Step::create: throw InputError("cannot write '" + path + "'; choose a writable --output path");
      case AtomicWriteError::Step::write: throw InputError("writing '" + path + "' failed");
      case AtomicWriteError::Step::rename: break;
    }
    throw InputError("cannot rename '" + e.temp() + "' to '" + path + "'");
  }
}

}  // namespace

int doctor_command(const Args& args) {
  po::options_description opts("doctor options");
  std::string format;
  std::string env_template;
  std::string output;
  DoctorOptions options;
  // clang-format off
  opts.add_options()
      ("format", po::value(&format)->default_value("text"), "output: text or json")
      ("env-template", po::value(&env_template)->default_value(""),
       "env file with the team's template (KEY=VALUE / export KEY=VALUE lines); default: the seed checklist's")
      ("node-type", po::value(&options.node_type)->default_value("auto"),
       ("expected node type (GPU and EFA counts): auto (EC2 instance type from DMI) or one of " + node_type_names())
           .c_str())
      ("strict", po::bool_switch(&options.strict), "unset or differing template variables FAIL instead of WARN")
      ("output", po::value(&output)->default_value(""), "also write the JSON report to this file")
      ("verbose", po::bool_switch(), "print every check's details, not only those of WARN/FAIL")
      ("clock-threshold-ms", po::value(&options.clock_threshold_ms)->default_value(10.0),
       "clock offset between nodes above which the clock check FAILs")
      ("clock-samples", po::value(&options.clock_samples)->default_value(64),
       "ping-pong exchanges per node for the clock offset (the fastest one counts)")
      ("inject-clock-offset-ms", po::value(&options.inject_clock_offset_ms)->default_value(0.0),
       "TEST ONLY: add this offset to the clock of every rank but rank 0, to prove the clock check detects it");
  // clang-format on
  auto vm = parse_command("doctor",
                          "Pre-flight checks: environment template, versions, libfabric provider, devices, clock "
                          "offset, GPU health. Under mpirun/srun the whole allocation. Exit status 1 when a check "
                          "FAILs.",
                          opts, args, std::cout);
  if (!vm) return kExitOk;
  const OutputFormat fmt = parse_output_format(format, {OutputFormat::text, OutputFormat::json});
  if (!env_template.empty()) options.env_template = load_env_template(env_template);
  if (options.node_type != "auto" && !find_node_type(options.node_type)) {
    throw InputError("unknown --node-type '" + options.node_type + "'; use auto or one of " + node_type_names());
  }
  if (options.clock_samples < 1) throw InputError("--clock-samples must be at least 1");
  if (options.clock_threshold_ms <= 0) throw InputError("--clock-threshold-ms must be positive");
  injected_clock_offset_ns(options.inject_clock_offset_ms, false);  // validates MESHBENCH_TEST_CLOCK_OFFSET_MS
  injected_clock_step_ns();                                         // and MESHBENCH_TEST_CLOCK_STEP_MS

  const bool verbose = vm->at("verbose").as<bool>();
  auto publish = [&](const DoctorFindings& report) {
    if (!output.empty()) write_json_file(output, nlohmann::json(report));
    if (fmt == OutputFormat::json) {
      std::cout << nlohmann::json(report).dump(2, ' ', false, kReplaceInvalidUtf8) << "\n";
    } else {
      print_doctor_text(report, std::cout, verbose);
    }
    std::cout.flush();
  };
  // Bad input is refused above, before MPI starts: every rank refuses alike and none is left
  // waiting in a collective.
  if (!topology::launched_by_mpi_launcher()) {
    const DoctorFindings report = run_doctor_local(options);
    publish(report);
    return report.exit_status();
  }
  std::string error;
  int exit_status = 0;
  {
    const mpi::MpiSession session;
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const DoctorFindings report = run_doctor(MPI_COMM_WORLD, options);
    exit_status = report.exit_status();
    // Rank 0 prints before MPI_Finalize (the session's end), which no rank leaves before all
    // arrive: a launcher that kills the job when a rank exits non-zero cannot cut the report short.
    if (rank == 0) {
      try {
        publish(report);
      } catch (const InputError& e) {
        error = e.what();
      }
    }
  }
  if (!error.empty()) throw InputError(error);
  return exit_status;
}

}  // namespace meshbench::analysis
