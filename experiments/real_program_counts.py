#!/usr/bin/env python3
"""Clock reads, ticks and instructions of one set of clock builds of the real programs.

For comparing two versions of the pass on counts, which a busy machine does not move
(docs/pass-results.md, "Post-call ticks"). The builds are scripts/realbench/build.sh's,
made with QUANTA_REALBENCH_OUT_DIR=BIN_DIR for each version: PROGRAM-clock-count and
PROGRAM-clock in BIN_DIR, PROGRAM-none in --plain-dir. On the --quick input of
bench/real_programs.py, per program:

- the counting build's executed_clock_reads, executed_ticks and tick_clock_reads (as
  bench/real/task_main.c reports them), median of three native runs; a program with no
  ticks reports only executed_probes, given as its clock reads;
- with callgrind (not --no-callgrind): instructions of the whole process, clock build and
  plain, the overhead, and whether the clock build's output equals plain's.

Exits 1 if an output differs, 2 on a bad argument or a missing build (naming it).

usage: experiments/real_program_counts.py --bin-dir DIR [--plain-dir DIR]
           [--programs sqlite3,leveldb,lua,fairymax,zlib,lz4] [--no-callgrind] [--out FILE]
"""
import argparse
import json
import os
import statistics
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "experiments"))
import real_programs  # noqa: E402  (inputs, program list)
import pass_rule_ablation as ablation  # noqa: E402  (run_once, instructions)

DEFAULT_PROGRAMS = "sqlite3,leveldb,lua,fairymax,zlib,lz4"
COUNTS = ("executed_clock_reads", "executed_ticks", "tick_clock_reads", "executed_probes")


class UsageError(Exception):
    pass


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin-dir", required=True, help="where PROGRAM-clock-count and PROGRAM-clock are")
    ap.add_argument("--plain-dir", default=os.path.join(ROOT, "third_party_src", "realbench", "out"),
                    help="where PROGRAM-none is")
    ap.add_argument("--programs", default=DEFAULT_PROGRAMS,
                    help=f"comma-separated subset of: {' '.join(real_programs.PROGRAMS)}")
    ap.add_argument("--no-callgrind", action="store_true", help="counts only, no instructions")
    ap.add_argument("--out", help="write the JSON here instead of stdout")
    a = ap.parse_args(argv)
    a.programs = [p for p in a.programs.split(",") if p]
    bad = [p for p in a.programs if p not in real_programs.PROGRAMS]
    if bad or not a.programs:
        raise UsageError(f"--programs: unknown program '{','.join(bad)}' (expected some of "
                         f"{','.join(real_programs.PROGRAMS)})")
    needed = [(a.bin_dir, p, "clock-count") for p in a.programs]
    if not a.no_callgrind:
        needed += [(a.bin_dir, p, "clock") for p in a.programs] + [(a.plain_dir, p, "none") for p in a.programs]
    for d, p, mode in needed:
        if not os.access(os.path.join(d, f"{p}-{mode}"), os.X_OK):
            opt = "--plain-dir" if mode == "none" else "--bin-dir"
            raise UsageError(f"{opt}: {d}/{p}-{mode} is missing (scripts/realbench/build.sh {p} {mode} "
                             f"with QUANTA_REALBENCH_OUT_DIR={d})")
    return a


def counts(work, inputs, program, binary):
    """The median of three native runs of a counting build, per count."""
    runs = []
    for _ in range(3):
        out = os.path.join(work, "counts.json")
        ablation.run_once(work, inputs, program, binary, env=dict(os.environ, QUANTA_REALBENCH_OUT=out))
        with open(out) as f:
            runs.append(json.load(f))
    med = {k: statistics.median(r[k] for r in runs) for k in COUNTS if all(k in r for r in runs)}
    med.setdefault("executed_clock_reads", med.get("executed_probes"))  # no ticks in the program
    return med


def main(argv):
    try:
        a = parse_args(argv)
    except UsageError as e:
        print(f"real_program_counts.py: {e}", file=sys.stderr)
        return 2
    work = tempfile.mkdtemp(prefix="quanta-counts-")
    inputs = real_programs.make_inputs(work, True)
    report, mismatches = {}, []
    try:
        for p in a.programs:
            r = {"counts": counts(work, inputs, p, os.path.join(a.bin_dir, f"{p}-clock-count"))}
            if not a.no_callgrind:
                plain, plain_out = ablation.instructions(work, inputs, p, os.path.join(a.plain_dir, f"{p}-none"))
                clock, clock_out = ablation.instructions(work, inputs, p, os.path.join(a.bin_dir, f"{p}-clock"))
                r.update(plain_instructions=plain, clock_instructions=clock,
                         overhead_pct=round(100.0 * (clock - plain) / plain, 1),
                         output_matches_plain=clock_out == plain_out)
                if clock_out != plain_out:
                    mismatches.append(p)
            report[p] = r
    except RuntimeError as e:  # a program crashed
        print(f"real_program_counts.py: {e}", file=sys.stderr)
        return 1
    real_programs.write_report(report, a.out)
    if mismatches:
        print(f"real_program_counts.py: output differs from plain's: {','.join(mismatches)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
