#!/usr/bin/python3
"""The simulator against the real runtime on this machine: `quanta run` (every request, and the
requests no host stall touched) and `quanta sim --calibration` side by side, 1 worker (the
2-CPU configuration: one CPU dispatches), PS with a 2 us quantum, JSQ-MSQ, on extreme-bimodal and exp1 at loads 0.3-0.8. A benchmark, not a
test: it spins both CPUs for about a minute per workload.

  /usr/bin/python3 experiments/sim_vs_run.py [--duration-s 5] [--calibration FILE]

Without --calibration it measures one with build/bin/quanta-bench-micro (if present) and
writes it to experiments/out/calibration.json. Output: experiments/out/sim_vs_run.csv and
sim_vs_run.md (a Markdown table).
"""
import argparse
import json
import os
import subprocess
from pathlib import Path

import qsim

LOADS = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
WORKLOADS = ["extreme-bimodal", "exp1"]


def measure_calibration(path):
    bench = Path(os.environ.get("QUANTA_BENCH_MICRO", qsim.ROOT / "build" / "bin" / "quanta-bench-micro"))
    cal = {"yield_round_trip_ns": 40.0, "probe_overhead_pct": 0.0, "dispatch_ns_per_request": 0.0,
           "quantum_jitter_ns": 0.0, "request_overhead_ns": 0.0, "source": "assumed (no quanta-bench-micro)"}
    if bench.exists():
        proc = subprocess.run([str(bench), "--benchmark_format=json", "--benchmark_repetitions=3",
                               "--benchmark_report_aggregates_only=true",
                               "--benchmark_filter=^BM_YieldRoundTrip$|BM_DispatcherOnly|BM_DispatchNoop"],
                              capture_output=True, text=True, check=True)
        scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
        median = {b["run_name"]: b for b in json.loads(proc.stdout)["benchmarks"] if b.get("aggregate_name") == "median"}
        noop = next(b for n, b in median.items() if n.startswith("BM_DispatchNoop"))
        ns = lambda name: next(b["real_time"] * scale[b["time_unit"]] for n, b in median.items() if n.startswith(name))
        dispatcher = next(b for n, b in median.items() if n.startswith("BM_DispatcherOnly"))
        cal = {
            "yield_round_trip_ns": ns("BM_YieldRoundTrip"),
            # The spin app runs until its task has used its service time of CPU, probes
            # included, so probes do not lengthen its requests: 0 for this comparison.
            "probe_overhead_pct": 0.0,
            "dispatch_ns_per_request": 1e9 / dispatcher["items_per_second"],
            # Probes every ~10 ns in the spin loop: the quantum ends within a few ns.
            "quantum_jitter_ns": 0.0,
            # One worker running no-op requests as tasks is the bottleneck of BM_DispatchNoop:
            # its time per request is the worker's own cost of a request (admit, task
            # start, switch in and out, finish).
            "request_overhead_ns": 1e9 / noop["items_per_second"],
            "source": f"{bench.name} medians of 3 repetitions",
        }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(cal, indent=2) + "\n")
    print(f"calibration {path}: {cal}")
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration-s", type=float, default=5.0)
    parser.add_argument("--calibration", type=Path)
    args = parser.parse_args()
    cal = args.calibration or measure_calibration(qsim.OUT / "calibration.json")
    common = dict(workers=1, local="ps", dispatch="jsq-msq", quantum_us=2, duration_s=args.duration_s, seed=1)
    rows = []
    for workload in WORKLOADS:
        for load in LOADS:
            print(f"{workload} load {load}...", flush=True)
            real = qsim.quanta("run", workload=workload, load=load, **common)
            sim = qsim.quanta("sim", workload=workload, load=load, calibration=cal, **common)
            untouched = real.get("untouched", {}).get("classes", {})
            for key, entry in real["classes"].items():
                row = {"workload": workload, "load": load, "class": entry["label"], "count": entry["count"],
                       "untouched_count": untouched.get(key, {}).get("count", 0)}
                for stat in ["p50", "p99", "p99.9"]:
                    row[f"run_{stat}_us"] = entry["sojourn_us"][stat]
                    # The requests no host stall touched (docs/json-output.md): the simulator
                    # has no stalls, so this is the like-for-like comparison.
                    row[f"untouched_{stat}_us"] = untouched[key]["sojourn_us"][stat] if key in untouched else float("nan")
                    row[f"sim_{stat}_us"] = sim["classes"][key]["sojourn_us"][stat]
                row["run_late_dispatches"] = real["runtime"]["late_dispatches"]
                rows.append(row)
    qsim.write_csv("sim_vs_run.csv", rows)
    lines = ["| workload | load | class | touched | p50 run / untouched / sim | p99 run / untouched / sim "
             "| p99.9 run / untouched / sim |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        touched = 1 - r["untouched_count"] / r["count"] if r["count"] else 0.0
        cells = [r["workload"], f"{r['load']:.1f}", r["class"], f"{100 * touched:.1f}%"]
        for stat in ["p50", "p99", "p99.9"]:
            cells.append(f"{r[f'run_{stat}_us']:.1f} / {r[f'untouched_{stat}_us']:.1f} / {r[f'sim_{stat}_us']:.1f}")
        lines.append("| " + " | ".join(cells) + " |")
    table = "\n".join(lines) + "\n\nSojourn in us: every request (run), the requests no host stall touched " + \
        "(untouched), the simulator (sim); touched: the share of the class a stall touched. 1 worker, PS, " + \
        f"quantum 2 us, JSQ-MSQ; {args.duration_s:g} s per point; calibration {cal}.\n"
    (qsim.OUT / "sim_vs_run.md").write_text(table)
    print(table)


if __name__ == "__main__":
    main()
