"""LibPreemptible's adaptive quantum against the best fixed quantum in hindsight, in the
simulator, on a load whose service times shift between Exp(1) and extreme-bimodal.

One worker; Poisson arrivals at one rate all run long; the service times are exp1 for two
seconds, extreme-bimodal (99.5% of 0.5 us, 0.5% of 500 us) for the next two, and so on
(--workload exp1 --workload-shift extreme-bimodal@2,exp1@4,...). The rate is set by
--load over exp1's 1 us mean, so the extreme-bimodal phases carry three times the load (3 us
mean): 0.25 and 0.75 by default, the same rate for both, as when a server's mix of
requests changes. Each fixed quantum, and the controller with its default marks and with a
low mark above the exp1 phases' load, run on the same arrivals (one seed), with the
preemption cost measured on this VM (46 ns). The simulator is deterministic: the figures
do not depend on how busy the machine is.

The objective (which fixed quantum is best in hindsight): the p99.9 slowdown of every
request. Beside it, per phase: exp1's p99 sojourn (where a long quantum, close to FCFS,
is best) and the short extreme-bimodal requests' p99.9 sojourn (where the shortest is).

Writes experiments/results/adaptive_quantum_shift_sim.{json,csv,md,png}.

  .venv/bin/python experiments/adaptive_quantum_shift_sim.py [--duration-s 10] [--replot]
"""
import argparse
import csv
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import qsim  # noqa: E402

RESULTS = qsim.ROOT / "experiments" / "results"
NAME = "adaptive_quantum_shift_sim"
FIXED_US = [1, 2, 5, 10, 20, 50, 100]
ADAPTIVE = {"adaptive 1-100 (defaults)": "adaptive:1:100",
            "adaptive 1-100, low=0.4": "adaptive:1:100:low=0.4",
            "adaptive 1-100, low=0.4, period 0.01 s": "adaptive:1:100:low=0.4,period_s=0.01"}


def shifts(args):
    """extreme-bimodal@P,exp1@2P,... up to the run's end."""
    items, t, bimodal = [], args.phase_s, True
    while t < args.duration_s - 1e-9:
        items.append(f"{'extreme-bimodal' if bimodal else 'exp1'}@{t:g}")
        t += args.phase_s
        bimodal = not bimodal
    return ",".join(items)


def options(args, quantum):
    return {"workload": "exp1", "workload_shift": shifts(args), "workers": 1, "load": args.load,
            "duration_s": args.duration_s, "seed": args.seed, "interval_s": args.interval_s,
            "quantum_us": quantum, "preempt_overhead_ns": args.preempt_overhead_ns, "warmup_frac": 0}


def summarise(name, report):
    c = report["classes"]
    return {"config": name,
            "all_p999_slowdown": report["overall"]["slowdown"]["p99.9"],
            "all_p99_slowdown": report["overall"]["slowdown"]["p99"],
            "exp1_p99_us": c["exp1"]["sojourn_us"]["p99"],
            "exp1_p999_us": c["exp1"]["sojourn_us"]["p99.9"],
            "short_p999_us": c["0.5"]["sojourn_us"]["p99.9"],
            "long_mean_slowdown": c["500"]["slowdown"]["mean"],
            "quanta": report["runtime"]["quanta"]}


def run(args):
    names = [f"fixed {q} us" for q in FIXED_US] + list(ADAPTIVE)
    specs = [options(args, q) for q in FIXED_US] + [options(args, s) for s in ADAPTIVE.values()]
    reports = qsim.sim_many(specs)
    rows = [summarise(n, r) for n, r in zip(names, reports)]
    fixed = rows[:len(FIXED_US)]
    result = {"what": "adaptive quantum vs the best fixed quantum in hindsight, quanta sim, exp1 <-> extreme-bimodal",
              "command": " ".join(["experiments/adaptive_quantum_shift_sim.py"] + sys.argv[1:]),
              "options": options(args, "Q"), "rows": rows,
              "best_fixed_in_hindsight": min(fixed, key=lambda r: r["all_p999_slowdown"])["config"],
              "best_fixed_for_exp1": min(fixed, key=lambda r: r["exp1_p99_us"])["config"],
              "best_fixed_for_short": min(fixed, key=lambda r: r["short_p999_us"])["config"],
              "interval_s": args.interval_s, "phase_s": args.phase_s,
              "series": {n: [x["p99_us"] for x in r["intervals"]["sojourn"]] for n, r in zip(names, reports)},
              "adaptive_quantum": {n: [{"at_s": p["at_s"], "quantum_us": p["quantum_us"], "load": p["load"],
                                        "heavy_tail": p["heavy_tail"], "low_load": p["low_load"]}
                                       for p in r["adaptive_quantum"]["series"]]
                                   for n, r in zip(names, reports) if n in ADAPTIVE}}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{NAME}.json").write_text(json.dumps(result, indent=1) + "\n")
    with open(RESULTS / f"{NAME}.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return result


def table(result):
    lines = ["# Adaptive quantum vs the best fixed quantum, on a shifting workload (quanta sim)", "",
             f"`{result['command']}`", "",
             "| config | all p99.9 slowdown | all p99 slowdown | exp1 p99 (us) | exp1 p99.9 (us) | "
             "short p99.9 (us) | long mean slowdown | quanta |",
             "|---|---|---|---|---|---|---|---|"]
    for r in result["rows"]:
        lines.append(f"| {r['config']} | {r['all_p999_slowdown']:.1f} | {r['all_p99_slowdown']:.1f} | "
                     f"{r['exp1_p99_us']:.1f} | {r['exp1_p999_us']:.1f} | {r['short_p999_us']:.1f} | "
                     f"{r['long_mean_slowdown']:.2f} | {r['quanta']} |")
    lines += ["", f"Best fixed quantum in hindsight (lowest p99.9 slowdown of all requests): "
                  f"{result['best_fixed_in_hindsight']}; for exp1's p99 alone: {result['best_fixed_for_exp1']}; "
                  f"for the short requests' p99.9 alone: {result['best_fixed_for_short']}."]
    for name, points in result["adaptive_quantum"].items():
        exp1 = [p["quantum_us"] for p in points if int(p["at_s"] / result["phase_s"] - 1e-9) % 2 == 0]
        bimodal = [p["quantum_us"] for p in points if int(p["at_s"] / result["phase_s"] - 1e-9) % 2 == 1]
        lines.append(f"{name}: mean quantum {sum(exp1) / len(exp1):.1f} us in the exp1 phases, "
                     f"{sum(bimodal) / len(bimodal):.1f} us in the extreme-bimodal ones.")
    (RESULTS / f"{NAME}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def plot(result):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    step = result["interval_s"]
    shown = sorted({result["best_fixed_in_hindsight"], result["best_fixed_for_exp1"]}) + list(result["adaptive_quantum"])
    colors = {name: f"C{i}" for i, name in enumerate(shown)}  # the same in both panels
    for name in shown:
        ys = result["series"][name]
        top.plot([i * step for i in range(len(ys))], ys, label=name, drawstyle="steps-post", linewidth=0.9,
                 color=colors[name])
    top.set_yscale("log")
    top.set_ylabel(f"p99 sojourn per {step} s (us)")
    top.legend(fontsize=8)
    for name, points in result["adaptive_quantum"].items():
        bottom.step([p["at_s"] for p in points], [p["quantum_us"] for p in points], where="post", label=name,
                    color=colors[name])
    end = max(p["at_s"] for points in result["adaptive_quantum"].values() for p in points)
    t = result["phase_s"]
    while t < end:
        bottom.axvspan(t, t + result["phase_s"], color="grey", alpha=0.15, linewidth=0)
        t += 2 * result["phase_s"]
    bottom.set_ylabel("controller's quantum (us)")
    bottom.set_xlabel("simulated time (s); shaded: extreme-bimodal, else exp1")
    bottom.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(RESULTS / f"{NAME}.png", dpi=110)
    print(f"wrote {RESULTS / (NAME + '.png')}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--duration-s", type=float, default=10)
    ap.add_argument("--phase-s", type=float, default=2)
    ap.add_argument("--load", type=float, default=0.25, help="offered load of the exp1 phases (x3 in the others)")
    ap.add_argument("--interval-s", type=float, default=0.05)
    ap.add_argument("--preempt-overhead-ns", type=float, default=46)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--replot", action="store_true", help="table and plot from the saved JSON")
    args = ap.parse_args()
    result = json.loads((RESULTS / f"{NAME}.json").read_text()) if args.replot else run(args)
    table(result)
    plot(result)


if __name__ == "__main__":
    main()
