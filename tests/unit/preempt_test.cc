// The probe ABI on the calling thread, through the preemptible-function API: probes yield
// once the deadline has passed, never inside a preempt-disabled region, and a preemption
// that fell inside the region happens at the matching enable.
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "preempt/preempt_state.h"
#include "quanta/fn.h"
#include "quanta/probe.h"

namespace {

struct Trace {
  std::string events;
};

// Probes until it has been preempted `stops` times; each resume appends 'r'.
void probing_body(void* raw) {
  auto& t = *static_cast<Trace*>(raw);
  for (int i = 0; i < 3; ++i) {
    t.events += 'r';
    quanta_yield();
  }
  t.events += 'd';
}

TEST(Preempt, ExplicitYieldsStopAndResume) {
  Trace t;
  quanta_fn* f = quanta_fn_launch(&probing_body, &t, 0, 0);
  ASSERT_NE(f, nullptr);
  int resumes = 0;
  while (!quanta_fn_completed(f)) {
    t.events += '|';
    quanta_fn_resume(f, 0);
    ++resumes;
  }
  EXPECT_EQ(t.events, "r|r|r|d");
  EXPECT_EQ(resumes, 3);
  EXPECT_EQ(quanta_fn_yields(f), 3u);
  quanta_fn_destroy(f);
}

// Five steps, each counted and followed by a probe of the given kind. With a deadline of
// 1 cycle, passed by the first probe, each clock probe yields.
template <void (*Probe)()>
void count_and_probe(void* raw) {
  auto& count = *static_cast<int*>(raw);
  for (int i = 0; i < 5; ++i) {
    ++count;
    Probe();
  }
}
constexpr auto spin_with_probes = &count_and_probe<quanta_probe>;

// Launched with a deadline already passed, `fn` stops at its first probe, then at each
// of the other four as it is resumed.
void expect_a_yield_at_each_probe(void (*fn)(void*)) {
  int count = 0;
  quanta_fn* f = quanta_fn_launch(fn, &count, 1, 0);
  EXPECT_EQ(count, 1);
  EXPECT_EQ(quanta_fn_yields(f), 1u);
  while (!quanta_fn_resume(f, 1)) {
  }
  EXPECT_EQ(count, 5);
  EXPECT_EQ(quanta_fn_yields(f), 5u);
  quanta_fn_destroy(f);
}

TEST(Preempt, ClockProbeYieldsOncePastTheDeadline) { expect_a_yield_at_each_probe(spin_with_probes); }

TEST(Preempt, ProbeNeverFiresOutsideATask) {
  // The deadline outside a task is "never": this returns without switching anywhere.
  EXPECT_EQ(quanta_deadline_tsc, UINT64_MAX);
  quanta_probe();
  quanta_yield();
  EXPECT_EQ(quanta_task_cpu_cycles(), 0u);
}

struct Region {
  uint64_t yields_inside = 0;
  uint64_t probes_inside = 0;
  quanta_fn* self = nullptr;
  bool after_enable = false;
};

void disabled_region_body(void* raw) {
  auto& r = *static_cast<Region*>(raw);
  quanta_preempt_disable();
  quanta_preempt_disable();  // nesting: only the outer enable may switch
  for (int i = 0; i < 1000; ++i) {
    quanta_probe();
    quanta_yield();
    ++r.probes_inside;
  }
  quanta_preempt_enable();
  r.yields_inside = quanta_fn_yields(r.self);  // still inside the outer region
  quanta_preempt_enable();                     // the deferred preemption happens here
  r.after_enable = true;
}

TEST(Preempt, DisabledRegionIsNeverPreemptedAndDefersToTheEnable) {
  Region r;
  // Deadline already passed at launch: every probe inside would fire if it could.
  quanta_fn* f = quanta_fn_launch(
      [](void* raw) {
        auto& reg = *static_cast<Region*>(raw);
        while (reg.self == nullptr) quanta_yield();  // wait until the test has the handle
        disabled_region_body(raw);
      },
      &r, 1, 0);
  r.self = f;
  quanta_fn_resume(f, 1);
  EXPECT_EQ(r.probes_inside, 1000u);
  EXPECT_FALSE(r.after_enable);       // stopped at the outer enable, not before
  const uint64_t yields_before_region = 1;  // the wait loop's single yield
  EXPECT_EQ(r.yields_inside, yields_before_region);
  EXPECT_EQ(quanta_fn_yields(f), yields_before_region + 1);
  quanta_fn_resume(f, 1);
  EXPECT_TRUE(r.after_enable);
  EXPECT_TRUE(quanta_fn_completed(f));
  quanta_fn_destroy(f);
}

// An enable with no disable before it (the lock was taken in code the pass did not see)
// is still a point where the pass counts on a clock read: past the deadline it yields,
// and the count of disables stays balanced.
void unbalanced_enable_body(void* raw) {
  auto& steps = *static_cast<int*>(raw);
  ++steps;
  quanta_preempt_enable();
  ++steps;
  quanta_preempt_disable();
  quanta_probe();  // muted: a disable after the stray enable still counts from zero
  ++steps;
  quanta_preempt_enable();
  ++steps;
}

TEST(Preempt, AnUnbalancedEnableYieldsPastTheDeadlineAsAProbeWould) {
  int steps = 0;
  quanta_fn* f = quanta_fn_launch(&unbalanced_enable_body, &steps, 1, 0);
  EXPECT_EQ(steps, 1);  // stopped at the stray enable
  EXPECT_EQ(quanta_fn_yields(f), 1u);
  quanta_fn_resume(f, 1);
  EXPECT_EQ(steps, 3);  // the probe inside the region was muted; the enable yielded
  EXPECT_EQ(quanta_fn_yields(f), 2u);
  quanta_fn_resume(f, 1);
  EXPECT_EQ(steps, 4);
  EXPECT_TRUE(quanta_fn_completed(f));
  quanta_fn_destroy(f);
}

TEST(Preempt, TaskCpuCyclesExcludeTimeSpentPreempted) {
  struct Cpu {
    uint64_t first = 0, second = 0;
  } cpu;
  quanta_fn* f = quanta_fn_launch(
      [](void* raw) {
        auto& c = *static_cast<Cpu*>(raw);
        c.first = quanta_task_cpu_cycles();
        quanta_yield();
        c.second = quanta_task_cpu_cycles();
      },
      &cpu, 0, 0);
  // Burn time between the two quanta: it must not show up in the task's CPU time.
  const uint64_t away_from = quanta_read_tsc();
  while (quanta_read_tsc() - away_from < 50'000'000) {
  }
  quanta_fn_resume(f, 0);
  EXPECT_LT(cpu.second - cpu.first, 50'000'000u);
  quanta_fn_destroy(f);
}

TEST(Preempt, TaskLastStopIsTheRunnersStampOfItsLastYield) {
  EXPECT_EQ(quanta_task_last_stop_tsc(), 0u);  // outside a task
  struct Seen {
    uint64_t before = 1, after = 0;
  } seen;
  quanta_fn* f = quanta_fn_launch(
      [](void* raw) {
        auto& s = *static_cast<Seen*>(raw);
        s.before = quanta_task_last_stop_tsc();
        quanta_yield();
        s.after = quanta_task_last_stop_tsc();
      },
      &seen, 0, 0);
  EXPECT_EQ(seen.before, 0u);  // no stop yet
  const uint64_t stopped = quanta_fn_last_stop_tsc(f);
  quanta_fn_resume(f, 0);
  EXPECT_EQ(seen.after, stopped);  // the adaptive probes' measure of how late a yield landed
  quanta_fn_destroy(f);
}

// check_clock_at_flag_probes (the dispatcher under --dispatcher-works --preempt flag):
// flag probes on that thread stop a task once its clock deadline has passed, and never
// before; inside a preempt-disabled region they defer to the enable. Each case runs on a
// thread of its own, which is where the setting lives.
constexpr auto flag_probes = &count_and_probe<quanta_flag_probe>;

TEST(Preempt, FlagProbesNeverFireWhereNoMonitorWritesAndNothingChecksTheClock) {
  std::thread([] {
    int count = 0;
    quanta_fn* f = quanta_fn_launch(flag_probes, &count, 1, 0);  // deadline already passed
    EXPECT_TRUE(quanta_fn_completed(f));
    EXPECT_EQ(quanta_fn_yields(f), 0u);
    quanta_fn_destroy(f);
  }).join();
}

TEST(Preempt, FlagProbesCheckTheClockWhereTheThreadAsksForIt) {
  std::thread([] {
    quanta::check_clock_at_flag_probes();
    expect_a_yield_at_each_probe(flag_probes);
    // No deadline: the same probes let it run to the end.
    int count = 0;
    quanta_fn* f = quanta_fn_launch(flag_probes, &count, 0, 0);
    EXPECT_TRUE(quanta_fn_completed(f));
    EXPECT_EQ(quanta_fn_yields(f), 0u);
    quanta_fn_destroy(f);
    // Outside a task a probe returns.
    quanta_flag_probe();
  }).join();
}

TEST(Preempt, ClockCheckingFlagProbesDeferToTheEnable) {
  std::thread([] {
    quanta::check_clock_at_flag_probes();
    struct State {
      int probes_inside = 0;
      bool after_enable = false;
    } st;
    quanta_fn* f = quanta_fn_launch(
        [](void* raw) {
          auto& s = *static_cast<State*>(raw);
          quanta_preempt_disable();
          for (int i = 0; i < 100; ++i) {
            quanta_flag_probe();
            ++s.probes_inside;
          }
          quanta_preempt_enable();  // the quantum ended inside: it yields here
          s.after_enable = true;
        },
        &st, 1, 0);
    EXPECT_EQ(st.probes_inside, 100);
    EXPECT_FALSE(st.after_enable);
    EXPECT_EQ(quanta_fn_yields(f), 1u);
    quanta_fn_resume(f, 0);
    EXPECT_TRUE(st.after_enable);
    EXPECT_TRUE(quanta_fn_completed(f));
    quanta_fn_destroy(f);
  }).join();
}

}  // namespace
