#include "Config.h"

#include <cstdlib>

#include "llvm/Support/CommandLine.h"

using namespace llvm;

namespace quanta {

static cl::opt<std::string> OptMode("quanta-mode",
                                    cl::desc("quanta probes: clock | flag | counter | none"));
static cl::opt<uint64_t> OptBound("quanta-bound",
                                  cl::desc("clock mode: max IR instructions between probes"));
static cl::opt<uint64_t> OptExtCost("quanta-ext-call-cost",
                                    cl::desc("cost (IR instructions) of a call to uninstrumented code"));
static cl::opt<uint64_t> OptFlagStride("quanta-flag-stride",
                                       cl::desc("flag mode: max IR instructions between flag probes"));
static cl::opt<uint64_t> OptCounterThr("quanta-counter-threshold",
                                       cl::desc("counter mode: IR instructions between clock checks"));
static cl::opt<bool> OptAdaptive("quanta-adaptive",
                                 cl::desc("clock mode: loop probes aim at the deadline (1) or use a fixed stride (0)"));
static cl::opt<uint64_t> OptMaxCycles("quanta-probe-max-cycles",
                                      cl::desc("clock mode, adaptive: longest gap between loop probes, cycles"));
static cl::opt<uint64_t> OptMaxFactor("quanta-max-stride-factor",
                                      cl::desc("clock mode, adaptive: longest gap, in static strides"));
static cl::opt<bool> OptFlagTwins("quanta-flag-twins",
                                  cl::desc("flag mode: also emit a clock-probed twin of each instrumented function"));
static cl::opt<bool> OptLockGuard("quanta-lock-guard",
                                  cl::desc("bracket lock calls with quanta_preempt_disable/enable"));
static cl::opt<bool> OptCountExec("quanta-count-probes",
                                  cl::desc("count executed probes in quanta_stat_probes_executed and time library calls "
                                           "in quanta_stat_library_cycles"));
static cl::opt<bool> OptStats("quanta-stats", cl::desc("print probe counts per module to stderr"));
static cl::opt<std::string> OptStatsFile("quanta-stats-file",
                                         cl::desc("append the per-module probe counts to this file instead of stderr"));

static cl::opt<bool> OptCycleTicks("quanta-cycle-ticks",
                                   cl::desc("clock mode: functions on a call-graph cycle start with a tick (1) or a clock probe (0)"));

// Comparisons (Config.h): hidden, no variables.
static cl::opt<bool> OptCallSummaries("quanta-call-summaries", cl::init(true), cl::Hidden,
                                      cl::desc("charge calls by their callees' probe-free stretches (clock and flag)"));
static cl::opt<bool> OptMergeExit("quanta-merge-exit", cl::init(true), cl::Hidden,
                                  cl::desc("share the loop-exit compare with the probe"));
static cl::opt<bool> OptStrideOverChildren("quanta-stride-over-children", cl::init(true), cl::Hidden,
                                           cl::desc("a loop whose dynamic children all keep the budget strides on its IV"));
static cl::opt<cl::boolOrDefault> OptSlowPreserveMost(
    "quanta-slow-path-preserve-most", cl::Hidden,
    cl::desc("x86-64: probes call their slow paths with preserve_most (1) or C (0); default: flag mode only"));
static cl::opt<PollAt> OptFlagPollAt(
    "quanta-flag-poll-at", cl::init(PollAt::Auto), cl::Hidden, cl::desc("flag mode: where a polled loop reads the flag"),
    cl::values(clEnumValN(PollAt::Auto, "auto", "at the top where paths meet at the latch, else on the back-edge"),
               clEnumValN(PollAt::Latch, "latch", "on the back-edge"),
               clEnumValN(PollAt::Top, "top", "at the top of the header")));

const char* modeName(Mode m) {
  switch (m) {
    case Mode::None: return "none";
    case Mode::Clock: return "clock";
    case Mode::Flag: return "flag";
    case Mode::Counter: return "counter";
  }
  return "?";
}

bool parseMode(const std::string& s, Mode& out) {
  if (s == "clock") out = Mode::Clock;
  else if (s == "flag") out = Mode::Flag;
  else if (s == "counter") out = Mode::Counter;
  else if (s == "none" || s == "off") out = Mode::None;
  else return false;
  return true;
}

namespace {
// Reads the settings, keeping the first bad value's message; a bad value reads as its
// default so that the rest can still be read (and the caller reports the message).
struct Reader {
  std::string error;

  void bad(const std::string& what, const std::string& value, const std::string& expect) {
    if (error.empty())
      error = "quanta pass: invalid value '" + value + "' for " + what + " (expected " + expect + ")";
  }
  uint64_t pickUInt(cl::opt<uint64_t>& opt, const char* envName, uint64_t def, uint64_t min);
  bool pickBool(cl::opt<bool>& opt, const char* envName, bool def);
};
}  // namespace
static const char* env(const char* name) {
  const char* v = std::getenv(name);
  return (v && *v) ? v : nullptr;
}

// No setting needs more, and keeping every value within 32 bits keeps the products the
// pass forms from two of them (a stride times a factor; the runtime's quanta_clock_gap() multiplies
// -quanta-probe-max-cycles by a gap of up to 2^31 units) within 64 bits.
static constexpr uint64_t kMaxSetting = (uint64_t(1) << 32) - 1;

static std::string rangeText(uint64_t min) {
  return "a whole number from " + std::to_string(min) + " to " + std::to_string(kMaxSetting);
}

// Digits only: strtoull would take "-5" as 2^64 - 5, skip leading blanks and saturate on
// overflow, so a typo could pass as a huge bound.
static bool parseSetting(const char* v, uint64_t& out) {
  if (!*v) return false;
  uint64_t x = 0;
  for (const char* p = v; *p; ++p) {
    if (*p < '0' || *p > '9') return false;
    x = x * 10 + uint64_t(*p - '0');
    if (x > kMaxSetting) return false;
  }
  out = x;
  return true;
}

uint64_t Reader::pickUInt(cl::opt<uint64_t>& opt, const char* envName, uint64_t def, uint64_t min) {
  if (opt.getNumOccurrences()) {
    if (opt >= min && opt <= kMaxSetting) return opt;
    bad(std::string("-") + opt.ArgStr.str(), std::to_string(opt), rangeText(min));
    return def;
  }
  if (const char* v = env(envName)) {
    uint64_t x = 0;
    if (parseSetting(v, x) && x >= min) return x;
    bad(envName, v, rangeText(min));
  }
  return def;
}

bool Reader::pickBool(cl::opt<bool>& opt, const char* envName, bool def) {
  if (opt.getNumOccurrences()) return opt;
  if (const char* v = env(envName)) {
    std::string s(v);
    if (s == "1" || s == "on" || s == "yes" || s == "true") return true;
    if (s == "0" || s == "off" || s == "no" || s == "false") return false;
    bad(envName, s, "0 or 1");
  }
  return def;
}

Config loadConfig(std::string& error) {
  Config c;
  Reader r;
  if (OptMode.getNumOccurrences()) {
    if (!parseMode(OptMode, c.mode)) r.bad("-quanta-mode", OptMode, "clock, flag, counter or none");
  } else if (const char* v = env("QUANTA_MODE")) {
    if (!parseMode(v, c.mode)) r.bad("QUANTA_MODE", v, "clock, flag, counter or none");
  }
  c.bound = r.pickUInt(OptBound, "QUANTA_BOUND", c.bound, 1);
  c.extCallCost = r.pickUInt(OptExtCost, "QUANTA_EXT_CALL_COST", c.extCallCost, 0);
  c.flagStride = r.pickUInt(OptFlagStride, "QUANTA_FLAG_STRIDE", c.flagStride, 1);
  // The counter baseline defaults to the clock bound so both target the same density.
  c.counterThreshold = r.pickUInt(OptCounterThr, "QUANTA_COUNTER_THRESHOLD", c.bound, 1);
  c.adaptive = r.pickBool(OptAdaptive, "QUANTA_ADAPTIVE", c.adaptive);
  c.probeMaxCycles = r.pickUInt(OptMaxCycles, "QUANTA_PROBE_MAX_CYCLES", c.probeMaxCycles, 1);
  c.maxStrideFactor = r.pickUInt(OptMaxFactor, "QUANTA_MAX_STRIDE_FACTOR", c.maxStrideFactor, 1);
  c.flagTwins = r.pickBool(OptFlagTwins, "QUANTA_FLAG_TWINS", c.flagTwins);
  c.lockGuard = r.pickBool(OptLockGuard, "QUANTA_LOCK_GUARD", c.lockGuard);
  c.countExec = r.pickBool(OptCountExec, "QUANTA_COUNT_PROBES", c.countExec);
  c.stats = r.pickBool(OptStats, "QUANTA_STATS", c.stats);
  if (OptStatsFile.getNumOccurrences() && !OptStatsFile.empty()) {
    c.statsFile = OptStatsFile;
    c.statsFileSetting = "-quanta-stats-file";
  } else if (const char* v = env("QUANTA_STATS_FILE")) {
    c.statsFile = v;
    c.statsFileSetting = "QUANTA_STATS_FILE";
  }
  // Naming a file asks for the numbers: QUANTA_STATS need not be set as well.
  if (!c.statsFile.empty()) c.stats = true;
  c.compare = Comparisons{true, OptCallSummaries, OptMergeExit, OptStrideOverChildren, OptFlagPollAt};
  if (OptSlowPreserveMost == cl::BOU_TRUE) c.compare.slowPathCC = SlowPathCC::PreserveMost;
  if (OptSlowPreserveMost == cl::BOU_FALSE) c.compare.slowPathCC = SlowPathCC::C;
  c.compare.cycleTicks = r.pickBool(OptCycleTicks, "QUANTA_CYCLE_TICKS", true);
  error = r.error;
  return c;
}

}  // namespace quanta
