// Every op's fill and check: a result simulated from all ranks' filled send buffers passes the
// check, and each corrupted element is counted exactly once.
#include <gtest/gtest.h>

#include <vector>

#include "common/ops/layout.hpp"

namespace meshbench::ops {
namespace {

// What rank r's receive buffer holds after the op, worked out here from every rank's send
// buffer the way the collective defines it (independently of the check). `written` marks the
// elements the op writes; the rest stays at -1, as the backends leave it.
struct Simulated {
  std::vector<float> recv;
  std::vector<bool> written;
};

Simulated simulate(const std::vector<OpLayout>& ls, const std::vector<std::vector<float>>& send, std::size_t r) {
  const OpLayout& l = ls[r];
  const std::size_t n = ls.size();
  Simulated s{std::vector<float>(l.recv, -1.0F), std::vector<bool>(l.recv, false)};
  auto put = [&](std::size_t at, float v) {
    s.recv.at(at) = v;
    s.written.at(at) = true;
  };
  switch (l.op) {
    case Op::all_reduce:
      for (std::size_t k = 0; k < l.count; ++k) {
        float sum = 0;
        for (std::size_t j = 0; j < n; ++j) sum += send[j][k];
        put(k, sum);
      }
      break;
    case Op::reduce_scatter:
      for (std::size_t k = 0; k < l.count; ++k) {
        float sum = 0;
        for (std::size_t j = 0; j < n; ++j) sum += send[j][r * l.count + k];
        put(k, sum);
      }
      break;
    case Op::all_gather:
      for (std::size_t j = 0; j < n; ++j)
        for (std::size_t k = 0; k < l.count; ++k) put(j * l.count + k, send[j][k]);
      break;
    case Op::all_to_all:
      for (std::size_t j = 0; j < n; ++j)
        for (std::size_t k = 0; k < l.count; ++k) put(j * l.count + k, send[j][r * l.count + k]);
      break;
    case Op::all_to_allv:
      for (std::size_t j = 0; j < n; ++j)
        for (std::size_t k = 0; k < l.recv_counts[j]; ++k) put(l.recv_displs[j] + k, send[j][ls[j].send_displs[r] + k]);
      break;
    case Op::send_recv:
      // Each stage sends its whole buffer to each neighbour; block p comes from peers[p].
      for (std::size_t p = 0; p < l.peers.size(); ++p) {
        const auto peer = static_cast<std::size_t>(l.peers[p]);
        for (std::size_t k = 0; k < l.count; ++k) put(p * l.count + k, send[peer][k]);
      }
      break;
  }
  return s;
}

// A skewed matrix for n ranks: rank 0 receives most, counts mostly not whole 16-byte units.
TrafficMatrix skewed(int n, std::size_t per_rank) {
  const auto un = static_cast<std::size_t>(n);
  TrafficMatrix m(un, std::vector<std::uint64_t>(un, 0));
  for (std::size_t i = 0; i < un; ++i) {
    std::size_t left = per_rank;
    for (std::size_t j = un; j-- > 1;) {
      const std::size_t c = std::min(left, per_rank / (3 * un) + (i * 7 + j * 3) % 5);
      m[i][j] = c;
      left -= c;
    }
    m[i][0] = left;
  }
  return m;
}

struct Group {
  std::vector<OpLayout> layouts;
  std::vector<std::vector<float>> send;
};

Group filled(Op op, std::uint64_t bytes, int n, const TrafficMatrix* m) {
  Group g;
  for (int r = 0; r < n; ++r) {
    g.layouts.push_back(op_layout(op, bytes, r, n, info(op).traffic_matrix ? m : nullptr));
    g.send.emplace_back(g.layouts.back().send, -7.0F);
    fill_send(g.layouts.back(), g.send.back());
  }
  return g;
}

TEST(OpCheck, FillSendsTheRankPattern) {
  for (Op op : kAllOps) {
    const TrafficMatrix m = skewed(3, 1000);
    const Group g = filled(op, 4000, 3, &m);
    for (std::size_t r = 0; r < 3; ++r) {
      for (std::size_t i = 0; i < g.send[r].size(); ++i) ASSERT_EQ(g.send[r][i], pattern(static_cast<int>(r), i)) << to_string(op);
    }
  }
  // Ranks and positions differ in the pattern, so a block from the wrong peer or offset shows.
  EXPECT_NE(pattern(0, 5), pattern(1, 5));
  EXPECT_NE(pattern(0, 5), pattern(0, 6));
}

TEST(OpCheck, CorrectResultPassesAndEachCorruptionCountsOnce) {
  for (Op op : kAllOps) {
    for (int n : {1, 2, 3, 5}) {
      for (std::uint64_t bytes : {256ULL, 1000ULL, 65536ULL}) {
        const TrafficMatrix m = skewed(n, bytes / kElementBytes);
        const Group g = filled(op, bytes, n, &m);
        for (std::size_t r = 0; r < static_cast<std::size_t>(n); ++r) {
          const std::string what =
              std::string(to_string(op)) + " n=" + std::to_string(n) + " bytes=" + std::to_string(bytes) + " rank=" + std::to_string(r);
          Simulated s = simulate(g.layouts, g.send, r);
          EXPECT_EQ(count_wrong(g.layouts[r], s.recv), 0) << what;
          std::vector<std::size_t> checked;
          for (std::size_t i = 0; i < s.written.size(); ++i) {
            if (s.written[i]) checked.push_back(i);
          }
          if (checked.empty()) continue;  // send_recv of one rank: nothing to receive
          s.recv[checked.front()] += 1.0F;
          EXPECT_EQ(count_wrong(g.layouts[r], s.recv), 1) << what;
          if (checked.size() > 2) {
            s.recv[checked[checked.size() / 2]] = -1.0F;
            s.recv[checked.back()] += 2.0F;
            EXPECT_EQ(count_wrong(g.layouts[r], s.recv), 3) << what;
          }
          // A receive buffer the op never wrote (the backends' -1 fill) is wrong everywhere.
          const std::vector<float> untouched(g.layouts[r].recv, -1.0F);
          EXPECT_EQ(count_wrong(g.layouts[r], untouched), static_cast<std::int64_t>(checked.size())) << what;
        }
      }
    }
  }
}

TEST(OpCheck, AShortReceiveBufferCountsTheMissingElements) {
  for (Op op : kAllOps) {
    const TrafficMatrix m = skewed(3, 1000);
    const Group g = filled(op, 4000, 3, &m);
    Simulated s = simulate(g.layouts, g.send, 1);
    std::size_t last = s.written.size();
    while (last > 0 && !s.written[last - 1]) --last;
    ASSERT_GT(last, 0U) << to_string(op);
    s.recv.resize(last - 1);  // the last element the op writes is missing
    EXPECT_EQ(count_wrong(g.layouts[1], s.recv), 1) << to_string(op);
  }
}

TEST(OpCheck, AllToAllvBlockFromTheWrongOffsetFails) {
  const TrafficMatrix m = skewed(4, 999);
  const Group g = filled(Op::all_to_allv, 999 * kElementBytes, 4, &m);
  Simulated s = simulate(g.layouts, g.send, 2);
  const OpLayout& l = g.layouts[2];
  ASSERT_GT(l.recv_counts[3], 1U);
  // Sender 3's block read one element late: every element of that block is wrong, no other.
  for (std::size_t k = 0; k < l.recv_counts[3]; ++k) s.recv[l.recv_displs[3] + k] = g.send[3][g.layouts[3].send_displs[2] + k + 1];
  EXPECT_EQ(count_wrong(l, s.recv), static_cast<std::int64_t>(l.recv_counts[3]));
}

}  // namespace
}  // namespace meshbench::ops
