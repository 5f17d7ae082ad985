#include "bench/reporter.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ostream>

#include "common/sizes.hpp"

namespace meshbench::bench {

void ConsoleReporter::begin_mapping(const mapping::Mapping& m, int index, int count) {
  out_ << "\n# mapping " << index + 1 << "/" << count << ": " << m.name << "  (" << m.how << ")\n";
}

void ConsoleReporter::begin_dimension(mapping::Dim dim, int groups, int group_size, const std::string& skipped) {
  out_ << "#  " << mapping::to_string(dim) << ": " << groups << " group(s) of " << group_size;
  if (!skipped.empty()) {
    out_ << " — not measured: " << skipped << "\n";
    return;
  }
  out_ << ", all running at once\n";
  char line[200];
  std::snprintf(line, sizeof line, "#  %10s %-14s %-13s %6s %10s %10s %10s %10s %10s %8s\n", "size", "op", "timing", "iters", "min(us)",
                "median(us)", "p99(us)", "algbw", "busbw", "#wrong");
  out_ << line;
}

void ConsoleReporter::point(const results::PointRecord& p) {
  const auto& r = p.row;
  char line[240];
  const std::string wrong = r.wrong < 0 ? "N/A" : std::to_string(r.wrong);
  std::snprintf(line, sizeof line, "   %10s %-14s %-13s %6d %10.2f %10.2f %10.2f %10.3f %10.3f %8s%s\n",
                format_bytes(r.point.bytes).c_str(), r.point.op.c_str(),
                (r.point.timing + (r.point.concurrency == "isolated" ? "/iso" : "")).c_str(), r.iters, r.t_min_us, r.t_median_us,
                r.t_p99_us, r.algbw_gbps, r.busbw_gbps, wrong.c_str(), r.wrong > 0 ? "  <-- WRONG RESULTS" : "");
  out_ << line << std::flush;
  if (r.wrong > 0) wrong_total_ += r.wrong;
  ++points_;
}

void ConsoleReporter::point_skipped(const results::Failure& f) {
  out_ << "   " << std::string(10 - std::min<std::size_t>(10, format_bytes(f.bytes).size()), ' ') << format_bytes(f.bytes) << " " << f.op
       << " skipped: " << f.message << "\n"
       << std::flush;
}

void ConsoleReporter::end_run(bool complete) {
  out_ << "\n# " << points_ << " point(s) measured; wrong elements: " << wrong_total_ << (wrong_total_ > 0 ? " FAILED" : " OK")
       << (complete ? "" : "; the run did not complete") << "\n";
}

ProgressReporter::ProgressReporter(int total_points)
    : total_(total_points), start_(std::chrono::steady_clock::now()), active_(::isatty(STDERR_FILENO) == 1) {}

void ProgressReporter::begin_mapping(const mapping::Mapping& m, int /*index*/, int /*count*/) { mapping_ = m.name; }

void ProgressReporter::point(const results::PointRecord& p) {
  ++done_;
  if (!active_) return;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double eta = done_ > 0 ? elapsed / done_ * (total_ - done_) : 0;
  std::fprintf(stderr, "\r\033[K[%d/%d] %s %s %s %s  elapsed %dm%02ds  ETA %dm%02ds", done_, total_, mapping_.c_str(),
               p.row.point.dim.c_str(), p.row.point.op.c_str(), format_bytes(p.row.point.bytes).c_str(), static_cast<int>(elapsed) / 60,
               static_cast<int>(elapsed) % 60, static_cast<int>(eta) / 60, static_cast<int>(eta) % 60);
  std::fflush(stderr);
}

void ProgressReporter::end_run(bool /*complete*/) {
  if (active_) std::fprintf(stderr, "\r\033[K");
}

void ResultsFileReporter::point(const results::PointRecord& p) {
  const std::lock_guard lock(mutex_);
  const bool before = writer_.wrote_past_a_reader();
  writer_.append(p);
  if (!before && writer_.wrote_past_a_reader()) {
    std::fprintf(stderr,
                 "meshbench run: another process kept '%s' open for over %lld ms; the run writes on without HDF5's lock, "
                 "so what that process reads meanwhile may look damaged (the file itself is not)\n",
                 writer_.path().c_str(), static_cast<long long>(results::kWriterLockPatience.count()));
  }
}

void ResultsFileReporter::record_failure(const results::Failure& f) {
  const std::lock_guard lock(mutex_);
  writer_.record_failure(f);
}

void ResultsFileReporter::hold() { mutex_.lock(); }  // never released: the process exits next

void Reporters::begin_mapping(const mapping::Mapping& m, int index, int count) {
  for (auto* r : all_) r->begin_mapping(m, index, count);
}
void Reporters::begin_dimension(mapping::Dim dim, int groups, int group_size, const std::string& skipped) {
  for (auto* r : all_) r->begin_dimension(dim, groups, group_size, skipped);
}
void Reporters::point(const results::PointRecord& p) {
  for (auto* r : all_) r->point(p);
}
void Reporters::point_skipped(const results::Failure& f) {
  for (auto* r : all_) r->point_skipped(f);
}
void Reporters::end_run(bool complete) {
  for (auto* r : all_) r->end_run(complete);
}

}  // namespace meshbench::bench
