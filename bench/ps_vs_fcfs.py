#!/usr/bin/env python3
"""PS against FCFS in real time on this machine, as a benchmark (the test of the same
claim runs on the simulator: tests/unit/sim/ps_vs_fcfs_test.cc).

Runs `quanta run --local ps,fcfs` on the same arrivals for extreme-bimodal (0.5 us / 500 us,
2 us quantum) and the same workload scaled 10x in time (5 us / 5 ms, 20 us quantum: the
policy effect grows 10x while a host stall's stays the same) and prints one JSON object:
per workload and policy, the short class's slowdown p50, p99 and p99.9, its share slowed
down more than 10x, and the run's warnings, plus the p99.9 ratio fcfs / ps.

  bench/ps_vs_fcfs.py [--quanta build/bin/quanta] [--duration-s 5] [--load 0.5] [--seed 5]

On a 2-CPU cloud VM the p99.9 rows mostly show the host's vCPU stalls (see the README):
read them beside the warnings, and compare medians of several runs.
"""
import argparse
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
WORKLOADS = [("extreme-bimodal", 2.0), ("bimodal:99.5:5:5000", 20.0)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quanta", default=str(ROOT / "build" / "bin" / "quanta"))
    parser.add_argument("--duration-s", type=float, default=5.0)
    parser.add_argument("--load", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    if args.duration_s <= 0 or not 0 < args.load < 10:
        parser.error("--duration-s must be above 0 and --load between 0 and 10")

    out = {"config": {"duration_s": args.duration_s, "load": args.load, "seed": args.seed}, "workloads": {}}
    for workload, quantum_us in WORKLOADS:
        proc = subprocess.run([args.quanta, "run", "--workload", workload, "--quantum-us", str(quantum_us),
                               "--load", str(args.load), "--duration-s", str(args.duration_s), "--seed",
                               str(args.seed), "--local", "ps,fcfs", "--format", "json"],
                              capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            sys.exit(f"ps_vs_fcfs: quanta run failed ({proc.returncode}): {proc.stderr.strip()}")
        entry = {"quantum_us": quantum_us}
        for run in json.loads(proc.stdout)["runs"]:
            short = next(c for c in run["classes"].values() if c["label"] == "short")
            entry[run["config"]["local"]] = {
                "short_slowdown": {k: short["slowdown"][k] for k in ("p50", "p99", "p99.9")},
                "short_share_slowdown_over_10": short["share_slowdown_over_10"],
                "warnings": [w["code"] for w in run["warnings"]],
            }
        entry["fcfs_over_ps_p999"] = (entry["fcfs"]["short_slowdown"]["p99.9"] /
                                      max(entry["ps"]["short_slowdown"]["p99.9"], 1e-9))
        out["workloads"][workload] = entry
    json.dump(out, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
