#include "Config.h"

#include <cstdlib>

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"

using namespace llvm;

namespace quanta {

static cl::opt<std::string> OptMode("quanta-mode",
                                    cl::desc("quanta probes: clock | flag | counter | none"));
static cl::opt<uint64_t> OptBound("quanta-bound",
                                  cl::desc("clock mode: max IR instructions between probes"));
static cl::opt<uint64_t> OptExtCost("quanta-ext-call-cost",
                                    cl::desc("cost (IR instructions) of a call to uninstrumented code"));
static cl::opt<uint64_t> OptFlagStride("quanta-flag-stride",
                                       cl::desc("flag mode: IR instructions of loop body per back-edge probe"));
static cl::opt<uint64_t> OptFlagMin("quanta-flag-min-fn-cost",
                                    cl::desc("flag mode: smallest function that gets an entry probe"));
static cl::opt<uint64_t> OptCounterThr("quanta-counter-threshold",
                                       cl::desc("counter mode: IR instructions between clock checks"));
static cl::opt<bool> OptAdaptive("quanta-adaptive",
                                 cl::desc("clock mode: loop probes aim at the deadline (1) or use a fixed stride (0)"));
static cl::opt<uint64_t> OptMaxCycles("quanta-probe-max-cycles",
                                      cl::desc("clock mode, adaptive: longest gap between loop probes, cycles"));
static cl::opt<uint64_t> OptMaxFactor("quanta-max-stride-factor",
                                      cl::desc("clock mode, adaptive: longest gap, in static strides"));
static cl::opt<bool> OptLockGuard("quanta-lock-guard",
                                  cl::desc("bracket lock calls with quanta_preempt_disable/enable"));
static cl::opt<bool> OptCountExec("quanta-count-probes",
                                  cl::desc("count executed probes in quanta_stat_probes_executed"));
static cl::opt<bool> OptStats("quanta-stats", cl::desc("print probe counts per module to stderr"));
static cl::opt<std::string> OptStatsFile("quanta-stats-file",
                                         cl::desc("append the per-module probe counts to this file instead of stderr"));

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

[[noreturn]] static void bad(const std::string& what, const std::string& value, const char* expect) {
  report_fatal_error(Twine("quanta pass: invalid value '") + value + "' for " + what +
                         " (expected " + expect + ")",
                     /*gen_crash_diag=*/false);
}

static const char* env(const char* name) {
  const char* v = std::getenv(name);
  return (v && *v) ? v : nullptr;
}

static uint64_t pickUInt(cl::opt<uint64_t>& opt, const char* envName, uint64_t def, uint64_t min) {
  if (opt.getNumOccurrences()) {
    if (opt < min) bad(std::string("-") + opt.ArgStr.str(), std::to_string(opt), "a number >= 1");
    return opt;
  }
  if (const char* v = env(envName)) {
    char* end = nullptr;
    unsigned long long x = std::strtoull(v, &end, 10);
    if (*end != '\0' || x < min) bad(envName, v, "a positive integer");
    return x;
  }
  return def;
}

static bool pickBool(cl::opt<bool>& opt, const char* envName, bool def) {
  if (opt.getNumOccurrences()) return opt;
  if (const char* v = env(envName)) {
    std::string s(v);
    if (s == "1" || s == "on" || s == "yes" || s == "true") return true;
    if (s == "0" || s == "off" || s == "no" || s == "false") return false;
    bad(envName, s, "0 or 1");
  }
  return def;
}

Config loadConfig() {
  Config c;
  if (OptMode.getNumOccurrences()) {
    if (!parseMode(OptMode, c.mode)) bad("-quanta-mode", OptMode, "clock, flag, counter or none");
  } else if (const char* v = env("QUANTA_MODE")) {
    if (!parseMode(v, c.mode)) bad("QUANTA_MODE", v, "clock, flag, counter or none");
  }
  c.bound = pickUInt(OptBound, "QUANTA_BOUND", c.bound, 1);
  c.extCallCost = pickUInt(OptExtCost, "QUANTA_EXT_CALL_COST", c.extCallCost, 0);
  c.flagStride = pickUInt(OptFlagStride, "QUANTA_FLAG_STRIDE", c.flagStride, 1);
  c.flagMinFnCost = pickUInt(OptFlagMin, "QUANTA_FLAG_MIN_FN_COST", c.flagMinFnCost, 0);
  // The counter baseline defaults to the clock bound so both target the same density.
  c.counterThreshold = pickUInt(OptCounterThr, "QUANTA_COUNTER_THRESHOLD", c.bound, 1);
  c.adaptive = pickBool(OptAdaptive, "QUANTA_ADAPTIVE", c.adaptive);
  c.probeMaxCycles = pickUInt(OptMaxCycles, "QUANTA_PROBE_MAX_CYCLES", c.probeMaxCycles, 1);
  // The helper multiplies it by a gap of up to 2^31 units in 64 bits.
  if (c.probeMaxCycles >= (uint64_t(1) << 32))
    bad("-quanta-probe-max-cycles/QUANTA_PROBE_MAX_CYCLES", std::to_string(c.probeMaxCycles),
        "a number below 2^32");
  c.maxStrideFactor = pickUInt(OptMaxFactor, "QUANTA_MAX_STRIDE_FACTOR", c.maxStrideFactor, 1);
  c.lockGuard = pickBool(OptLockGuard, "QUANTA_LOCK_GUARD", c.lockGuard);
  c.countExec = pickBool(OptCountExec, "QUANTA_COUNT_PROBES", c.countExec);
  c.stats = pickBool(OptStats, "QUANTA_STATS", c.stats);
  if (OptStatsFile.getNumOccurrences() && !OptStatsFile.empty()) {
    c.statsFile = OptStatsFile;
    c.statsFileSetting = "-quanta-stats-file";
  } else if (const char* v = env("QUANTA_STATS_FILE")) {
    c.statsFile = v;
    c.statsFileSetting = "QUANTA_STATS_FILE";
  }
  // Naming a file asks for the numbers: QUANTA_STATS need not be set as well.
  if (!c.statsFile.empty()) c.stats = true;
  return c;
}

}  // namespace quanta
