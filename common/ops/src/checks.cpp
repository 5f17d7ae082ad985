// The fill and check columns of the op table: the pattern every rank sends and what each op's
// output must then hold.
#include <array>

#include "common/ops/layout.hpp"
#include "common/ops/src/align.hpp"

namespace meshbench::ops {

namespace {

// Sum over the n ranks of pattern(j, index) depends only on index mod 251: one table per op call.
std::array<float, kPatternPeriod> rank_sums(int n) {
  std::array<float, kPatternPeriod> sums{};
  for (std::size_t i = 0; i < kPatternPeriod; ++i) {
    double s = 0;
    for (int j = 0; j < n; ++j) s += pattern(j, i);
    sums[i] = static_cast<float>(s);
  }
  return sums;
}

// Counts the elements of `recv` that differ from the expected value; a position past the end of
// `recv` (a layout the backend did not fill) counts as wrong too.
class Tally {
 public:
  explicit Tally(std::span<const float> recv) : recv_(recv) {}
  void expect(std::size_t at, float value) {
    if (at >= recv_.size() || recv_[at] != value) ++wrong_;
  }
  std::int64_t wrong() const { return wrong_; }

 private:
  std::span<const float> recv_;
  std::int64_t wrong_ = 0;
};

}  // namespace

void fill::rank_pattern(const OpLayout& l, std::span<float> send) {
  for (std::size_t i = 0; i < send.size(); ++i) send[i] = pattern(l.rank, i);
}

std::int64_t check::all_reduce(const OpLayout& l, std::span<const float> recv) {
  Tally t(recv);
  const auto sums = rank_sums(l.n);
  for (std::size_t k = 0; k < l.count; ++k) t.expect(k, sums[k % kPatternPeriod]);
  return t.wrong();
}

std::int64_t check::reduce_scatter(const OpLayout& l, std::span<const float> recv) {
  Tally t(recv);
  const auto ur = static_cast<std::size_t>(l.rank);
  const auto sums = rank_sums(l.n);
  for (std::size_t k = 0; k < l.count; ++k) t.expect(k, sums[(ur * l.count + k) % kPatternPeriod]);
  return t.wrong();
}

std::int64_t check::all_gather(const OpLayout& l, std::span<const float> recv) {
  Tally t(recv);
  const auto un = static_cast<std::size_t>(l.n);
  for (std::size_t j = 0; j < un; ++j)
    for (std::size_t k = 0; k < l.count; ++k) t.expect(j * l.count + k, pattern(static_cast<int>(j), k));
  return t.wrong();
}

std::int64_t check::all_to_all(const OpLayout& l, std::span<const float> recv) {
  Tally t(recv);
  const auto un = static_cast<std::size_t>(l.n);
  const auto ur = static_cast<std::size_t>(l.rank);
  for (std::size_t j = 0; j < un; ++j)
    for (std::size_t k = 0; k < l.count; ++k) t.expect(j * l.count + k, pattern(static_cast<int>(j), ur * l.count + k));
  return t.wrong();
}

std::int64_t check::all_to_allv(const OpLayout& l, std::span<const float> recv) {
  Tally t(recv);
  const auto un = static_cast<std::size_t>(l.n);
  for (std::size_t j = 0; j < un; ++j)
    for (std::size_t k = 0; k < l.recv_counts[j]; ++k) t.expect(l.recv_displs[j] + k, pattern(static_cast<int>(j), l.sender_displs[j] + k));
  return t.wrong();
}

std::int64_t check::send_recv(const OpLayout& l, std::span<const float> recv) {
  Tally t(recv);
  for (std::size_t p = 0; p < l.peers.size(); ++p)
    for (std::size_t k = 0; k < l.count; ++k) t.expect(p * l.count + k, pattern(l.peers[p], k));
  return t.wrong();
}

}  // namespace meshbench::ops
