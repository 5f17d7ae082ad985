#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <sstream>

#include "analysis/logs/log_merge.hpp"

namespace meshbench::analysis {
namespace {

// Zone-less timestamps are local time: pin the zone so the expectations hold everywhere.
class LogMerge : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tz = std::getenv("TZ");
    saved_ = tz == nullptr ? "" : tz;
    had_ = tz != nullptr;
    setenv("TZ", "UTC", 1);
    tzset();
  }
  void TearDown() override {
    if (had_) {
      setenv("TZ", saved_.c_str(), 1);
    } else {
      unsetenv("TZ");
    }
    tzset();
  }
  static std::string at(std::string_view line, const MergeOptions& o = {}) {
    auto t = parse_log_timestamp(line, o);
    return t ? format_utc(t->ns) : "none";
  }

 private:
  std::string saved_;
  bool had_ = false;
};

TEST_F(LogMerge, NcclTimestampPrefixDefaultAndSubseconds) {
  EXPECT_EQ(at("[2025-01-02 13:45:01] h:1:2 [0] misc.cc:1 NCCL WARN x"), "2025-01-02T13:45:01.000000Z");
  EXPECT_EQ(at("[2025-01-02 13:45:01.123456] h:1:2 [0] NCCL INFO x"), "2025-01-02T13:45:01.123456Z");
  EXPECT_EQ(at("[1,0]<stdout>:[2025-01-02 13:45:01] h:1:2 [0] NCCL INFO x"), "2025-01-02T13:45:01.000000Z");
}

TEST_F(LogMerge, IsoWithZonesMeshbenchAndJournalctl) {
  EXPECT_EQ(at("2025-01-02T13:45:01.5Z meshbench: rank 0 starts all_reduce"), "2025-01-02T13:45:01.500000Z");
  EXPECT_EQ(at("2024-01-02T13:45:01+0100 node-a kernel: efa 0000:10:1c.0: ..."), "2024-01-02T12:45:01.000000Z");
  EXPECT_EQ(at("2024-01-02T13:45:01.000123-05:00 node-a slurmd[12]: x"), "2024-01-02T18:45:01.000123Z");
}

TEST_F(LogMerge, KernelFormats) {
  EXPECT_EQ(at("[Tue Jan  2 13:45:01 2024] efa 0000:10:1c.0: Setup irq"), "2024-01-02T13:45:01.000000Z");
  MergeOptions boot;
  boot.boot_time_ns = 1704200000LL * 1000000000LL;  // 2024-01-02T12:53:20Z
  EXPECT_EQ(at("[   12.345678] efa: module loaded", boot), "2024-01-02T12:53:32.345678Z");
  MergeOptions year;
  year.year = 2023;
  EXPECT_EQ(at("Jan  2 13:45:01 node-a kernel: x", year), "2023-01-02T13:45:01.000000Z");
}

TEST_F(LogMerge, LinesWithoutTimestamp) {
  EXPECT_EQ(at("h:1:2 [0] NCCL INFO Using network Libfabric"), "none");
  EXPECT_EQ(at("[0] not a time"), "none");
  EXPECT_EQ(at(""), "none");
  EXPECT_EQ(at("2025-13-45 nonsense"), "none");
}

TEST_F(LogMerge, UntimedLinesInheritWithinTheirFile) {
  std::istringstream in(
      "h:1:2 [0] NCCL INFO before any time\n"
      "[2025-01-02 13:45:01] h:1:2 [0] a.cc:1 NCCL WARN first\n"
      "h:1:2 [0] NCCL INFO after first\n"
      "[2025-01-02 13:45:05] h:1:2 [0] a.cc:2 NCCL WARN second\n");
  const auto lines = read_log_lines(in, "nccl.log", {});
  ASSERT_EQ(lines.size(), 4U);
  EXPECT_TRUE(lines[0].inherited);
  EXPECT_EQ(format_utc(*lines[0].time_ns), "2025-01-02T13:45:01.000000Z");  // the file's first time
  EXPECT_FALSE(lines[1].inherited);
  EXPECT_TRUE(lines[2].inherited);
  EXPECT_EQ(*lines[2].time_ns, *lines[1].time_ns);
  EXPECT_EQ(format_utc(*lines[3].time_ns), "2025-01-02T13:45:05.000000Z");
  EXPECT_EQ(lines[3].line_no, 4U);
}

TEST_F(LogMerge, MergeOrdersByTimeKeepingFileOrderOnTies) {
  std::istringstream nccl(
      "[2025-01-02 13:45:01] h:1:2 [0] a.cc:1 NCCL WARN n1\n"
      "h:1:2 [0] NCCL INFO n2 inherits 13:45:01\n"
      "[2025-01-02 13:45:04] h:1:2 [0] a.cc:2 NCCL WARN n3\n");
  std::istringstream kernel(
      "[Thu Jan  2 13:45:01 2025] k1 same second as n1\n"
      "[Thu Jan  2 13:45:03 2025] k2\n");
  std::istringstream mine("2025-01-02T13:45:02Z meshbench m1\n");
  std::istringstream none("no time here\n");
  const auto merged = merge_logs({read_log_lines(nccl, "nccl", {}), read_log_lines(kernel, "dmesg", {}),
                                  read_log_lines(mine, "meshbench", {}), read_log_lines(none, "notes", {})});
  std::vector<std::string> order;
  for (const auto& l : merged) order.push_back(l.source + ":" + std::to_string(l.line_no));
  EXPECT_EQ(order, (std::vector<std::string>{"nccl:1", "nccl:2", "dmesg:1", "meshbench:1", "dmesg:2", "nccl:3", "notes:1"}));
  EXPECT_FALSE(merged.back().time_ns.has_value());
}

TEST_F(LogMerge, OutputsTagEachLineWithItsSource) {
  std::istringstream a("2025-01-02T13:45:02Z x\ny\n");
  const auto merged = merge_logs({read_log_lines(a, "a.log", {})});
  std::ostringstream text;
  print_merged(merged, text);
  EXPECT_EQ(text.str(),
            "2025-01-02T13:45:02.000000Z   [a.log:1] 2025-01-02T13:45:02Z x\n"
            "2025-01-02T13:45:02.000000Z ~ [a.log:2] y\n");
  const auto j = to_json(merged);
  EXPECT_EQ(j[1].at("inherited"), true);
  EXPECT_EQ(j[1].at("source"), "a.log");
}

}  // namespace
}  // namespace meshbench::analysis
