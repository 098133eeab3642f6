"""Latency and quantum over time in the real runtime: `quanta run` with LibPreemptible's
adaptive controller on a bursty load, beside the same run at fixed quanta.

Extreme-bimodal requests on one worker at a base load that bursts to 2.75 times for the
first quarter of every second (LibPreemptible's 40 -> 110 kRPS spikes, --rate-profile
bursts:2.75:1:0.25), p99 sojourn per --interval-s, and the controller's decisions
(adaptive_quantum.series). Real runs: the figures depend on the machine and how busy it
is (host stalls show up as spikes of p99); the JSON keeps the runs' stall counts.

Writes experiments/results/adaptive_quantum_run.{json,md,png}.

  .venv/bin/python experiments/adaptive_quantum_run.py [--duration-s 6] [--note "busy machine"] [--replot]
"""
import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import qsim  # noqa: E402

RESULTS = qsim.ROOT / "experiments" / "results"
NAME = "adaptive_quantum_run"
FIXED_US = [2, 50]


def options(args, quantum):
    return {"workload": "extreme-bimodal", "workers": 1, "load": args.load, "duration_s": args.duration_s,
            "seed": args.seed, "rate_profile": args.rate_profile, "interval_s": args.interval_s,
            "quantum_us": quantum, "warmup_frac": 0}


def summarise(name, report):
    short = report["classes"]["0.5"]
    stalls = report["stalls"]["threads"]
    return {"config": name, "short_p99_us": short["sojourn_us"]["p99"], "short_p999_us": short["sojourn_us"]["p99.9"],
            "completed": report["requests"]["completed"],
            "host_stalls": sum(t["count"] for t in stalls), "host_stalled_ms": sum(t["total_ms"] for t in stalls)}


def without_note(argv):
    """The command line without --note and its text (the note is shown on its own)."""
    out, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a == "--note":
            skip = True
        elif not a.startswith("--note="):
            out.append(a)
    return out


def run(args):
    names = [f"fixed {q} us" for q in FIXED_US] + [args.adaptive]
    # One at a time: runs pin threads to the machine's CPUs.
    reports = [qsim.quanta("run", **options(args, q)) for q in FIXED_US + [args.adaptive]]
    result = {"what": "quanta run, adaptive quantum vs fixed quanta, extreme-bimodal, bursty load",
              "command": " ".join(["experiments/adaptive_quantum_run.py"] + without_note(sys.argv[1:])),
              "note": args.note, "options": options(args, "Q"),
              "rows": [summarise(n, r) for n, r in zip(names, reports)], "interval_s": args.interval_s,
              "series": {n: [x["p99_us"] for x in r["intervals"]["sojourn"]] for n, r in zip(names, reports)},
              "adaptive_quantum": [{"at_s": p["at_s"], "quantum_us": p["quantum_us"], "load": p["load"],
                                    "heavy_tail": p["heavy_tail"], "high_load": p["high_load"]}
                                   for p in reports[-1]["adaptive_quantum"]["series"]],
              "late_periods": reports[-1]["adaptive_quantum"]["late_periods"]}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{NAME}.json").write_text(json.dumps(result, indent=1) + "\n")
    return result


def table(result):
    lines = ["# Adaptive quantum in the runtime, bursty load (quanta run)", "",
             f"`{result['command']}`" + (f" ({result['note']})" if result["note"] else ""), "",
             "| config | short p99 (us) | short p99.9 (us) | completed | host stalls | stalled (ms) |",
             "|---|---|---|---|---|---|"]
    for r in result["rows"]:
        lines.append(f"| {r['config']} | {r['short_p99_us']:.1f} | {r['short_p999_us']:.1f} | {r['completed']} | "
                     f"{r['host_stalls']} | {r['host_stalled_ms']:.1f} |")
    q = [p["quantum_us"] for p in result["adaptive_quantum"]]
    lines += ["", f"Controller: {len(q)} decisions ({result['late_periods']} late periods), quantum from "
                  f"{q[0]:g} to {min(q):g} us, {sum(x == min(q) for x in q)} decisions at its lowest."]
    (RESULTS / f"{NAME}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def plot(result):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    step = result["interval_s"]
    for name, ys in result["series"].items():
        top.plot([i * step for i in range(len(ys))], ys, label=name, drawstyle="steps-post", linewidth=0.9)
    top.set_yscale("log")
    top.set_ylabel(f"p99 sojourn per {step} s (us)")
    top.legend(fontsize=8)
    title = "quanta run (real runtime)" + (f": {result['note']}" if result["note"] else "")
    top.set_title(title, fontsize=9)
    points = result["adaptive_quantum"]
    bottom.step([p["at_s"] for p in points], [p["quantum_us"] for p in points], where="post", label="quantum (us)")
    twin = bottom.twinx()
    twin.step([p["at_s"] for p in points], [p["load"] for p in points], where="post", color="grey", alpha=0.5)
    twin.set_ylabel("workers' busy share in the period", color="grey")
    bottom.set_ylabel("controller's quantum (us)")
    bottom.set_xlabel("time since the run's start (s)")
    fig.tight_layout()
    fig.savefig(RESULTS / f"{NAME}.png", dpi=110)
    print(f"wrote {RESULTS / (NAME + '.png')}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--duration-s", type=float, default=6)
    ap.add_argument("--load", type=float, default=0.3)
    ap.add_argument("--rate-profile", default="bursts:2.75:1:0.25")
    ap.add_argument("--interval-s", type=float, default=0.05)
    ap.add_argument("--adaptive", default="adaptive:2:50")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--note", default="", help="said beside the figures, e.g. 'busy machine'")
    ap.add_argument("--replot", action="store_true", help="table and plot from the saved JSON")
    args = ap.parse_args()
    result = json.loads((RESULTS / f"{NAME}.json").read_text()) if args.replot else run(args)
    table(result)
    plot(result)


if __name__ == "__main__":
    main()
