#pragma once
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace meshbench::analysis {

// What NCCL_DEBUG=INFO says about how a job communicated (line formats: docs/doctor.md, "meshbench logs summary").
// `run` captures NCCL's log per mapping (NCCL_DEBUG_FILE) and asks which transport each
// dimension's communicators used; `logs summary` prints the same for a person.

// Transport classes of NCCL's per-peer connections ("Channel 00/0 : 0[0] -> 1[1] via ...").
enum class NcclTransport {
  p2p,         // P2P/IPC, P2P/CUMEM, P2P/direct pointer, P2P/indirect: NVLink or PCIe inside a node
  p2p_mnnvl,   // P2P/MNNVL: NVLink across nodes (multi-node NVLink)
  shm,         // SHM/direct: through host memory inside a node
  net,         // NET/<plugin>/<dev> without GPUDirect RDMA: bounced through host memory
  net_gdrdma,  // NET/<plugin>/<dev>/GDRDMA: NIC reads/writes GPU memory directly
  other,
};
std::string_view to_string(NcclTransport t);                  // "P2P", "P2P/MNNVL", "SHM", "NET", "NET/GDRDMA", "other"
NcclTransport classify_nccl_transport(std::string_view via);  // the text after "via "

// One line of NCCL's debug output, split: "[ts] host:pid:tid [dev] NCCL INFO msg" or
// "host:pid:tid [dev] file.cc:123 [(func)] NCCL WARN msg". Launcher prefixes (`mpirun
// --tag-output` "[1,0]<stdout>:", `srun -l` "0: ") and NCCL's own timestamp prefix are skipped.
struct NcclLine {
  std::string timestamp;  // NCCL_DEBUG_TIMESTAMP_FORMAT prefix without brackets, "" when absent
  std::string host;
  int pid = -1;
  int tid = -1;
  std::string dev;       // the "[N]" CUDA device
  std::string level;     // "INFO", "WARN", "VERSION" (the bare "NCCL version ..." line)
  std::string location;  // "init.cc:123" for WARN
  std::string message;
};
std::optional<NcclLine> parse_nccl_line(std::string_view line);
// The line without a launcher's tag: "[1,0]<stdout>:" (mpirun --tag-output) or "0: " (srun -l).
std::string_view strip_launcher_prefix(std::string_view line);

struct NcclConnection {
  int channel = 0;
  int from_rank = 0;
  int to_rank = 0;
  std::string direction;  // "send", "receive" or "" (older NCCL did not say)
  std::string via;        // "NET/Libfabric/0/GDRDMA"
  NcclTransport transport = NcclTransport::other;
};

// One communicator as a whole: the per-rank entries of every process that logged it, joined by
// NCCL's commId (printed since NCCL 2.18 in "Init START/COMPLETE" lines). Without a commId
// (older NCCL), each rank's comm stays its own entry, keyed by host:pid:pointer.
struct NcclCommunicator {
  std::string comm_id;  // "0x5ae77eb5ea4ec1ee", or "host:pid:0x..." where NCCL printed none
  int nranks = -1;
  int nnodes = -1;
  std::set<int> ranks_seen;
  std::set<std::string> hosts;
  int init_complete = 0;  // how many of its ranks logged Init COMPLETE
  int coll_channels = -1;
  int nvls_channels = -1;
  int p2p_channels = -1;
  std::map<NcclTransport, int> transport_counts;                 // connection lines per class
  std::map<std::pair<int, int>, std::set<NcclTransport>> pairs;  // (from, to) comm ranks -> classes
};

struct NcclWarning {
  std::string host;
  int pid = -1;
  std::string location;
  std::string message;
  std::string timestamp;
};

struct NcclLogSummary {
  std::string nccl_version;             // "2.27.7"
  std::string nccl_cuda;                // "12.9", from "+cuda12.9"
  std::set<std::string> nccl_versions;  // all seen: more than one means mixed installs
  std::string cuda_driver;              // "cudaDriverVersion 12090" -> "12090"
  std::set<std::string> hosts;
  std::set<std::string> processes;       // "host:pid"
  std::vector<std::string> net_plugins;  // "Libfabric (v9)", or "none (internal)"
  std::set<std::string> networks;        // "Using network X"
  std::string ofi_plugin_version;        // "NET/OFI Initializing aws-ofi-nccl 1.16.3"
  std::string ofi_libfabric_version;     // "NET/OFI Using Libfabric version 1.22"
  std::string ofi_provider;              // "NET/OFI Selected provider is efa, fabric is efa (found 16 nics)"
  std::string ofi_fabric;
  int ofi_nics = -1;
  std::string ofi_platform;  // "NET/OFI Plugin selected platform: AWS"
  std::string ofi_protocol;  // "NET/OFI Using transport protocol RDMA"
  int nvls_available = 0;    // "NVLS multicast support is available on dev N" lines
  int nvls_unavailable = 0;  // "... is not available on dev N"
  std::map<NcclTransport, int> transport_counts;
  std::vector<NcclCommunicator> communicators;  // in order of first appearance
  std::vector<NcclWarning> warnings;
  std::size_t lines = 0;
  std::size_t nccl_lines = 0;
};

// Reads NCCL_DEBUG=INFO output (one or several files: call add for each, then finish).
class NcclLogParser {
 public:
  NcclLogParser();
  ~NcclLogParser();
  NcclLogParser(const NcclLogParser&) = delete;
  NcclLogParser& operator=(const NcclLogParser&) = delete;
  void add(std::istream& in);
  NcclLogSummary finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

NcclLogSummary parse_nccl_log(std::istream& in);

// Which transport classes were used: by the whole log, or by the communicators `select` picks
// (e.g. by nranks, nnodes or comm_id) — how run/report tell what a dimension's groups used.
std::set<NcclTransport> transports_used(const NcclLogSummary& summary);
std::set<NcclTransport> transports_used(const NcclLogSummary& summary, const std::function<bool(const NcclCommunicator&)>& select);

nlohmann::json to_json(const NcclLogSummary& summary);
void print_nccl_summary(const NcclLogSummary& summary, std::ostream& out);

}  // namespace meshbench::analysis
