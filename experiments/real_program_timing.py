#!/usr/bin/env python3
"""Yield timing of two or more sets of clock builds of the real programs, side by side.

For a change to the runtime's gap planning (src/preempt/clock_gap.h) or to the pass that
moves yield timing by less than the scatter between runs of bench/real_programs.py. The
builds are scripts/realbench/build.sh's, made with QUANTA_REALBENCH_OUT_DIR=DIR for each
version: PROGRAM-clock in each DIR. Each run starts the program's main in a task at the
quantum (bench/real/task_main.c), on the full input of bench/real_programs.py; the runs
of one program alternate between the sets, --runs rounds. Per program and set: the median
over runs of the clean quanta's mean absolute error (cycles) and of their p99 interval over
the quantum (as bench/real_programs.py reports them), every run's MAE, and per set the
mean of the medians over the programs.

Exits 1 if a program fails or an output differs between the sets, 2 on a bad argument or a
missing build (naming it).

usage: experiments/real_program_timing.py --bin-dirs A,B[,...] [--programs xz,zlib,...]
           [--runs 7] [--quantum-us 2] [--out FILE]
"""
import argparse
import hashlib
import json
import os
import statistics
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "experiments"))
import real_programs  # noqa: E402  (inputs, program list, output normalization)
import pass_rule_ablation as ablation  # noqa: E402  (run_once)

# db_bench runs its work on threads of its own, outside the task: no timing figures.
TIMED = [p for p in real_programs.PROGRAMS if p != "leveldb"]


UsageError = real_programs.UsageError  # exit 2, naming the option


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin-dirs", required=True, help="comma-separated directories with PROGRAM-clock")
    ap.add_argument("--programs", default=",".join(TIMED), help=f"comma-separated subset of: {' '.join(TIMED)}")
    ap.add_argument("--runs", type=int, default=7, help="rounds, each one run per set (default 7)")
    ap.add_argument("--quantum-us", type=float, default=2.0, help="quantum (default 2)")
    ap.add_argument("--out", help="write the JSON here instead of stdout")
    a = ap.parse_args(argv)
    a.bin_dirs = [os.path.abspath(d) for d in a.bin_dirs.split(",") if d]
    if len(a.bin_dirs) < 2:
        raise UsageError("--bin-dirs: give at least two directories, comma-separated")
    a.programs = [p for p in a.programs.split(",") if p]
    bad = [p for p in a.programs if p not in TIMED]
    if bad or not a.programs:
        raise UsageError(f"--programs: unknown or untimed program '{','.join(bad)}' (expected some of "
                         f"{','.join(TIMED)})")
    if not 1 <= a.runs <= 100:
        raise UsageError(f"--runs: {a.runs} is outside 1..100")
    if not 0.1 <= a.quantum_us <= 1000:
        raise UsageError(f"--quantum-us: {a.quantum_us} is outside 0.1..1000")
    for d in a.bin_dirs:
        for p in a.programs:
            if not os.access(os.path.join(d, f"{p}-clock"), os.X_OK):
                raise UsageError(f"--bin-dirs: {d}/{p}-clock is missing (scripts/realbench/build.sh {p} clock "
                                 f"with QUANTA_REALBENCH_OUT_DIR={d})")
    return a


def timed_run(work, inputs, program, binary, quantum_us):
    """(the clean quanta's statistics of one run in a task, the normalized output's digest)."""
    out = os.path.join(work, "timing.json")
    if os.path.exists(out):
        os.unlink(out)
    env = dict(os.environ, QUANTA_REALBENCH_OUT=out, QUANTA_REALBENCH_QUANTUM_US=str(quantum_us))
    r = ablation.run_once(work, inputs, program, binary, ["taskset", "-c", str(real_programs.last_cpu())], env)
    with open(out) as f:
        t = json.load(f)["timing"]
    c = t["clean"]
    stats = {"mae_cycles": c["mae_cycles"], "p99_over_quantum": c["p99_interval_cycles"] / t["quantum_cycles"],
             "quanta": c["quanta"]}
    return stats, hashlib.sha256(real_programs.normalize(program, r.stdout)).hexdigest()


def main(argv):
    try:
        a = parse_args(argv)
    except UsageError as e:
        print(f"real_program_timing.py: {e}", file=sys.stderr)
        return 2
    work = tempfile.mkdtemp(prefix="quanta-timing-")
    inputs = real_programs.make_inputs(work, False)
    report = {"config": {"bin_dirs": a.bin_dirs, "runs": a.runs, "quantum_us": a.quantum_us}, "programs": {}}
    try:
        for p in a.programs:
            runs = {d: [] for d in a.bin_dirs}
            digests = set()
            for _ in range(a.runs):
                for d in a.bin_dirs:
                    stats, digest = timed_run(work, inputs, p, os.path.join(d, f"{p}-clock"), a.quantum_us)
                    runs[d].append(stats)
                    digests.add(digest)
            if len(digests) != 1:
                print(f"real_program_timing.py: {p}: the sets' outputs differ", file=sys.stderr)
                return 1
            report["programs"][p] = {d: {"mae_cycles": statistics.median(r["mae_cycles"] for r in rs),
                                         "p99_over_quantum": round(statistics.median(r["p99_over_quantum"] for r in rs), 3),
                                         "mae_cycles_of_runs": [round(r["mae_cycles"]) for r in rs],
                                         "quanta": statistics.median(r["quanta"] for r in rs)}
                                     for d, rs in runs.items()}
            line = "  ".join(f"{os.path.basename(d)} {v['mae_cycles']:.0f} ({v['p99_over_quantum']:.2f})"
                             for d, v in report["programs"][p].items())
            print(f"{p}: MAE (p99/q) {line}", file=sys.stderr, flush=True)
    except RuntimeError as e:  # a program crashed
        print(f"real_program_timing.py: {e}", file=sys.stderr)
        return 1
    report["mean_mae_cycles"] = {d: round(statistics.mean(report["programs"][p][d]["mae_cycles"] for p in a.programs))
                                 for d in a.bin_dirs}
    real_programs.write_report(report, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
