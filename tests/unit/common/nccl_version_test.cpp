// NCCL releases as every module reads them: release strings in each form NCCL, its tags and
// nccl-tests print, the numeric codes of both schemes, and back to text.
#include "common/nccl_version.hpp"

#include <gtest/gtest.h>

namespace meshbench::nccl {
namespace {

TEST(NcclVersion, ReadsEachFormOfARelease) {
  EXPECT_EQ(parse_version("2.28.9"), 22809);
  EXPECT_EQ(parse_version("2.28.9-1"), 22809);  // the release tag v2.28.9-1, without its v
  EXPECT_EQ(parse_version("2.27.7+cuda12.9"), 22707);
  EXPECT_EQ(parse_version("NCCL version 2.28.9+cuda12.9"), 22809);
  EXPECT_EQ(parse_version("2.18.5 (from the log)"), 21805);
  EXPECT_EQ(parse_version("2.7.8"), 20708);
}

TEST(NcclVersion, RefusesWhatIsNotARelease) {
  for (const char* text : {"", "2.18", "v2.18.5", "2.18.5x", "2.100.1", "2.18.100", "NCCL version", "NCCL 2.18.5", "two.18.5"})
    EXPECT_FALSE(parse_version(text)) << text;
}

TEST(NcclVersion, CodesOfBothSchemes) {
  EXPECT_EQ(version_of_code(22809), 22809);
  EXPECT_EQ(version_of_code(21805), 21805);
  EXPECT_EQ(version_of_code(2708), 20708);  // NCCL_VERSION's X*1000+Y*100+Z before 2.9
  EXPECT_EQ(version_of_code(2804), 20804);
  EXPECT_EQ(version_of_code(version_of_code(2708)), 20708);  // a release already in this form stays
}

TEST(NcclVersion, BackToText) {
  EXPECT_EQ(version_string(22809), "2.28.9");
  EXPECT_EQ(version_string(21903), "2.19.3");
  EXPECT_EQ(version_string(version_of_code(2708)), "2.7.8");
  EXPECT_EQ(version_string(*parse_version("NCCL version 2.21.5+cuda12.4")), "2.21.5");
}

}  // namespace
}  // namespace meshbench::nccl
