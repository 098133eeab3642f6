// Runtime behaviour of code compiled with the quanta pass (clock mode) and run through
// the preemptible-function API. Only counts and orderings are asserted, never times.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "handlers.h"
#include "quanta/fn.h"

namespace {

// 2 µs quanta; a handler of 20M mixing rounds runs for milliseconds, i.e. thousands of
// quanta, so "preempted at least 10 times" holds however slow or loaded the machine is.
constexpr uint64_t kLongRounds = 20'000'000;
constexpr uint64_t kShortRounds = 2'000;

uint64_t quantum() { return static_cast<uint64_t>(2 * quanta_tsc_per_us()); }

uint64_t plainResult(uint64_t seed, uint64_t rounds) {
  int finished = 0;
  spin_request r{seed, rounds, 0, &finished, 0};
  plain_spin_handler(&r);
  return r.result;
}

TEST(InstrumentedHandler, IsPreemptedRepeatedlyWithoutManualYields) {
  int finished = 0;
  spin_request r{7, kLongRounds, 0, &finished, 0};
  quanta_fn* f = quanta_fn_launch(spin_handler, &r, quantum(), 0);
  ASSERT_NE(f, nullptr);
  uint64_t resumes = 0;
  while (!quanta_fn_completed(f)) {
    quanta_fn_resume(f, quantum());
    ++resumes;
  }
  EXPECT_GE(quanta_fn_yields(f), 10u);
  EXPECT_EQ(quanta_fn_yields(f), resumes);
  EXPECT_EQ(r.result, plainResult(7, kLongRounds));  // probes change timing, not results
  quanta_fn_destroy(f);
}

TEST(InstrumentedHandler, ShortRequestBehindLongOneFinishesFirst) {
  int finished = 0;
  spin_request longReq{1, kLongRounds, 0, &finished, 0};
  spin_request shortReq{2, kShortRounds, 0, &finished, 0};
  // The long request arrives first; round robin with one quantum each.
  quanta_fn* fl = quanta_fn_launch(spin_handler, &longReq, quantum(), 0);
  quanta_fn* fs = quanta_fn_launch(spin_handler, &shortReq, quantum(), 0);
  ASSERT_NE(fl, nullptr);
  ASSERT_NE(fs, nullptr);
  while (!quanta_fn_completed(fl) || !quanta_fn_completed(fs)) {
    if (!quanta_fn_completed(fl)) quanta_fn_resume(fl, quantum());
    if (!quanta_fn_completed(fs)) quanta_fn_resume(fs, quantum());
  }
  EXPECT_EQ(shortReq.done_order, 1);
  EXPECT_EQ(longReq.done_order, 2);
  EXPECT_GE(quanta_fn_yields(fl), 10u);
  EXPECT_EQ(shortReq.result, plainResult(2, kShortRounds));
  EXPECT_EQ(longReq.result, plainResult(1, kLongRounds));
  quanta_fn_destroy(fl);
  quanta_fn_destroy(fs);
}

TEST(InstrumentedHandler, NotPreemptedWhileHoldingALock) {
  volatile uint64_t epoch = 0;
  locked_request r{3, kLongRounds, 0, &epoch, 0, 0, 0};
  quanta_fn* f = quanta_fn_launch(locked_handler, &r, quantum(), 0);
  ASSERT_NE(f, nullptr);
  epoch = epoch + 1;
  while (!quanta_fn_completed(f)) {
    quanta_fn_resume(f, quantum());
    epoch = epoch + 1;
  }
  // The critical section spans thousands of quanta yet no yield happened inside it...
  EXPECT_EQ(r.epoch_at_lock, r.epoch_at_unlock);
  // ...while the same work after the unlock was preempted many times.
  EXPECT_GE(r.epoch_at_end - r.epoch_at_unlock, 10u);
  locked_request p{3, kLongRounds, 0, &epoch, 0, 0, 0};
  plain_locked_handler(&p);
  EXPECT_EQ(r.result, p.result);
  quanta_fn_destroy(f);
}

// Runs `handler` on `r` to completion in 2 µs quanta; returns how many times it yielded.
uint64_t RunPreempted(void (*handler)(void*), void* r) {
  quanta_fn* f = quanta_fn_launch(handler, r, quantum(), 0);
  EXPECT_NE(f, nullptr);
  if (!f) return 0;
  while (!quanta_fn_completed(f)) quanta_fn_resume(f, quantum());
  uint64_t yields = quanta_fn_yields(f);
  quanta_fn_destroy(f);
  return yields;
}

std::vector<unsigned char> StrideBytes(uint64_t n) {
  std::vector<unsigned char> bytes(n);
  uint64_t x = 12345;
  for (auto& b : bytes) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    b = static_cast<unsigned char>(x >> 56);  // zero about once in 256 bytes
  }
  return bytes;
}

// Runs `handler` preempted over `n` pseudo-random bytes (rows of `row` bytes): it must
// yield at least 10 times and compute what `plain` (the same code without the pass) does.
void ExpectStridePreemptedLikePlain(void (*handler)(void*), void (*plain)(void*), uint64_t n, uint64_t row) {
  std::vector<unsigned char> bytes = StrideBytes(n);
  stride_request r{bytes.data(), bytes.size(), row, 0};
  EXPECT_GE(RunPreempted(handler, &r), 10u);
  stride_request p{bytes.data(), bytes.size(), row, 0};
  plain(&p);
  EXPECT_EQ(r.result, p.result);
}

// A loop stepping by 3 whose `i < n` test is shared with its adaptive probe: the probe's
// values stay on i's lattice, so it yields and the sum is the plain build's.
TEST(InstrumentedStride, StepOfThreeSharesItsExitTest) {
  ExpectStridePreemptedLikePlain(stride_handler, plain_stride_handler, 48 << 20, 0);
}

// The same loop entered once per 60-byte row, leaving at a zero byte or the row's end:
// the distance to the next probe is carried across entries in steps of 3.
TEST(InstrumentedStride, StepOfThreeCarriesItsDistanceAcrossEntries) {
  ExpectStridePreemptedLikePlain(stride_rows_handler, plain_stride_rows_handler, 1 << 20, 60);
}

// A tokenizer's separator loop and word loop share one distance to the next probe (a scan
// chain, clock mode): probes come in either loop, and the hash is the plain build's.
TEST(InstrumentedStride, ScanChainSharesOneDistance) {
  ExpectStridePreemptedLikePlain(words_handler, plain_words_handler, 8 << 20, 0);
}

// Each round of the countdown loop runs 2^20 steps, about a millisecond: hundreds of 2 us
// quanta, and at most 64 strides between its adaptive probes. Every round must yield, the
// ones after the first too, and the sum must be the plain build's.
TEST(InstrumentedStride, CountdownRoundsEachYieldAfterEndingOffTheProbesLattice) {
  std::vector<unsigned char> bytes = StrideBytes((1u << 21) + 2);
  volatile uint64_t epoch = 0;
  countdown_request r{bytes.data(), (1u << 21) + 1, 8, &epoch, {}, 0};
  quanta_fn* f = quanta_fn_launch(countdown_handler, &r, quantum(), 0);
  ASSERT_NE(f, nullptr);
  while (!quanta_fn_completed(f)) {
    quanta_fn_resume(f, quantum());
    epoch = epoch + 1;
  }
  quanta_fn_destroy(f);
  for (int k = 0; k < 8; ++k) EXPECT_GE(r.yields_in_round[k], 2u) << "round " << k;
  countdown_request p{bytes.data(), (1u << 21) + 1, 8, &epoch, {}, 0};
  plain_countdown_handler(&p);
  EXPECT_EQ(r.result, p.result);
}

// Scans `text` with the fixed-stride scanner: it must count `words` and reach at least one
// probe per 256 bytes.
void ExpectProbeEvery256Bytes(const std::string& text, uint64_t words) {
  quanta_stat_probes_executed = 0;
  EXPECT_EQ(count_words(text.data(), text.size()), words);
  EXPECT_GE(quanta_stat_probes_executed, text.size() / 256);
}

// Probes spaced by the bound B = 1000 IR instructions must add up across entries: the skip
// loop below is entered once per word and left after 99 spaces, fewer than its stride
// (the nearest power of two to 1000 / its body cost, at most 128 here). Counted per entry
// alone, it would never reach a probe there, and the outer loop's own probes (every
// ~1000 / its own cost words) would leave ~B * (words per outer probe) between probes; so
// each exit charges the outer loop's budget for what the entry ran. Every byte costs the
// skip loop at least 5 units: the bound asks for a probe per ~200 bytes; counted against a
// loose 256 bytes per probe, the per-entry count alone (one probe per ~12 KB) fails.
TEST(InstrumentedScanner, ShortInnerLoopEntriesAddUpToProbes) {
  constexpr uint64_t kBytes = 1 << 20;
  std::string text(kBytes, ' ');
  for (uint64_t i = 0; i < kBytes; i += 100) text[i] = 'w';
  ExpectProbeEvery256Bytes(text, (kBytes + 99) / 100);
}

// The word loop, entered once per 9-letter word and left at the space after it, shares its
// `i < n` test with the probe (x = the IV's next value, full-width n: saturated adds). Each
// exit charges the parent's budget 9 iterations; were the charge lost, only the outer
// loop's own cost would reach probes, about one per 1000 bytes.
TEST(InstrumentedScanner, WordLoopEntriesChargeTheirParent) {
  constexpr uint64_t kBytes = 1 << 20;
  std::string text(kBytes, 'w');
  for (uint64_t i = 9; i < kBytes; i += 10) text[i] = ' ';
  ExpectProbeEvery256Bytes(text, (kBytes + 9) / 10);
}

}  // namespace
