"""LibPreemptible's adaptive quantum against fixed quanta, in the simulator, on a bursty load.

Extreme-bimodal requests (99.5% of 0.5 us, 0.5% of 500 us) on one worker at a base load
that bursts to 2.75 times for the first quarter of every second (the shape of
LibPreemptible's 40 -> 110 kRPS spikes). Each fixed quantum, and the controller
(--quantum-us adaptive:MIN:MAX), runs on the same arrivals (one seed) with the preemption
cost measured on this VM (a quantum's round trip, README "Measured on this machine"). The
simulator is deterministic: the figures do not depend on how busy the machine is.

Writes experiments/results/adaptive_quantum_sim.{json,md,png}: per configuration the short
requests' p99/p99.9 sojourn and slowdown, the long ones' mean slowdown and the quanta run;
the best fixed quantum in hindsight (lowest short p99.9 sojourn); and over time, the p99
per interval and the controller's quantum.

  .venv/bin/python experiments/adaptive_quantum_sim.py [--duration-s 10] [--replot]
"""
import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import qsim  # noqa: E402

RESULTS = qsim.ROOT / "experiments" / "results"
FIXED_US = [2, 5, 10, 30, 50]
ADAPTIVE = "adaptive:2:50"


def options(args, quantum):
    return {"workload": "extreme-bimodal", "workers": 1, "load": args.load, "duration_s": args.duration_s,
            "seed": args.seed, "rate_profile": args.rate_profile, "interval_s": args.interval_s,
            "quantum_us": quantum, "preempt_overhead_ns": args.preempt_overhead_ns, "warmup_frac": 0}


def summarise(name, report):
    short, long_ = (report["classes"][k] for k in ("0.5", "500"))
    return {"config": name,
            "short_p99_us": short["sojourn_us"]["p99"], "short_p999_us": short["sojourn_us"]["p99.9"],
            "short_p999_slowdown": short["slowdown"]["p99.9"],
            "long_mean_slowdown": long_["slowdown"]["mean"],
            "quanta": report["runtime"]["quanta"]}


def run(args):
    names = [f"fixed {q} us" for q in FIXED_US] + [ADAPTIVE]
    reports = qsim.sim_many([options(args, q) for q in FIXED_US] + [options(args, ADAPTIVE)])
    rows = [summarise(n, r) for n, r in zip(names, reports)]
    fixed = rows[:-1]
    best = min(fixed, key=lambda r: r["short_p999_us"])
    result = {"what": "adaptive quantum vs fixed quanta, quanta sim, extreme-bimodal, bursty load",
              "command": " ".join(sys.argv), "options": options(args, "Q"), "rows": rows,
              "best_fixed_in_hindsight": best["config"],
              "series": {n: [x["p99_us"] for x in r["intervals"]["sojourn"]] for n, r in zip(names, reports)},
              "interval_s": args.interval_s,
              "adaptive_quantum": [{"at_s": p["at_s"], "quantum_us": p["quantum_us"], "load": p["load"]}
                                   for p in reports[-1]["adaptive_quantum"]["series"]]}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "adaptive_quantum_sim.json").write_text(json.dumps(result, indent=1) + "\n")
    return result


def table(result):
    lines = ["# Adaptive quantum vs fixed quanta (quanta sim)", "",
             f"`{result['command']}`", "",
             "| config | short p99 (us) | short p99.9 (us) | short p99.9 slowdown | long mean slowdown | quanta |",
             "|---|---|---|---|---|---|"]
    for r in result["rows"]:
        lines.append(f"| {r['config']} | {r['short_p99_us']:.1f} | {r['short_p999_us']:.1f} | "
                     f"{r['short_p999_slowdown']:.1f} | {r['long_mean_slowdown']:.2f} | {r['quanta']} |")
    lines += ["", f"Best fixed quantum in hindsight (lowest short p99.9): {result['best_fixed_in_hindsight']}."]
    (RESULTS / "adaptive_quantum_sim.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def plot(result):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    step = result["interval_s"]
    for name in [result["best_fixed_in_hindsight"], "fixed 50 us", ADAPTIVE]:
        ys = result["series"][name]
        top.plot([i * step for i in range(len(ys))], ys, label=name, drawstyle="steps-post")
    top.set_yscale("log")
    top.set_ylabel(f"p99 sojourn per {step} s (us)")
    top.legend()
    points = result["adaptive_quantum"]
    bottom.step([p["at_s"] for p in points], [p["quantum_us"] for p in points], where="post", label="quantum (us)")
    twin = bottom.twinx()
    twin.step([p["at_s"] for p in points], [p["load"] for p in points], where="post", color="grey", alpha=0.5)
    twin.set_ylabel("offered load in the period", color="grey")
    bottom.set_ylabel("controller's quantum (us)")
    bottom.set_xlabel("simulated time (s)")
    fig.tight_layout()
    fig.savefig(RESULTS / "adaptive_quantum_sim.png", dpi=110)
    print(f"wrote {RESULTS / 'adaptive_quantum_sim.png'}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--duration-s", type=float, default=10)
    ap.add_argument("--load", type=float, default=0.3)
    ap.add_argument("--rate-profile", default="bursts:2.75:1:0.25")
    ap.add_argument("--interval-s", type=float, default=0.05)
    ap.add_argument("--preempt-overhead-ns", type=float, default=46)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--replot", action="store_true", help="table and plot from the saved JSON")
    args = ap.parse_args()
    result = json.loads((RESULTS / "adaptive_quantum_sim.json").read_text()) if args.replot else run(args)
    table(result)
    plot(result)


if __name__ == "__main__":
    main()
