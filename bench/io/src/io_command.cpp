// meshbench io: every rank writes its checkpoint shard into a folder and reads it back, into a
// file of its own and into one shared file; rank 0 stores the bandwidths in a results file.
#include <mpi.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "bench/io/io_command.hpp"
#include "bench/io/io_plan.hpp"
#include "bench/io/io_summary.hpp"
#include "bench/io/src/io_files.hpp"
#include "bench/io/src/io_folder.hpp"
#include "bench/launch.hpp"
#include "bench/mpi_util.hpp"
#include "common/error.hpp"
#include "common/mpi/host_comm.hpp"
#include "common/mpi/session.hpp"
#include "common/mpi/strings.hpp"
#include "common/sizes.hpp"
#include "common/strings.hpp"
#include "common/version.hpp"
#include "results/environment.hpp"
#include "results/writer.hpp"

namespace meshbench::bench {

namespace {

namespace fs = std::filesystem;

constexpr const char* kSummary =
    "Checkpoint bandwidth: every rank (under mpirun or srun) writes its checkpoint shard into --dir (a shared\n"
    "filesystem on a cluster) and reads it back, first into a file of its own (POSIX write, fsync; read back with\n"
    "O_DIRECT where the filesystem takes it), then at its offset in one shared file (MPI-IO write_at_all, sync),\n"
    "verifying every byte. Shard sizes come from --workload and the layout (parameters, gradients and optimizer\n"
    "states per rank) or from --shard-bytes. Aggregate and per-node GB/s, the slowest node named; stays within a\n"
    "disk budget and removes everything it wrote, also on SIGINT/SIGTERM.";

const char* const kMethods[] = {"file_per_rank", "shared_file"};

struct IoConfig {
  std::string dir, out, workload_file, shard_text, budget_text, window_text, methods_text;
  bool append = false, force = false;
  int repeats = 3;
  int test_corrupt = -1;
  mapping::Layout layout;
  std::vector<std::uint64_t> shard_sizes;  // given; empty with --workload
  std::optional<std::uint64_t> budget;
  std::uint64_t window = 0;
  std::vector<std::string> methods;
};

po::options_description io_options(IoConfig& c) {
  po::options_description o("io options");
  // clang-format off
  o.add_options()
      ("dir", po::value(&c.dir)->default_value(""), "folder to write the shards into (required; a shared filesystem on a cluster); "
       "io works in a subfolder of its own and removes it")
      ("shard-bytes", po::value(&c.shard_text)->default_value(""), "bytes every rank writes, a comma-separated list for several sizes (K, M, G, T binary)")
      ("workload", po::value(&c.workload_file)->default_value(""), "workload JSON: each rank's shard from its parameters, gradients and optimizer states")
      ("tp", po::value(&c.layout.tp)->default_value(1), "with --workload: tensor parallel size")
      ("cp", po::value(&c.layout.cp)->default_value(1), "with --workload: context parallel size")
      ("pp", po::value(&c.layout.pp)->default_value(1), "with --workload: pipeline parallel size")
      ("ep", po::value(&c.layout.ep)->default_value(1), "with --workload: expert parallel size")
      ("etp", po::value(&c.layout.etp)->default_value(0), "with --workload: expert tensor parallel size (0: same as --tp)")
      ("methods", po::value(&c.methods_text)->default_value("file_per_rank,shared_file"), "file_per_rank, shared_file or both")
      ("repeats", po::value(&c.repeats)->default_value(3), "passes of every method and size")
      ("budget", po::value(&c.budget_text)->default_value(""),
       "most bytes io may put on a filesystem at once (default: 80% of the free space statvfs reports there)")
      ("window", po::value(&c.window_text)->default_value("64M"), "bytes per write or read call")
      ("out,o", po::value(&c.out)->default_value(""), "results file to write (HDF5), or with --append one to add the /io table to")
      ("append", po::bool_switch(&c.append), "add the rows to an existing results file (a run's) instead of writing a new one")
      ("force", po::bool_switch(&c.force), "replace an existing --out file")
      ("test-corrupt", po::value(&c.test_corrupt)->default_value(-1), "test only: this rank flips a word of its shard on disk before each read");
  // clang-format on
  return o;
}

void finish_io_config(IoConfig& c) {
  if (c.dir.empty()) throw InputError("no io folder; give --dir DIR (on a cluster, a folder on the shared filesystem)");
  if (c.out.empty()) throw InputError("no output file; give --out FILE.h5 (with --append, an existing results file)");
  if (c.append && c.force) throw InputError("--append adds to a file and --force replaces it; give one of them");
  if (c.shard_text.empty() == c.workload_file.empty())
    throw InputError(
        "give the shard size either with --shard-bytes SIZE[,SIZE...] or with --workload FILE and the layout, not both or neither");
  if (!c.shard_text.empty()) c.shard_sizes = parse_size_list(c.shard_text);
  if (!c.budget_text.empty()) c.budget = parse_bytes(c.budget_text);
  c.window = parse_bytes(c.window_text);
  if (c.window < 4096 || c.window > (1ULL << 30U)) throw InputError("--window must be between 4K and 1G");
  if (c.repeats < 1 || c.repeats > 1000) throw InputError("--repeats must be between 1 and 1000");
  c.methods = split_nonempty(c.methods_text, ',');
  if (c.methods.empty()) throw InputError("--methods names no method; use file_per_rank, shared_file or both");
  for (const auto& m : c.methods) {
    if (m != kMethods[0] && m != kMethods[1])
      throw InputError("unknown method '" + m + "' in --methods; use file_per_rank, shared_file or both");
  }
}

// Each pass's shard per rank: the given sizes, or the workload's shard on every rank.
std::vector<std::vector<std::uint64_t>> shard_passes(const IoConfig& c, int world, std::string& workload_json, std::string& note) {
  std::vector<std::vector<std::uint64_t>> out;
  const auto n = static_cast<std::size_t>(world);
  for (const auto s : c.shard_sizes) out.emplace_back(n, s);
  if (c.workload_file.empty()) return out;
  const auto workload = mapping::load_workload(c.workload_file);
  mapping::Layout layout = c.layout;
  layout.world = world;
  const io::Shard shard = io::checkpoint_shard(workload, layout);
  out.emplace_back(n, shard.total());
  workload_json = mapping::to_json(workload).dump();
  std::ostringstream s;
  s << std::fixed << std::setprecision(3) << shard.params / 1e9 << "e9 parameters per rank: weights " << format_bytes(shard.weight_bytes)
    << ", gradients " << format_bytes(shard.grad_bytes) << ", optimizer states " << format_bytes(shard.optimizer_bytes)
    << (workload.distributed_optimizer ? " (distributed optimizer)" : "") << " = " << format_bytes(shard.total());
  note = s.str();
  return out;
}

// Where this launch writes: its own folder under --dir, on one filesystem or on each node's own.
struct Workspace {
  std::string folder;
  bool created_here = false;  // this rank made it (rank 0, or a node's first rank where --dir is node-local)
  int share = 0;              // 0: the folder rank 0 made; 1 + node: a node's own
};

// Creates the launch's folder; false (printed once, nothing left behind) on bad input.
bool make_workspace(const IoConfig& c, const Launch& at, MPI_Comm node, int node_index, Workspace& ws) {
  std::string error, name;
  std::error_code ec;
  if (!fs::is_directory(c.dir, ec)) error = "io folder '" + c.dir + "' does not exist; create it or choose another --dir";
  if (any_input_error(error, at.world, at.command)) return false;
  if (at.rank == 0) {
    name = (fs::path(c.dir) / io::unique_folder_name()).string();
    if (::mkdir(name.c_str(), 0755) != 0) {
      error = "io folder '" + c.dir + "' is not writable (" + std::strerror(errno) + "); choose another --dir";
    } else {
      ws.created_here = true;
    }
  }
  mpi::broadcast_string(name, at.world);
  ws.folder = name;
  // Where rank 0's folder does not show, --dir is the node's own: the node's first rank makes one.
  // A folder that appears meanwhile (EEXIST: a shared filesystem slow to show it) is rank 0's.
  int node_rank = 0, node_made = 0;
  MPI_Comm_rank(node, &node_rank);
  if (error.empty() && node_rank == 0 && !fs::is_directory(name, ec)) {
    if (::mkdir(name.c_str(), 0755) == 0) {
      ws.created_here = true;
      node_made = 1;
    } else if (errno != EEXIST) {
      error =
          "io folder '" + c.dir + "' on " + mpi::this_host_name() + " is not writable (" + std::strerror(errno) + "); choose another --dir";
    }
  }
  MPI_Bcast(&node_made, 1, MPI_INT, 0, node);
  if (error.empty() && !fs::is_directory(name, ec)) error = "io folder '" + name + "' cannot be seen on " + mpi::this_host_name();
  ws.share = node_made != 0 ? 1 + node_index : 0;
  if (any_input_error(error, at.world, at.command)) {
    if (ws.created_here) ::rmdir(name.c_str());
    return false;
  }
  return true;
}

// Rank 0 checks every pass against the free space and the budget of each filesystem.
bool check_space(const IoConfig& c, const Launch& at, const Workspace& ws, const std::vector<std::vector<std::uint64_t>>& passes) {
  struct statvfs st {};
  std::uint64_t free_bytes = 0;
  if (::statvfs(ws.folder.c_str(), &st) == 0) free_bytes = static_cast<std::uint64_t>(st.f_bavail) * st.f_frsize;
  const auto facts = mpi::gather_strings(std::to_string(ws.share) + " " + std::to_string(free_bytes), at.world);
  std::string error;
  if (at.rank == 0) {
    std::map<int, io::FilesystemShare> shares;
    for (int r = 0; r < at.size; ++r) {
      std::istringstream in(facts[static_cast<std::size_t>(r)]);
      int share = 0;
      std::uint64_t bytes = 0;
      in >> share >> bytes;
      auto& s = shares[share];
      if (s.ranks.empty()) s.free_bytes = bytes;
      s.folder = c.dir;
      s.ranks.push_back(r);
    }
    std::vector<io::FilesystemShare> list;
    for (auto& entry : shares) list.push_back(entry.second);
    try {
      for (const auto& shards : passes) (void)io::check_budget(shards, list, c.budget);
    } catch (const InputError& e) {
      error = e.what();
    }
  }
  return !any_input_error(error, at.world, at.command);
}

void remove_workspace(const Workspace& ws, const Launch& at) {
  MPI_Barrier(at.world);
  if (ws.created_here && ::rmdir(ws.folder.c_str()) != 0 && errno != ENOENT) {
    std::cerr << "meshbench io: warning: could not remove " << ws.folder << " (" << std::strerror(errno) << ")\n";
  }
}

std::string encode(const io::RankPhase& p) {
  std::ostringstream s;
  s << std::setprecision(17) << p.bytes << " " << p.seconds << " " << p.wrong << " " << p.cached_fraction << " "
    << (p.read_mode.empty() ? "-" : p.read_mode) << " " << p.error;
  return s.str();
}

io::RankResult decode(const std::string& text, const std::string& host, std::string& error) {
  io::RankResult r;
  r.host = host;
  std::istringstream in(text);
  in >> r.bytes >> r.seconds >> r.wrong >> r.cached_fraction >> r.read_mode;
  if (r.read_mode == "-") r.read_mode.clear();
  std::getline(in >> std::ws, error);
  return r;
}

// One pass's phase results on rank 0; the first error of any rank in `error` there.
std::vector<io::RankResult> gather_phase(const io::RankPhase& mine, const Launch& at, const std::vector<std::string>& hosts,
                                         std::string& error) {
  const auto all = mpi::gather_strings(encode(mine), at.world);
  std::vector<io::RankResult> out;
  for (std::size_t r = 0; r < all.size(); ++r) {
    std::string e;
    out.push_back(decode(all[r], hosts[r], e));
    if (!e.empty() && error.empty()) error = "rank " + std::to_string(r) + ": " + e;
  }
  return out;
}

std::string cached_text(double f) {
  if (f < 0) return "?";
  std::ostringstream s;
  s << std::lround(f * 100) << "%";
  return s.str();
}

void print_row(const results::IoRow& row, const std::vector<results::IoRow>& rows) {
  const auto* slow = io::slowest_node(rows);
  std::ostringstream slowest;
  if (slow != nullptr) slowest << slow->host << " (" << std::fixed << std::setprecision(3) << slow->gbps << ")";
  std::cout << "  " << std::left << std::setw(14) << row.method << std::setw(6) << row.phase << std::right << std::setw(10)
            << format_bytes(row.shard_bytes) << std::setw(4) << row.repeat << std::fixed << std::setprecision(3) << std::setw(10)
            << row.gbps << std::setw(10) << row.seconds << "  " << std::left << std::setw(24) << slowest.str() << std::setw(17)
            << (row.phase == "read" ? row.read_mode : "") << std::setw(7) << (row.phase == "read" ? cached_text(row.cached_fraction) : "")
            << std::right << row.wrong << "\n";
}

struct Pass {
  std::size_t size_index = 0;
  int repeat = 0;
  std::string method;
};

// One method's write and read-back in one repeat; false when a rank failed (printed by rank 0).
bool run_pass(const IoConfig& c, const Launch& at, const std::vector<std::string>& hosts, const Workspace& ws, const Pass& pass,
              const std::vector<std::uint64_t>& shards, io::IoBuffer& buffer, io::CleanupOnSignal& guard, const io::PhaseKey& base,
              std::vector<results::IoRow>& rows) {
  const bool shared = pass.method == "shared_file";
  const auto me = static_cast<std::size_t>(at.rank);
  char own_name[32];
  std::snprintf(own_name, sizeof own_name, "rank-%06d.bin", at.rank);
  const std::string own = (fs::path(ws.folder) / own_name).string(), shared_path = (fs::path(ws.folder) / "shared.bin").string();
  const io::SharedFileLayout layout = io::shared_file_layout(shards);
  const std::uint64_t largest = *std::max_element(shards.begin(), shards.end());
  const std::uint64_t windows = (largest + buffer.size() - 1) / buffer.size();
  io::ShardTask task{shared ? shared_path : own, shared ? layout.offset[me] : 0, shards[me], 0, at.rank};
  task.pass = (pass.size_index * static_cast<std::uint64_t>(c.repeats) + static_cast<std::uint64_t>(pass.repeat)) * 2 + (shared ? 2 : 1);
  guard.set_files(shared ? "" : own, shared ? shared_path : "");

  std::string error;
  for (const char* phase : {"write", "read"}) {
    const bool write = std::strcmp(phase, "write") == 0;
    if (!write && at.rank == c.test_corrupt) io::corrupt_middle_word(task.path, task.offset, task.bytes);
    MPI_Barrier(at.world);
    const io::RankPhase mine = write ? (shared ? io::write_shared_file(task, buffer, at.world, windows) : io::write_own_file(task, buffer))
                                     : (shared ? io::read_shared_file(task, buffer, at.world, windows) : io::read_own_file(task, buffer));
    const auto ranks = gather_phase(mine, at, hosts, error);
    if (at.rank == 0 && error.empty()) {
      io::PhaseKey key = base;
      key.method = pass.method;
      key.phase = phase;
      key.shard_bytes = largest;
      key.repeat = pass.repeat;
      const auto phase_rows = io::phase_rows(key, ranks);
      print_row(phase_rows.front(), phase_rows);
      rows.insert(rows.end(), phase_rows.begin(), phase_rows.end());
    }
    int failed = error.empty() ? 0 : 1;
    MPI_Bcast(&failed, 1, MPI_INT, 0, at.world);
    if (failed != 0) break;
  }
  // Every rank removes its own file; the shared one goes once every rank has closed it.
  MPI_Barrier(at.world);
  io::remove_file(task.path);
  guard.set_files("", "");
  if (at.rank == 0 && !error.empty()) std::cerr << "meshbench io: failed: " << error << "\n";
  int failed = error.empty() ? 0 : 1;
  MPI_Bcast(&failed, 1, MPI_INT, 0, at.world);
  return failed == 0;
}

results::RunHeader io_header(const Args& args, const Launch& at, const std::vector<std::string>& hosts, const IoConfig& c,
                             const std::string& workload_json, const std::string& started_at) {
  results::RunHeader h;
  h.run.meshbench_version = kVersion;
  h.run.command_line = joined_command_line("io", args);
  h.run.started_at = started_at;
  h.run.backend = "mpi";
  h.run.world_size = at.size;
  h.run.hosts = hosts;
  h.provenance.versions = {{"meshbench", kVersion}, {"mpi", mpi_library_version()}};
  h.provenance.environment = results::recorded_environment();
  const auto& l = c.layout;
  h.layout = {at.size, l.tp, l.cp, l.pp, l.ep, l.expert_tp(), 0, 0, mapping::kDefaultOrder, workload_json};
  if (!workload_json.empty()) {
    mapping::Layout full = l;
    full.world = at.size;
    h.layout.dp = full.dp();
    h.layout.edp = full.edp();
  } else {
    h.layout.dp = h.layout.edp = at.size;
  }
  return h;
}

struct IoRunFacts {
  std::string workload_json, started_at;
};

// Rank 0 writes the rows (a new results file, or /io added to a run's) and says which passes read
// back wrong data; every rank ends with the same status.
int store_rows(const IoConfig& c, const Args& args, const Launch& at, const std::vector<std::string>& hosts, const IoRunFacts& run,
               const std::vector<results::IoRow>& rows) {
  int status = kExitOk;
  std::string error;
  if (at.rank == 0) {
    try {
      auto writer = c.append
                        ? results::ResultsWriter::append_to(c.out)
                        : results::ResultsWriter::create(c.out, io_header(args, at, hosts, c, run.workload_json, run.started_at), c.force);
      writer.record_io(rows);
      if (!c.append) writer.finish("complete", results::utc_now_iso8601());
      std::cout << "# results: " << writer.path() << (c.append ? " (/io added)" : "") << "\n";
    } catch (const InputError& e) {
      error = e.what();
    }
    for (const auto& r : rows) {
      if (r.host.empty() && r.wrong > 0) {
        std::cerr << "meshbench io: " << r.method << " repeat " << r.repeat << " read back " << r.wrong
                  << " wrong 8-byte word(s); the storage returned other data than was written\n";
        status = kExitFailure;
      }
    }
  }
  if (any_input_error(error, at.world, at.command)) return kExitBadInput;
  MPI_Bcast(&status, 1, MPI_INT, 0, at.world);
  return status;
}

int io_under_mpi(const IoConfig& c, const Args& args) {
  const Launch at = Launch::of_world("io");
  const std::string started_at = results::utc_now_iso8601();
  const auto hosts = mpi::allgather_strings(mpi::this_host_name(), at.world);
  std::vector<std::string> distinct;
  for (const auto& h : hosts) {
    if (std::find(distinct.begin(), distinct.end(), h) == distinct.end()) distinct.push_back(h);
  }
  const int node_index =
      static_cast<int>(std::find(distinct.begin(), distinct.end(), hosts[static_cast<std::size_t>(at.rank)]) - distinct.begin());

  std::string error, workload_json, note;
  std::vector<std::vector<std::uint64_t>> passes;
  try {
    passes = shard_passes(c, at.size, workload_json, note);
    if (at.rank == 0) {
      if (c.append) (void)results::ResultsWriter::append_to(c.out);
      else results::check_output_path(c.out, c.force, false);
    }
  } catch (const InputError& e) {
    error = e.what();
  }
  if (any_input_error(error, at.world, at.command)) return kExitBadInput;

  MPI_Comm node = mpi::split_by_host(at.world);
  Workspace ws;
  const bool ready = make_workspace(c, at, node, node_index, ws) && check_space(c, at, ws, passes);
  MPI_Comm_free(&node);
  if (!ready) {
    if (!ws.folder.empty()) remove_workspace(ws, at);
    return kExitBadInput;
  }

  const std::string fs_type = io::filesystem_type(ws.folder);
  if (at.rank == 0) {
    std::cout << "# io: " << at.size << " rank(s) on " << distinct.size() << " node(s), into " << ws.folder << " (" << fs_type << ")\n";
    if (!note.empty()) std::cout << "# shard from the workload: " << note << "\n";
    std::cout << "  method        phase      shard rep      GB/s   seconds  slowest node (GB/s)     read mode        cached wrong\n";
  }
  std::vector<results::IoRow> rows;
  bool ok = true;
  {
    io::CleanupOnSignal guard(ws.folder);
    io::PhaseKey base;
    base.at = started_at;
    base.folder = c.dir;
    base.filesystem = fs_type;
    for (std::size_t s = 0; ok && s < passes.size(); ++s) {
      const std::uint64_t largest = *std::max_element(passes[s].begin(), passes[s].end());
      io::IoBuffer buffer(static_cast<std::size_t>(std::min(c.window, largest)));
      for (int rep = 0; ok && rep < c.repeats; ++rep) {
        for (const auto& method : c.methods) {
          ok = ok && run_pass(c, at, hosts, ws, Pass{s, rep, method}, passes[s], buffer, guard, base, rows);
        }
      }
    }
  }
  remove_workspace(ws, at);
  if (!ok) return kExitFailure;

  return store_rows(c, args, at, hosts, {workload_json, started_at}, rows);
}

}  // namespace

int io_command(const Args& args) {
  IoConfig config;
  const auto options = io_options(config);
  std::string parse_error;
  if (const auto status = parse_launched_command(
          "io", kSummary, options, args, [&](const po::variables_map&) { finish_io_config(config); }, parse_error))
    return *status;
  const mpi::MpiSession session;
  if (any_input_error(parse_error, MPI_COMM_WORLD, "io")) return kExitBadInput;
  return io_under_mpi(config, args);
}

}  // namespace meshbench::bench
