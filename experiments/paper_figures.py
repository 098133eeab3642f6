#!/usr/bin/python3
"""Reproduces the simulation figures of Tiny Quanta (§2 Figs 1 and 2, §3.2 Fig 4) and
Concord (§3.1 Fig 5) with `quanta sim`. Writes CSV + PNG to experiments/out/.

  /usr/bin/python3 experiments/paper_figures.py [fig1 fig2 fig4 concord5] [--jobs N]

Every point is one `quanta sim` run: extreme-bimodal (99.5% 0.5 us, 0.5% 500 us), 16
workers, --jobs requests (10% warm-up), seed 1.
"""
import argparse
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import qsim  # noqa: E402

COMMON = dict(workload="extreme-bimodal", workers=16, seed=1, task_slots=4096)
LOADS = [0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9]


def read_rows(name):
    with open(qsim.OUT / name) as f:
        return [{k: (v if k in ("variant", "dispatch") else float(v)) for k, v in row.items()}
                for row in csv.DictReader(f)]


def fig1(jobs):
    """TQ Fig 1: p99.9 slowdown (all requests) vs load, centralized PS, quanta 0.5-10 us, no overhead."""
    quanta = [0.5, 1, 2, 5, 10]
    points = [dict(COMMON, dispatch="central", local="ps", quantum_us=q, load=l, jobs=jobs) for q in quanta for l in LOADS]
    runs = qsim.sim_many(points)
    rows = [{"quantum_us": p["quantum_us"], "load": p["load"], "p999_slowdown": r["overall"]["slowdown"]["p99.9"],
             "short_p999_slowdown": r["classes"]["0.5"]["slowdown"]["p99.9"],
             "long_p999_slowdown": r["classes"]["500"]["slowdown"]["p99.9"],
             "rate_mrps": r["config"]["rate_rps"] / 1e6} for p, r in zip(points, runs)]
    qsim.write_csv("tq_fig1.csv", rows)
    plot_fig1(rows)


def plot_fig1(rows):
    quanta = sorted({r["quantum_us"] for r in rows})
    plt.figure(figsize=(5, 3.5))
    for q in quanta:
        sel = [r for r in rows if r["quantum_us"] == q]
        plt.plot([r["rate_mrps"] for r in sel], [r["p999_slowdown"] for r in sel], marker="o", label=f"{q:g} us")
    plt.axhline(10, color="gray", ls="--", lw=0.8)
    plt.yscale("log")
    plt.xlabel("offered rate (M requests/s), 16 workers")
    plt.ylabel("p99.9 slowdown")
    plt.title("TQ Fig 1: centralized PS, no overhead")
    plt.legend(title="quantum")
    plt.tight_layout()
    plt.savefig(qsim.plot_path("tq_fig1.png"), dpi=110)


def fig2(jobs):
    """TQ Fig 2: max rate with p99.9 slowdown <= 10 vs quantum, preemption overheads 0, 0.1, 1 us."""
    quanta = [0.5, 1, 2, 3, 5, 10]
    overheads = [0, 100, 1000]
    points = [dict(COMMON, dispatch="central", local="ps", quantum_us=q, preempt_overhead_ns=o, jobs=jobs,
                   max_load="all:p99.9-slowdown<=10", max_load_steps=8) for o in overheads for q in quanta]
    runs = qsim.sim_many(points)
    rows = [{"overhead_ns": p["preempt_overhead_ns"], "quantum_us": p["quantum_us"], "max_load": r["max_load"],
             "max_rate_mrps": r["max_rate_rps"] / 1e6, "resolution": r["resolution"]} for p, r in zip(points, runs)]
    qsim.write_csv("tq_fig2.csv", rows)
    plot_fig2(rows)


def plot_fig2(rows):
    quanta = sorted({r["quantum_us"] for r in rows})
    overheads = sorted({r["overhead_ns"] for r in rows})
    plt.figure(figsize=(5, 3.5))
    for o in overheads:
        sel = [r for r in rows if r["overhead_ns"] == o]
        plt.plot([r["quantum_us"] for r in sel], [r["max_rate_mrps"] for r in sel], marker="o", label=f"{o:g} ns")
    plt.xlabel("quantum (us)")
    plt.ylabel("max Mrps with p99.9 slowdown <= 10")
    plt.title("TQ Fig 2: centralized PS, 16 workers")
    plt.legend(title="preemption overhead")
    plt.tight_layout()
    plt.savefig(qsim.plot_path("tq_fig2.png"), dpi=110)


def fig4(jobs):
    """TQ Fig 4: long-request p99.9 slowdown, centralized PS vs JSQ-PS with random or MSQ tie-break."""
    policies = [("central", "CT PS"), ("jsq", "TLS JSQ random tie"), ("jsq-msq", "TLS JSQ-MSQ")]
    points = [dict(COMMON, dispatch=d, local="ps", quantum_us=2, load=l, jobs=jobs) for d, _ in policies for l in LOADS]
    runs = qsim.sim_many(points)
    rows = [{"dispatch": p["dispatch"], "load": p["load"], "long_p999_slowdown": r["classes"]["500"]["slowdown"]["p99.9"],
             "short_p999_slowdown": r["classes"]["0.5"]["slowdown"]["p99.9"], "rate_mrps": r["config"]["rate_rps"] / 1e6,
             "long_count": r["classes"]["500"]["count"]} for p, r in zip(points, runs)]
    qsim.write_csv("tq_fig4.csv", rows)
    plot_fig4(rows)


def plot_fig4(rows):
    policies = [("central", "CT PS"), ("jsq", "TLS JSQ random tie"), ("jsq-msq", "TLS JSQ-MSQ")]
    plt.figure(figsize=(5, 3.5))
    for d, label in policies:
        sel = [r for r in rows if r["dispatch"] == d]
        plt.plot([r["rate_mrps"] for r in sel], [r["long_p999_slowdown"] for r in sel], marker="o", label=label)
    plt.xlabel("offered rate (M requests/s), 16 workers")
    plt.ylabel("p99.9 slowdown of 500 us requests")
    plt.title("TQ Fig 4: quantum 2 us, no overhead")
    plt.legend()
    plt.tight_layout()
    plt.savefig(qsim.plot_path("tq_fig4.png"), dpi=110)


def concord5(jobs):
    """Concord Fig 5: single queue, 5 us quantum: precise, none, and 5 us + |N(0, sigma)|."""
    variants = [("precise", dict(preempt="clock")), ("no preemption", dict(preempt="none"))]
    variants += [(f"N(5, {s})", dict(preempt="clock", quantum_jitter_ns=s * 1000)) for s in [1, 2, 5, 10]]
    points = [dict(COMMON, dispatch="central", local="ps", quantum_us=5, load=l, jobs=jobs, **v)
              for _, v in variants for l in LOADS]
    runs = qsim.sim_many(points)
    names = [n for n, _ in variants for _ in LOADS]
    rows = [{"variant": n, "load": p["load"], "p999_slowdown": r["overall"]["slowdown"]["p99.9"],
             "rate_mrps": r["config"]["rate_rps"] / 1e6} for n, p, r in zip(names, points, runs)]
    qsim.write_csv("concord_fig5.csv", rows)
    plot_concord5(rows)


def plot_concord5(rows):
    variants = [(n, None) for n in dict.fromkeys(r["variant"] for r in rows)]
    plt.figure(figsize=(5, 3.5))
    for n, _ in variants:
        sel = [r for r in rows if r["variant"] == n]
        plt.plot([r["load"] for r in sel], [r["p999_slowdown"] for r in sel], marker="o", label=n)
    plt.yscale("log")
    plt.xlabel("load, 16 workers")
    plt.ylabel("p99.9 slowdown")
    plt.title("Concord Fig 5: single queue, quantum 5 us")
    plt.legend(fontsize=8)
    plt.tight_layout()
    plt.savefig(qsim.plot_path("concord_fig5.png"), dpi=110)


CSV = {"fig1": "tq_fig1.csv", "fig2": "tq_fig2.csv", "fig4": "tq_fig4.csv", "concord5": "concord_fig5.csv"}
FIGURES = {"fig1": fig1, "fig2": fig2, "fig4": fig4, "concord5": concord5}

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("figures", nargs="*", metavar="FIGURE", help="fig1, fig2, fig4, concord5 (default: all)")
    parser.add_argument("--plot-only", action="store_true", help="re-plot from the CSVs in experiments/out")
    parser.add_argument("--jobs", type=int, default=4_000_000, help="requests per point (fig4 uses 2.5x)")
    args = parser.parse_args()
    for name in args.figures or list(FIGURES):
        if name not in FIGURES:
            parser.error(f"unknown figure {name!r} (expected one of {', '.join(FIGURES)})")
        print(f"{name}...", file=sys.stderr)
        if args.plot_only:
            globals()["plot_" + name](read_rows(CSV[name]))
        else:
            FIGURES[name](args.jobs * 5 // 2 if name == "fig4" else args.jobs)
