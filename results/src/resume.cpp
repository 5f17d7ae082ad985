#include "common/error.hpp"
#include "results/reader.hpp"
#include "results/writer.hpp"

namespace meshbench::results {

ResultsWriter ResultsWriter::resume(const std::string& path, const RunHeader& expected, std::vector<PointKey>& completed) {
  check_output_path(path, false, true);
  const ResultsFile existing = ResultsFile::open_in_mpi_job(path);
  const auto& l = existing.layout();
  const auto& e = expected.layout;
  if (l.world != e.world || l.tp != e.tp || l.cp != e.cp || l.pp != e.pp || l.ep != e.ep || l.etp != e.etp || l.order != e.order) {
    throw InputError("--resume: '" + path + "' was made for another layout (world " + std::to_string(l.world) + ", order " + l.order +
                     "); resume with the same options, or start a new file");
  }
  if (existing.run().rounds != expected.run.rounds) {
    throw InputError("--resume: '" + path + "' was measured with --rounds " + std::to_string(existing.run().rounds) +
                     ", this run asks for " + std::to_string(expected.run.rounds) + "; resume with --rounds " +
                     std::to_string(existing.run().rounds));
  }
  if (existing.mappings().size() != expected.mappings.size()) {
    throw InputError("--resume: '" + path + "' holds " + std::to_string(existing.mappings().size()) + " mappings but this run plans " +
                     std::to_string(expected.mappings.size()) + "; resume with the same plan");
  }
  for (std::size_t i = 0; i < expected.mappings.size(); ++i) {
    const auto& a = existing.mappings()[i];
    const auto& b = expected.mappings[i];
    if (a.name != b.name || a.digest != b.digest) {
      throw InputError("--resume: mapping " + std::to_string(i) + " of '" + path + "' is '" + a.name + "', this run's is '" + b.name +
                       "'; resume with the same plan");
    }
  }
  completed.clear();
  for (const auto& row : existing.measurements()) completed.push_back(key_of(row));
  ResultsWriter w(path);
  w.finish("running", "");
  return w;
}

}  // namespace meshbench::results
