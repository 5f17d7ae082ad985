#include "common/crash_guard.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>

#include "common/error.hpp"

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

TEST(CrashGuard, ARefusalInTheChildComesBackWithItsMessage) {
  const auto refused = run_in_child([] { throw InputError("'x.h5' is damaged; rerun"); });
  EXPECT_EQ(refused.end, ChildOutcome::End::refused);
  EXPECT_EQ(refused.message, "'x.h5' is damaged; rerun");
  const auto threw = run_in_child([] { throw std::runtime_error("not an input error"); });
  EXPECT_EQ(threw.end, ChildOutcome::End::threw);
  EXPECT_EQ(threw.message, "not an input error");
  const auto returned = run_in_child([] {});
  EXPECT_EQ(returned.end, ChildOutcome::End::returned);
  EXPECT_TRUE(returned.message.empty());
  EXPECT_EQ(run_in_child([] { std::raise(SIGSEGV); }).end, ChildOutcome::End::died);
}

TEST(CrashGuard, ALongMessageIsCutRatherThanBlockingTheChild) {
  const auto refused = run_in_child([] { throw InputError(std::string(1 << 20, 'x')); });
  EXPECT_EQ(refused.end, ChildOutcome::End::refused);
  EXPECT_EQ(refused.message.size(), 4096U);
}

// 2 GiB asked for and never touched: granted without a limit, refused under one of 256 MiB.
TEST(CrashGuard, TheChildsAddressSpaceIsCapped) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "not applied in sanitizer builds (their shadow memory is terabytes of address space)";
#endif
  const auto big = [] {
    void* p = std::malloc(std::size_t{2} << 30);  // NOLINT(cppcoreguidelines-no-malloc): what a C library does
    if (p == nullptr) throw std::bad_alloc();
    std::free(p);  // NOLINT(cppcoreguidelines-no-malloc)
  };
  EXPECT_EQ(run_in_child(big).end, ChildOutcome::End::returned);
  ChildLimits limits;
  limits.memory_bytes = std::size_t{256} << 20;
  EXPECT_EQ(run_in_child(big, limits).end, ChildOutcome::End::threw);
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
