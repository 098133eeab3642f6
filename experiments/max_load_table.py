#!/usr/bin/python3
"""The largest load each configuration sustains under a latency objective on this machine, raw
and over the requests no host stall touched, each beside the simulator's figure, from one
script run. A benchmark, not a test: it spins both CPUs for several minutes; run it on an
otherwise idle machine.

For each row: `quanta run --max-load OBJ` (raw statistics) and `quanta run --max-load
untouched:OBJ` (the untouched ones, docs/json-output.md), then `quanta sim --max-load OBJ`
with this machine's calibration (measured first with `quanta calibrate`; the model has no
host stalls), and the same simulation with this machine's stalls replayed (`--stalls`, the
trace recorded first with `quanta-bench-stalls --trace`), raw and untouched.

  /usr/bin/python3 experiments/max_load_table.py [--objective 'short:p99.9-slowdown<=50']
      [--workload extreme-bimodal] [--duration-s 2] [--steps 7] [--calibration FILE]
      [--stalls FILE]

Writes experiments/out/max_load_<workload>.json (every search, every point) and .md (the
table) and prints the table.
"""
import argparse
import json
import subprocess
import sys
from pathlib import Path

import qsim

# (row label, `quanta run` options, `quanta sim` options or None where the simulator has no
# model of it). The simulator models each mechanism with its own costs from the calibration
# (docs/sim.md, "Preemption mechanisms"); it replays stalls with clock probes only.
ROWS = [
    ("ps, clock, q = 0.5 µs", ["--local", "ps", "--preempt", "clock", "--quantum-us", "0.5"],
     ["--local", "ps", "--quantum-us", "0.5"]),
    ("ps, clock, q = 2 µs", ["--local", "ps", "--preempt", "clock", "--quantum-us", "2"],
     ["--local", "ps", "--quantum-us", "2"]),
    ("ps, clock, q = 5 µs", ["--local", "ps", "--preempt", "clock", "--quantum-us", "5"],
     ["--local", "ps", "--quantum-us", "5"]),
    ("ps, flag, q = 2 µs", ["--local", "ps", "--preempt", "flag", "--quantum-us", "2"],
     ["--local", "ps", "--preempt", "flag", "--quantum-us", "2"]),
    ("fcfs (run to completion)", ["--local", "fcfs", "--preempt", "none"], ["--local", "fcfs", "--preempt", "none"]),
    ("linux kernel threads, SCHED_OTHER", ["--runtime", "linux", "--linux-policy", "other"], None),
]


def search(command, objective, args, extra):
    cmd = [qsim.BIN, command, "--format", "json", "--workload", args.workload, "--workers", "1", "--max-load",
           objective, "--max-load-steps", str(args.steps), "--seed", str(args.seed)]
    cmd += ["--duration-s", str(args.duration_s if command == "run" else args.sim_duration_s)]
    cmd += extra
    print(" ".join(["quanta"] + cmd[1:]), file=sys.stderr, flush=True)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode not in (0, 3):  # 3: --strict is not used, but a warning run is still a run
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr else f"exit {proc.returncode}",
                "command": " ".join(["quanta"] + cmd[1:])}
    out = json.loads(proc.stdout)
    out["command"] = " ".join(["quanta"] + cmd[1:])
    run = out.get("run") or {}
    out.pop("run", None)  # the full run JSON at the answer: large, and in the points already
    out["touched_share_at_max"] = (run.get("requests", {}).get("stall_touched", 0) /
                                   max(1, run.get("requests", {}).get("measured", 0))) if run else None
    return out


def cell(result):
    if result is None:
        return "—"
    if "error" in result:
        return "error: " + result["error"]
    return f"{result['max_load']:.3f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--objective", default="short:p99.9-slowdown<=50", help="the --max-load objective (raw form)")
    ap.add_argument("--workload", default="extreme-bimodal", help="workload name or spec")
    ap.add_argument("--duration-s", type=float, default=2.0, help="length of each real run (s)")
    ap.add_argument("--sim-duration-s", type=float, default=20.0, help="simulated seconds per simulation")
    ap.add_argument("--steps", type=int, default=7, help="bisection steps per search")
    ap.add_argument("--seed", type=int, default=1, help="arrival schedule seed")
    ap.add_argument("--calibration", help="quanta calibrate JSON (default: measure one now)")
    ap.add_argument("--stalls", help="quanta-bench-stalls --trace JSON (default: record 10 s now)")
    args = ap.parse_args()
    qsim.OUT.mkdir(parents=True, exist_ok=True)

    calibration = args.calibration
    if calibration is None:
        calibration = str(qsim.OUT / "calibration.json")
        subprocess.run([qsim.BIN, "calibrate", "--output", calibration], check=True, stdout=subprocess.DEVNULL)
    stalls = args.stalls
    if stalls is None:
        stalls = str(qsim.OUT / "stalls.json")
        bench = Path(qsim.BIN).parent / "quanta-bench-stalls"
        with open(stalls, "w") as f:
            subprocess.run([str(bench), "10", "--trace"], check=True, stdout=f)

    untouched = "untouched:" + args.objective
    results = []
    for label, run_extra, sim_extra in ROWS:
        row = {"label": label,
               "run_raw": search("run", args.objective, args, run_extra),
               "run_untouched": search("run", untouched, args, run_extra)}
        if sim_extra is not None:
            sim_extra = sim_extra + ["--calibration", calibration]
            row["sim"] = search("sim", args.objective, args, sim_extra)
            if "flag" not in sim_extra:  # stalls are replayed with clock probes (or none) only
                row["sim_stalls_raw"] = search("sim", args.objective, args, sim_extra + ["--stalls", stalls])
                row["sim_stalls_untouched"] = search("sim", untouched, args, sim_extra + ["--stalls", stalls])
        results.append(row)

    stem = "max_load_" + args.workload.replace(":", "_")
    (qsim.OUT / f"{stem}.json").write_text(json.dumps(
        {"objective": args.objective, "calibration": json.loads(Path(calibration).read_text()),
         "stalls_trace": stalls, "rows": results}, indent=2) + "\n")
    lines = [f"Max load meeting `{args.objective}`, {args.workload}, 1 worker, {args.steps} bisection steps "
             f"(resolution {1 / 2 ** args.steps:.3f}); real runs {args.duration_s} s per point, simulations "
             f"{args.sim_duration_s} s with `--calibration` from this machine; the stall trace `{stalls}`.",
             "",
             "| configuration | run, raw | run, untouched (touched at that load) | sim (no stalls) "
             "| sim with this machine's stalls, raw | ... untouched |",
             "|---|---|---|---|---|---|"]
    for r in results:
        touched = r["run_untouched"].get("touched_share_at_max") if "error" not in r["run_untouched"] else None
        touched_text = f" ({100 * touched:.1f}%)" if touched is not None else ""
        lines.append(f"| {r['label']} | {cell(r['run_raw'])} | {cell(r['run_untouched'])}{touched_text} | "
                     f"{cell(r.get('sim'))} | {cell(r.get('sim_stalls_raw'))} | {cell(r.get('sim_stalls_untouched'))} |")
    text = "\n".join(lines) + "\n"
    (qsim.OUT / f"{stem}.md").write_text(text)
    print(text)
    print(f"wrote {qsim.OUT / stem}.json and .md", file=sys.stderr)


if __name__ == "__main__":
    main()
