#include "common/crash_guard.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <stdexcept>

namespace meshbench {
namespace {

TEST(CrashGuard, ToldWhetherTheChildDied) {
  EXPECT_TRUE(survives_in_child([] {}));
  EXPECT_TRUE(survives_in_child([] { throw std::runtime_error("a clean refusal"); }));
  EXPECT_FALSE(survives_in_child([] { std::raise(SIGSEGV); }));
  EXPECT_FALSE(survives_in_child([] { std::abort(); }));
  EXPECT_FALSE(survives_in_child([] { std::_Exit(3); }));
}

TEST(CrashGuard, AChildThatLoopsPastItsCpuTimeIsDead) {
  EXPECT_FALSE(survives_in_child(
      [] {
        volatile unsigned long spins = 0;
        for (;;) spins = spins + 1;
      },
      1));
  EXPECT_TRUE(survives_in_child([] {}, 1));
}

TEST(CrashGuard, TheChildsCrashLeavesThisProcessAsItWas) {
  int value = 1;
  EXPECT_FALSE(survives_in_child([&value] {
    value = 2;  // in the child's copy
    std::raise(SIGSEGV);
  }));
  EXPECT_EQ(value, 1);
}

}  // namespace
}  // namespace meshbench
