// include/quanta/fn.h refuses every misuse with an error code and errno, or aborts with a
// message naming it: never a crash.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>

#include "quanta/fn.h"
#include "quanta/quanta.h"

namespace {

void nothing(void*) {}

void yield_twice(void* counter) {
  ++*static_cast<int*>(counter);
  quanta_yield();
  ++*static_cast<int*>(counter);
  quanta_yield();
  ++*static_cast<int*>(counter);
}

TEST(FnMisuse, BadArgumentsAreRefusedWithEinval) {
  errno = 0;
  EXPECT_EQ(quanta_fn_launch(nullptr, nullptr, 0, 0), nullptr);
  EXPECT_EQ(errno, EINVAL);
  for (uint64_t stack : {uint64_t{1}, uint64_t{QUANTA_FN_MIN_STACK_BYTES - 1}, uint64_t{QUANTA_FN_MAX_STACK_BYTES + 1},
                         UINT64_MAX}) {
    errno = 0;
    EXPECT_EQ(quanta_fn_launch(&nothing, nullptr, 0, stack), nullptr) << stack;
    EXPECT_EQ(errno, EINVAL) << stack;
  }
  errno = 0;
  EXPECT_EQ(quanta_fn_resume(nullptr, 0), -1);
  EXPECT_EQ(errno, EINVAL);
  EXPECT_EQ(quanta_fn_completed(nullptr), -1);
  EXPECT_EQ(quanta_fn_yields(nullptr), 0u);
  EXPECT_EQ(quanta_fn_last_stop_tsc(nullptr), 0u);
  quanta_fn_destroy(nullptr);  // nothing
}

TEST(FnMisuse, TheSmallestAndDefaultStacksWork) {
  int counter = 0;
  for (uint64_t stack : {uint64_t{0}, uint64_t{QUANTA_FN_MIN_STACK_BYTES}}) {
    quanta_fn* f = quanta_fn_launch(&yield_twice, &counter, 0, stack);
    ASSERT_NE(f, nullptr);
    while (quanta_fn_resume(f, 0) == 0) {
    }
    EXPECT_EQ(quanta_fn_completed(f), 1);
    EXPECT_EQ(quanta_fn_yields(f), 2u);
    quanta_fn_destroy(f);
  }
  EXPECT_EQ(counter, 6);
}

// A quantum the cycle counter cannot add without wrapping means no deadline: the function
// runs to its own yields, not stopped at once by a deadline in the past.
void spins_with_probes(void* done) {
  for (int i = 0; i < 100000; ++i) quanta_probe();
  *static_cast<bool*>(done) = true;
}

TEST(FnMisuse, AHugeQuantumSaturatesInsteadOfWrapping) {
  bool done = false;
  quanta_fn* f = quanta_fn_launch(&spins_with_probes, &done, UINT64_MAX - 5, 0);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(quanta_fn_completed(f), 1);
  EXPECT_EQ(quanta_fn_yields(f), 0u);
  EXPECT_TRUE(done);
  quanta_fn_destroy(f);
}

struct Nested {
  quanta_fn* inner = nullptr;
  int inner_errno = 0;
  int resume_result = 0;
  int resume_errno = 0;
  quanta_fn* self = nullptr;
};

void launches_inside(void* arg) {
  auto* n = static_cast<Nested*>(arg);
  errno = 0;
  n->inner = quanta_fn_launch(&nothing, nullptr, 0, 0);
  n->inner_errno = errno;
  quanta_yield();  // the outer handle exists now (launch returned)
  errno = 0;
  n->resume_result = quanta_fn_resume(n->self, 0);
  n->resume_errno = errno;
}

TEST(FnMisuse, LaunchesAndResumesDoNotNest) {
  Nested n;
  quanta_fn* f = quanta_fn_launch(&launches_inside, &n, 0, 0);
  ASSERT_NE(f, nullptr);
  n.self = f;
  EXPECT_EQ(quanta_fn_resume(f, 0), 1);
  EXPECT_EQ(n.inner, nullptr);
  EXPECT_EQ(n.inner_errno, EDEADLK);
  EXPECT_EQ(n.resume_result, -1);
  EXPECT_EQ(n.resume_errno, EDEADLK);
  quanta_fn_destroy(f);
}

void destroys_itself(void* self) {
  quanta_yield();  // until the launcher has stored the handle
  quanta_fn_destroy(*static_cast<quanta_fn**>(self));
}

TEST(FnMisuseDeathTest, DestroyedOrSelfDestroyingHandlesAbortNamingTheMisuse) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
#if !defined(QUANTA_ASAN)  // ASan reports the use after free itself, before this check
  EXPECT_DEATH(
      {
        quanta_fn* f = quanta_fn_launch(&nothing, nullptr, 0, 0);
        quanta_fn_destroy(f);
        quanta_fn_resume(f, 0);
      },
      "quanta_fn_resume on a destroyed or invalid quanta_fn handle");
#endif
  EXPECT_DEATH(
      {
        quanta_fn* self = nullptr;
        self = quanta_fn_launch(&destroys_itself, &self, 0, 0);
        quanta_fn_resume(self, 0);
      },
      "quanta_fn_destroy of the function that is running");
}

}  // namespace
