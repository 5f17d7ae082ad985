// Which `meshbench calibrate` a command line asks for: the fit from results files, or the probe.
#include <gtest/gtest.h>

#include "analysis/calibrate/calibrate_command.hpp"

namespace meshbench::analysis {
namespace {

TEST(CalibrateArgs, ResultsFilesAreTheFitAnythingElseTheProbe) {
  EXPECT_TRUE(calibrate_args_name_files({"run.h5", "--out", "cost.json"}));
  EXPECT_TRUE(calibrate_args_name_files({"--out", "cost.json", "--force", "a.h5", "b.h5"}));
  EXPECT_TRUE(calibrate_args_name_files({"--out=cost.json", "missing.h5"}));  // a missing file is the fit's error to name
  EXPECT_TRUE(calibrate_args_name_files({"--require-sharing", "run.h5"}));
  EXPECT_FALSE(calibrate_args_name_files({"--out", "cost.json"}));
  EXPECT_FALSE(calibrate_args_name_files({}));
  EXPECT_FALSE(calibrate_args_name_files({"--help"}));
  // The probe's options' values are not files to fit from, whatever they are called.
  EXPECT_FALSE(calibrate_args_name_files({"--out", "cost.json", "--results", "probe.h5"}));
  EXPECT_FALSE(calibrate_args_name_files({"-o", "x.h5", "--topology", "topo.xml"}));
}

}  // namespace
}  // namespace meshbench::analysis
