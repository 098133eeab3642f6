#!/usr/bin/env python3
"""What each placement rule of the pass buys on real programs, by switching it off.

Each rule with a switch (docs/pass-internals.md, "Comparison switches"; plus
-quanta-adaptive and -quanta-cycle-ticks) is turned off in turn, and every program is built
in clock mode with the pass's other rules as they are (scripts/realbench/build.sh with
QUANTA_REALBENCH_PASS_FLAGS), and its counting twin (clock-count). On the --quick input of
bench/real_programs.py:

- instructions of the whole process (callgrind, the clock build), and their overhead over
  the plain build;
- clock reads: the counting build's executed_clock_reads (probes, loop gaps and ticks that
  read the clock), run natively, median of three runs. Not under callgrind: adaptive loop
  probes space themselves in time, and callgrind's slowed clock makes them probe far more
  often than they do at full speed.

These are counts, not times: they change little with a busy machine, and they are what a
rule changes (a clock read costs ~12-19 ns here, docs/pass-results.md; an instruction well
under one). A rule pays on a program when switching it off raises either count. Every
build's output must equal the plain build's; the script exits 1 if one does not.

With --mode flag the builds are flag-mode ones (flag and flag-count), and the counting
build's executed polls stand in for clock reads. There the rules that act in clock mode only
(merge-exit, adaptive, cycle-ticks, slow-path-preserve-most-on) change at most the clock
twins (-quanta-flag-twins), which the measured runs do not execute. --instructions-only
skips the counting builds (for a rule that changes code generation, not where probes go).

usage: experiments/pass_rule_ablation.py [--programs zlib,lz4,bzip2,lua,fairymax]
           [--rules all|name,...] [--mode clock|flag] [--instructions-only]
           [--bin-dir DIR] [--out FILE] [--table FILE]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import real_programs  # noqa: E402  (inputs, output normalization, program list)

# name -> compiler flags that switch the rule off ("" = the pass as it is).
RULES = {
    "baseline": "",
    "call-summaries": "-mllvm -quanta-call-summaries=0",
    "merge-exit": "-mllvm -quanta-merge-exit=0",
    "stride-over-children": "-mllvm -quanta-stride-over-children=0",
    "adaptive": "-mllvm -quanta-adaptive=0",
    "cycle-ticks": "-mllvm -quanta-cycle-ticks=0",
    "slow-path-preserve-most": "-mllvm -quanta-slow-path-preserve-most=0",
    # Not a switch-off: clock mode calls its slow paths with C by default, and this row
    # shows what preserve_most would change there (docs/pass-internals.md).
    "slow-path-preserve-most-on": "-mllvm -quanta-slow-path-preserve-most=1",
}
DEFAULT_PROGRAMS = "zlib,lz4,bzip2,lua,fairymax"


UsageError = real_programs.UsageError  # exit 2, naming the option


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--programs", default=DEFAULT_PROGRAMS,
                    help=f"comma-separated subset of: {' '.join(real_programs.PROGRAMS)}")
    ap.add_argument("--rules", default="all", help=f"'all' or comma-separated: {' '.join(RULES)}")
    ap.add_argument("--mode", default="clock", help="clock (default) or flag: the pass mode of the builds")
    ap.add_argument("--instructions-only", action="store_true",
                    help="skip the counting builds and their clock reads (or polls)")
    ap.add_argument("--bin-dir", default=os.path.join(ROOT, "third_party_src", "realbench", "ablation"),
                    help="where the builds go, one directory per rule")
    ap.add_argument("--plain-dir", default=os.path.join(ROOT, "third_party_src", "realbench", "out"),
                    help="where the plain builds are (made there if missing)")
    ap.add_argument("--quanta-build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--rebuild", action="store_true", help="build every variant afresh")
    ap.add_argument("--out", help="write the JSON here instead of stdout")
    ap.add_argument("--table", metavar="JSON", help="print the Markdown table of a report and exit")
    a = ap.parse_args(argv)
    if a.table:
        return a
    if a.mode not in ("clock", "flag"):
        raise UsageError(f"--mode: unknown mode '{a.mode}' (expected clock or flag)")
    a.programs = [p for p in a.programs.split(",") if p]
    bad = [p for p in a.programs if p not in real_programs.PROGRAMS]
    if bad or not a.programs:
        raise UsageError(f"--programs: unknown program '{','.join(bad)}' (expected some of "
                         f"{','.join(real_programs.PROGRAMS)})")
    if "leveldb" in a.programs:
        raise UsageError("--programs: leveldb runs its work on threads of its own; not measured here")
    names = list(RULES) if a.rules == "all" else [r for r in a.rules.split(",") if r]
    bad = [r for r in names if r not in RULES]
    if bad or not names:
        raise UsageError(f"--rules: unknown rule '{','.join(bad)}' (expected all or some of {','.join(RULES)})")
    if "baseline" not in names:
        names.insert(0, "baseline")
    a.rules = names
    if not os.access(os.path.join(a.quanta_build, "bin", "quanta-clang"), os.X_OK):
        raise UsageError(f"--quanta-build: {a.quanta_build}/bin/quanta-clang is missing (scripts/build.sh)")
    return a


def build(a, program, mode, out_dir, flags):
    binary = os.path.join(out_dir, f"{program}-{mode}")
    if os.access(binary, os.X_OK) and not (a.rebuild and mode != "none"):
        return binary
    print(f"pass_rule_ablation: building {program} ({mode}, {flags or 'all rules'})", file=sys.stderr)
    env = dict(os.environ, QUANTA_REALBENCH_OUT_DIR=out_dir, QUANTA_REALBENCH_PASS_FLAGS=flags)
    r = subprocess.run([os.path.join(ROOT, "scripts", "realbench", "build.sh"), program, mode, a.quanta_build],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    if r.returncode != 0:
        raise RuntimeError(f"building {program} ({mode}, {flags}) failed: {r.stderr.decode()[-400:]}")
    return binary


def run_once(work, inputs, program, binary, prefix=(), env=None):
    tmpl, stdin = inputs[program]
    db = os.path.join(work, "db")
    subprocess.run(["rm", "-rf", db], check=True)
    argv = list(prefix) + [x.format(bin=binary, db=db) for x in tmpl]
    with open(os.path.join(work, stdin)) if stdin else open(os.devnull) as fin:
        r = subprocess.run(argv, stdin=fin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    if r.returncode != 0:
        raise RuntimeError(f"{binary} exited with {r.returncode}: {r.stderr.decode()[-300:]}")
    return r


def instructions(work, inputs, program, binary):
    """(instructions of one callgrind run, normalized output)."""
    # valgrind 3.19 gives up on some of clang 19's DWARF 5 (bench/real_programs.py).
    stripped = os.path.join(work, os.path.basename(os.path.dirname(binary)) + "-" + os.path.basename(binary))
    subprocess.run(["objcopy", "--strip-debug", binary, stripped], check=True)
    r = run_once(work, inputs, program, stripped, ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"])
    return int(re.search(rb"Collected : (\d+)", r.stderr).group(1)), real_programs.normalize(program, r.stdout)


def clock_reads(work, inputs, program, binary):
    """Median executed_clock_reads of three native runs of a counting build."""
    counts = []
    for _ in range(3):
        out = os.path.join(work, "counts.json")
        run_once(work, inputs, program, binary, env=dict(os.environ, QUANTA_REALBENCH_OUT=out))
        with open(out) as f:
            rep = json.load(f)
        counts.append(rep.get("executed_clock_reads", rep.get("executed_probes")))
    return statistics.median(counts)


def run(a):
    t0 = time.time()
    work = tempfile.mkdtemp(prefix="quanta-ablation-")
    inputs = real_programs.make_inputs(work, True)
    results, mismatches = {}, []
    plain = {}
    for p in a.programs:
        ins, out = instructions(work, inputs, p, build(a, p, "none", a.plain_dir, ""))
        plain[p] = {"instructions": ins, "output": out}
    for rule in a.rules:
        out_dir = os.path.join(a.bin_dir, rule if a.mode == "clock" else f"{rule}-{a.mode}")
        results[rule] = {"flags": RULES[rule], "programs": {}}
        for p in a.programs:
            ins, out = instructions(work, inputs, p, build(a, p, a.mode, out_dir, RULES[rule]))
            reads = 0 if a.instructions_only else clock_reads(
                work, inputs, p, build(a, p, f"{a.mode}-count", out_dir, RULES[rule]))
            if out != plain[p]["output"]:
                mismatches.append(f"{p} with {rule} off")
            results[rule]["programs"][p] = {
                "instructions": ins, "clock_reads": reads,
                "instruction_overhead_pct": 100.0 * (ins - plain[p]["instructions"]) / plain[p]["instructions"]}
            print(f"pass_rule_ablation: {rule:22s} {p:9s} instructions {ins:>12,} clock reads {reads:>10,}",
                  file=sys.stderr)
    base = results["baseline"]["programs"]
    for rule, r in results.items():
        for p, m in r["programs"].items():
            m["instructions_vs_baseline_pct"] = 100.0 * (m["instructions"] - base[p]["instructions"]) / base[p]["instructions"]
            m["clock_reads_vs_baseline_pct"] = (100.0 * (m["clock_reads"] - base[p]["clock_reads"]) / base[p]["clock_reads"]
                                                if base[p]["clock_reads"] else None)
    report = {"config": {"programs": a.programs, "rules": a.rules, "mode": a.mode,
                         "instructions_only": a.instructions_only,
                         "input": "bench/real_programs.py --quick inputs",
                         "seconds": round(time.time() - t0, 1)},
              "plain_instructions": {p: v["instructions"] for p, v in plain.items()},
              "rules_off": results, "output_mismatches": mismatches}
    return report


def table(report):
    progs = report["config"]["programs"]
    lines = ["| rule switched off | " + " | ".join(progs) + " |", "|---" * (len(progs) + 1) + "|"]
    for rule, r in report["rules_off"].items():
        cells = []
        for p in progs:
            m = r["programs"][p]
            if report["config"].get("instructions_only"):
                cells.append(f"{m['instruction_overhead_pct']:+.2f}% instr"
                             + ("" if rule == "baseline" else f" ({m['instructions_vs_baseline_pct']:+.2f}%)"))
            elif rule == "baseline":
                cells.append(f"{m['instruction_overhead_pct']:+.1f}% instr, {m['clock_reads']:,} reads")
            else:
                reads = m["clock_reads_vs_baseline_pct"]
                cells.append(f"{m['instructions_vs_baseline_pct']:+.1f}% / "
                             + ("–" if reads is None else f"{reads:+.0f}%"))
        lines.append(f"| {'none (the pass as it is)' if rule == 'baseline' else rule} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv):
    try:
        a = parse_args(argv)
        if a.table:
            with open(a.table) as f:
                print(table(json.load(f)))
            return 0
        report = run(a)
    except UsageError as e:
        print(f"pass_rule_ablation.py: {e}", file=sys.stderr)
        return 2
    except (RuntimeError, OSError) as e:
        print(f"pass_rule_ablation.py: {e}", file=sys.stderr)
        return 1
    real_programs.write_report(report, a.out)
    if report["output_mismatches"]:
        print("pass_rule_ablation.py: output differs from the plain build's: " + ", ".join(report["output_mismatches"]),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
