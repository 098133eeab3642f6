#!/usr/bin/python3
"""The largest load each preemption mechanism sustains under a latency objective, on this
machine, from one script run: `quanta run --max-load` for quanta's runtime with clock,
flag, signal, hybrid and no preemption, and for the Linux kernel-thread baseline
(`--runtime linux`), all on the same workload and quantum. A benchmark, not a test: it spins
both CPUs for a few minutes; run it on an otherwise idle machine.

  /usr/bin/python3 experiments/max_load_table.py [--objective 'short:p99.9-slowdown<=50']
      [--workload extreme-bimodal] [--quantum-us 2] [--duration-s 2] [--steps 6]

Writes experiments/out/max_load_<workload>.json (every search, every point) and .md (the
table) and prints the table.
"""
import argparse
import json
import subprocess
import sys

import qsim

# (row label, extra `quanta run` options). The quantum is added to the quanta rows.
ROWS = [
    ("quanta clock", ["--preempt", "clock"]),
    ("quanta flag", ["--preempt", "flag"]),
    ("quanta signal", ["--preempt", "signal"]),
    ("quanta signal, 50 us quantum", ["--preempt", "signal", "--quantum-us", "50"]),
    ("quanta hybrid", ["--preempt", "hybrid"]),
    ("quanta none (run to completion)", ["--preempt", "none"]),
    ("linux kernel threads, SCHED_OTHER", ["--runtime", "linux", "--linux-policy", "other"]),
    ("linux kernel threads, SCHED_RR", ["--runtime", "linux", "--linux-policy", "rr"]),
]


def search(args, label, extra):
    cmd = [qsim.BIN, "run", "--format", "json", "--workload", args.workload, "--max-load", args.objective,
           "--max-load-steps", str(args.steps), "--duration-s", str(args.duration_s), "--seed", str(args.seed)]
    if "--runtime" not in extra and "--quantum-us" not in extra:
        cmd += ["--quantum-us", str(args.quantum_us)]
    cmd += extra
    print(f"{label}: {' '.join(cmd[1:])}", file=sys.stderr, flush=True)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        # SCHED_RR needs privileges some machines do not grant: say so in the table.
        return {"label": label, "error": proc.stderr.strip().splitlines()[-1] if proc.stderr else "failed"}
    out = json.loads(proc.stdout)
    out["label"] = label
    out["command"] = " ".join(["quanta"] + cmd[1:])
    return out


def table(args, results):
    lines = [f"max load with {args.objective}, {args.workload}, quantum {args.quantum_us} us, "
             f"{args.duration_s} s per point, {args.steps} bisection steps",
             "",
             "| configuration | max load | max rate (rps) | value at max load | resolution |",
             "|---|---|---|---|---|"]
    for r in results:
        if "error" in r:
            lines.append(f"| {r['label']} | error: {r['error']} | | | |")
            continue
        met = [p for p in r["points"] if p["met"]]
        if met:
            best = max(met, key=lambda p: p["load"])
            value = f"{best['value']:.3g}"
        else:
            low = min(r["points"], key=lambda p: p["load"])
            value = f"not met: {low['value']:.3g} at load {low['load']:.3f}"
        lines.append(f"| {r['label']} | {r['max_load']:.3f} | {r['max_rate_rps']:.4g} | {value} | "
                     f"{r['resolution']:.3f} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--objective", default="short:p99.9-slowdown<=50",
                    help="the --max-load objective (default: Concord's SLO)")
    ap.add_argument("--workload", default="extreme-bimodal", help="workload name or spec")
    ap.add_argument("--quantum-us", type=float, default=2.0, help="quantum of the quanta rows (µs)")
    ap.add_argument("--duration-s", type=float, default=2.0, help="length of each run (s)")
    ap.add_argument("--steps", type=int, default=6, help="bisection steps per search")
    ap.add_argument("--seed", type=int, default=1, help="arrival schedule seed")
    args = ap.parse_args()

    results = [search(args, label, extra) for label, extra in ROWS]
    qsim.OUT.mkdir(parents=True, exist_ok=True)
    stem = "max_load_" + args.workload.replace(":", "_")
    (qsim.OUT / f"{stem}.json").write_text(json.dumps({"objective": args.objective, "searches": results}, indent=2))
    text = table(args, results)
    (qsim.OUT / f"{stem}.md").write_text(text)
    print(text)
    print(f"wrote {qsim.OUT / stem}.json and .md", file=sys.stderr)


if __name__ == "__main__":
    main()
