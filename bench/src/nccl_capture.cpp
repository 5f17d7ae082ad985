#include "bench/nccl_capture.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

#include "common/strings.hpp"

namespace meshbench::bench {

std::string start_nccl_capture(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  ::setenv("NCCL_DEBUG", "INFO", 1);
  ::setenv("NCCL_DEBUG_SUBSYS", "INIT,P2P,NET", 0);  // keep the user's choice
  ::setenv("NCCL_DEBUG_FILE", (dir + "/%h.%p.log").c_str(), 1);
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  return dir + "/" + host + "." + std::to_string(::getpid()) + ".log";
}

std::vector<std::set<std::string>> communicator_transports(const analysis::NcclLogSummary& summary) {
  std::vector<std::set<std::string>> out;
  for (const auto& comm : summary.communicators) {
    std::set<std::string> used;
    for (const auto& [transport, count] : comm.transport_counts) {
      if (count > 0) used.insert(std::string(analysis::to_string(transport)));
    }
    out.push_back(std::move(used));
  }
  return out;
}

std::vector<results::TransportUse> transport_uses(const std::vector<std::pair<std::string, std::string>>& created,
                                                  const std::vector<std::vector<std::set<std::string>>>& per_rank) {
  std::map<std::pair<std::size_t, std::string>, int> ranks;  // (communicator index, transport) -> ranks
  for (const auto& comms : per_rank) {
    for (std::size_t k = 0; k < comms.size() && k < created.size(); ++k) {
      for (const auto& t : comms[k]) ++ranks[{k, t}];
    }
  }
  std::vector<results::TransportUse> out;
  for (const auto& [key, count] : ranks) out.push_back({created[key.first].first, created[key.first].second, key.second, count});
  return out;
}

std::string encode_transports(const std::vector<std::set<std::string>>& comms) {
  std::string text;
  for (const auto& used : comms) text += join(used, ",") + "\n";
  return text;
}

std::vector<std::set<std::string>> decode_transports(const std::string& text) {
  std::vector<std::set<std::string>> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::set<std::string> used;
    std::istringstream items(line);
    for (std::string t; std::getline(items, t, ',');) {
      if (!t.empty()) used.insert(t);
    }
    out.push_back(std::move(used));
  }
  return out;
}

}  // namespace meshbench::bench
