#!/usr/bin/python3
"""Each preemption mechanism on the real runtime and in the simulator, side by side: for
every --preempt value, `quanta run` and `quanta sim --calibration` with the same options
(workload, load, quantum, policies, duration, seed: the same arrivals), and the figures of
both as one JSON document on stdout (also written to experiments/out/mechanisms_run_vs_sim.json).

A benchmark, not a test: each real run spins both CPUs for --duration-s. Take its figures
on a quiet machine (no other builds or runs), as for sim_vs_run.py.

  /usr/bin/python3 experiments/mechanisms_run_vs_sim.py [--duration-s 5] [--calibration FILE]
      [--workload extreme-bimodal] [--load 0.3] [--quantum-us 5] [--preempt clock,flag,signal,hybrid]

Without --calibration it runs `quanta calibrate` (a few seconds, both CPUs) and writes
experiments/out/calibration.json: the simulator's costs for each mechanism come from it
(docs/sim.md, "Preemption mechanisms").
"""
import argparse
import json
import subprocess
import sys
from pathlib import Path

import qsim

STATS = ["p50", "p99", "p99.9"]


def summary(report):
    """The figures compared: per class sojourn percentiles and mean slowdown (every request,
    and for a real run also the requests no host stall touched), and the mechanism's counters."""
    def classes(section):
        return {entry["label"]: {"count": entry["count"],
                                 **{f"sojourn_{s}_us": entry["sojourn_us"][s] for s in STATS},
                                 "slowdown_mean": entry["slowdown"]["mean"]}
                for entry in section.values()}

    rt = report["runtime"]
    out = {"classes": classes(report["classes"]),
           "completed": report["requests"]["completed"],
           "quanta": rt["quanta"],
           "monitor_actions": rt["monitor_actions"],
           "signals": rt["signals"],
           "late_dispatches": rt["late_dispatches"]}
    if "untouched" in report:
        out["untouched_classes"] = classes(report["untouched"]["classes"])
    if report.get("warnings"):
        out["warnings"] = report["warnings"]
    return out


def quanta_json(command, args):
    cmd = [qsim.BIN, command, "--format", "json", *args]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode not in (0, 3):  # 3: a run with warnings (only with --strict)
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr.strip()}")
    return json.loads(proc.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration-s", type=float, default=5.0)
    parser.add_argument("--calibration", type=Path)
    parser.add_argument("--workload", default="extreme-bimodal")
    parser.add_argument("--load", type=float, default=0.3)
    parser.add_argument("--quantum-us", type=float, default=5.0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--local", default="ps")
    parser.add_argument("--dispatch", default="jsq-msq")
    parser.add_argument("--preempt", default="clock,flag,signal,hybrid", help="comma list of mechanisms")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    calibration = args.calibration
    if calibration is None:
        calibration = qsim.OUT / "calibration.json"
        qsim.OUT.mkdir(parents=True, exist_ok=True)
        print(f"quanta calibrate --output {calibration}", file=sys.stderr, flush=True)
        subprocess.run([qsim.BIN, "calibrate", "--output", str(calibration)], check=True, stdout=subprocess.DEVNULL)

    common = ["--workload", args.workload, "--load", str(args.load), "--quantum-us", str(args.quantum_us),
              "--workers", str(args.workers), "--local", args.local, "--dispatch", args.dispatch,
              "--duration-s", str(args.duration_s), "--seed", str(args.seed)]
    rows = []
    for mechanism in args.preempt.split(","):
        options = common + ["--preempt", mechanism]
        print(f"quanta run/sim {' '.join(options)}", file=sys.stderr, flush=True)
        real = quanta_json("run", options)
        simulated = quanta_json("sim", options + ["--calibration", str(calibration)])
        rows.append({"preempt": mechanism, "run": summary(real), "sim": summary(simulated),
                     "sim_overheads": simulated["sim"]["overheads"]})

    document = {"options": common, "calibration": json.loads(Path(calibration).read_text()),
                "calibration_file": str(calibration), "mechanisms": rows,
                "note": "real runs on this machine; take the figures on a quiet machine"}
    text = json.dumps(document, indent=2)
    qsim.OUT.mkdir(parents=True, exist_ok=True)
    (qsim.OUT / "mechanisms_run_vs_sim.json").write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
