#!/usr/bin/python3
"""Which requests did a host stall touch? The rule is chosen by measuring it on the simulator:
replay this machine's stalls (a `quanta-bench-stalls --trace` recording) in a simulation, mark
the touched requests with each candidate rule, and compare the statistics of the untouched
requests with the same simulation (same seed, same arrivals) without stalls. A good rule gives
the stall-free figures back; its error is the bias of the untouched statistics.

Candidates (`quanta sim --stall-window`), each over the stalls of the CPUs that could delay
the request (the dispatcher's and its worker's):
  drain        the stall, or the drain as long again after it, overlaps the request's life
               (the runtime's rule)
  lifetime     the stall overlaps the request's life
  busy-period  the stall falls between the start of the busy period the request was served
               in and its finish

  /usr/bin/python3 experiments/stall_rule.py --trace STALLS.json [--duration-s 10] [--name NAME]

Recordings of this machine are in experiments/results/stalls_{idle,compiling}.json, and the
tables they give (60 s per point) in experiments/results/stall_rule_*.md; docs/runtime.md,
"Host stalls", sums them up.

Output: experiments/out/stall_rule_<name>.{csv,md}. One worker, extreme-bimodal, the short
class's slowdown.
"""
import argparse
import json
from pathlib import Path

import qsim

LOADS = [0.2, 0.4, 0.6, 0.8, 0.9]
CONFIGS = [("ps", 0.5), ("ps", 2.0), ("ps", 5.0), ("fcfs", 2.0)]
STATS = ["p99", "p99.9"]
RULES = ["drain", "lifetime", "busy-period"]


def short(entry):
    return next(v for v in entry["classes"].values() if v["label"] == "short")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trace", required=True, help="quanta-bench-stalls --trace JSON")
    parser.add_argument("--name", default=None, help="suffix of the output files (default: the trace's stem)")
    parser.add_argument("--duration-s", type=float, default=10.0, help="simulated seconds per point")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threshold-us", type=float, default=20.0,
                        help="the stall threshold (--stall-threshold-us): shorter stalls go unseen")
    args = parser.parse_args()
    name = args.name or Path(args.trace).stem
    trace = json.loads(Path(args.trace).read_text())

    points = []
    for local, quantum in CONFIGS:
        for load in LOADS:
            base = dict(workload="extreme-bimodal", workers=1, local=local, quantum_us=quantum, load=load,
                        duration_s=args.duration_s, seed=args.seed, stall_threshold_us=args.threshold_us)
            points.append((local, quantum, load, base))
    option_sets = []
    for _, _, _, base in points:
        option_sets.append(base)
        option_sets += [dict(base, stalls=args.trace, stall_window=rule) for rule in RULES]
    results = qsim.sim_many(option_sets)

    rows = []
    per_point = 1 + len(RULES)
    for i, (local, quantum, load, _) in enumerate(points):
        clean, *stalled = results[per_point * i:per_point * (i + 1)]
        row = {"local": local, "quantum_us": quantum, "load": load}
        for stat in STATS:
            row[f"no_stalls_{stat}"] = short(clean)["slowdown"][stat]
            row[f"all_{stat}"] = short(stalled[0])["slowdown"][stat]  # the same run whatever the rule
        for rule, run in zip(RULES, stalled):
            entry = short(run["untouched"])
            row[f"{rule}_touched_share"] = 1 - entry["count"] / max(1, short(run)["count"])
            for stat in STATS:
                row[f"{rule}_{stat}"] = entry["slowdown"][stat]
        rows.append(row)
    qsim.write_csv(f"stall_rule_{name}.csv", rows)

    gaps = [sum(1 for _, length in c["trace_us"] if length > args.threshold_us) / trace["seconds"]
            for c in trace["cpus"]]
    lines = [f"# Which requests a stall touched: {name} trace", "",
             f"Trace `{args.trace}`: {trace['seconds']} s, stalls over the {args.threshold_us:g} µs threshold "
             "per second per CPU: "
             + ", ".join(f"{g:.0f}" for g in gaps) + ".",
             f"Simulated {args.duration_s} s per point (seed {args.seed}), one worker, extreme-bimodal, "
             "short-class slowdown. Each cell is a figure with stalls divided by the same figure without "
             "stalls (same arrivals): 1.00 means the untouched requests give back the stall-free value; "
             "in brackets, the share of short requests the rule marks touched.", "",
             "| policy | q µs | load | no stalls p99 / p99.9 | all requests p99 / p99.9 | "
             + " | ".join(f"{rule} p99 / p99.9 (touched)" for rule in RULES) + " |",
             "|---|---|---|---|---|" + "---|" * len(RULES)]
    for r in rows:
        def ratio(label, stat):
            return r[f"{label}_{stat}"] / r[f"no_stalls_{stat}"] if r[f"no_stalls_{stat}"] else float("nan")
        cells = [" / ".join(f"{ratio(rule, s):.2f}" for s in STATS) + f" ({100 * r[rule + '_touched_share']:.1f}%)"
                 for rule in RULES]
        lines.append(f"| {r['local']} | {r['quantum_us']:g} | {r['load']} | {r['no_stalls_p99']:.1f} / "
                     f"{r['no_stalls_p99.9']:.1f} | {ratio('all', 'p99'):.2f} / {ratio('all', 'p99.9'):.2f} | "
                     + " | ".join(cells) + " |")
    qsim.OUT.mkdir(parents=True, exist_ok=True)
    md = qsim.OUT / f"stall_rule_{name}.md"
    md.write_text("\n".join(lines) + "\n")
    print(f"wrote {md}")


if __name__ == "__main__":
    main()
