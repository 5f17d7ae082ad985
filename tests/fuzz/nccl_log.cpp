// NCCL_DEBUG=INFO output, as `logs summary` reads and prints it (text and JSON).
#include <sstream>

#include "analysis/logs/nccl_log.hpp"
#include "tests/fuzz/entries.hpp"

namespace meshbench::fuzz {

void nccl_log(std::string_view input) {
  std::istringstream in{std::string(input)};
  const analysis::NcclLogSummary summary = analysis::parse_nccl_log(in);
  std::ostringstream text;
  analysis::print_nccl_summary(summary, text);
  (void)analysis::to_json(summary).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  (void)analysis::transports_used(summary);
}

}  // namespace meshbench::fuzz
