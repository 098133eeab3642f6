// Settings of the quanta pass: which probe flavour to insert and how dense.
// Each setting comes from a command-line option (opt -quanta-..., clang -mllvm -quanta-...)
// or, when the option is absent, from an environment variable, so that build systems that
// only pass CC/CXX can still choose the mode (see docs/pass.md).
#pragma once

#include <cstdint>
#include <string>

namespace quanta {

// The numbers are written into each object's probe record (include/quanta/probe_record.h).
enum class Mode { None = 0, Clock = 1, Flag = 2, Counter = 3 };

const char* modeName(Mode m);

// Flag mode: where a polled loop reads the flag.
enum class PollAt { Auto, Latch, Top };

// The convention of the probes' slow-path calls (Comparisons::slowPathCC).
enum class SlowPathCC { Auto, PreserveMost, C };

// Switches that turn one placement rule off, so that a test or a measurement can show what
// the rule changes. Hidden options with no environment variable (not configuration), except
// cycleTicks, which a whole-program build through the wrappers can only set by variable.
struct Comparisons {
  // -quanta-cycle-ticks=0 / QUANTA_CYCLE_TICKS=0: a function on a call-graph cycle starts
  // with a clock probe instead of a tick (a budget countdown that reads the clock when it
  // runs out).
  bool cycleTicks = true;
  // -quanta-call-summaries=0: a call to an instrumented function costs 1, and no function
  // probes at entry for being on a call-graph cycle (the placement before summaries).
  bool callSummaries = true;
  // -quanta-merge-exit=0: clock mode's counted loops keep a compare of their own for the
  // probe instead of sharing the loop's exit test (flag mode never shares it).
  bool mergeExit = true;
  // -quanta-stride-over-children=0: a loop over budgeted children charges the budget too.
  bool strideOverChildren = true;
  // -quanta-flag-poll-at=latch|top: one place for every polled loop's read.
  PollAt flagPollAt = PollAt::Auto;
  // -quanta-slow-path-preserve-most=1|0: the probes call their slow paths with
  // preserve_most (1) or C (0) on x86-64 in every mode. Unset: preserve_most in flag mode,
  // where it pays, C in clock and counter mode, where it does not (ProbeEmitter.h).
  SlowPathCC slowPathCC = SlowPathCC::Auto;
};

struct Config {
  Mode mode = Mode::Clock;
  // Clock mode: longest probe-free path, in IR instructions (the bound B).
  uint64_t bound = 1000;
  // Cost charged for a call into code the pass does not see (declarations, indirect calls).
  uint64_t extCallCost = 50;
  // Flag mode's bound: longest probe-free path, in IR instructions, for the same walk as
  // clock mode's (straight-line code, calls by summary, loops strided or polled).
  uint64_t flagStride = 1000;
  // Counter mode: instruction count between two clock checks.
  uint64_t counterThreshold = 1000;
  // Clock mode: loop probes measure their loop's speed and aim the next probe at the
  // deadline (AdaptiveProbe.h); off: a fixed stride from the bound, as in flag mode.
  bool adaptive = true;
  // Adaptive loop probes: longest gap, in cycles (spacing when the deadline is far or
  // unknown) and as a multiple of the static stride (when the loop's speed is unknown).
  uint64_t probeMaxCycles = 8192;
  uint64_t maxStrideFactor = 64;
  // Flag mode: also emit a clock-probed twin of every instrumented function, and the
  // table that maps each function to its twin (FlagTwins.h), for threads nobody writes a
  // flag for (the dispatcher running a request itself).
  bool flagTwins = true;
  // Bracket lock calls with quanta_preempt_disable()/enable().
  bool lockGuard = true;
  // Count every executed probe in the global quanta_stat_probes_executed, and the cycles
  // spent in library calls in quanta_stat_library_cycles (benchmarks; LibraryCallTiming.h).
  bool countExec = false;
  // Print one summary line per module (Stats.h): to stderr, or appended to statsFile.
  bool stats = false;
  // Where the summary lines go instead of stderr; empty: stderr. Build systems such as
  // configure scripts take any compiler stderr output as a failed check, so a build that
  // wants the numbers collects them in a file.
  std::string statsFile;
  // The option or variable statsFile came from, for error messages.
  std::string statsFileSetting;
  Comparisons compare;
};

// Reads the options and environment. A value that does not parse or is out of range
// leaves `error` set to a message naming the option or variable (else empty); the passes
// report it as an error diagnostic (LLVMContext::emitError), which fails the compile with
// that one line. report_fatal_error would do the same in opt, but inside clang it prints
// LLVM's crash banner and a stack dump, which reads like a compiler bug.
Config loadConfig(std::string& error);
// Parses a mode name; returns false if unknown.
bool parseMode(const std::string& s, Mode& out);

}  // namespace quanta
