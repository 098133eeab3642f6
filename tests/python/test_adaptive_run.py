"""`quanta run` with LibPreemptible's adaptive quantum in the runtime, per-interval statistics
and a workload that shifts mid-run: the JSON has the simulator's shape, and the counts add
up. Driven by load (an idle run, an overloaded one), never judged by latency or timing."""
import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = os.environ.get("QUANTA_BIN", str(ROOT / "build" / "bin" / "quanta"))

SERIES_FIELDS = {"at_s", "quantum_us", "load", "queue_per_worker", "p50_us", "p99_us", "tail_index", "high_load",
                 "long_queue", "heavy_tail", "low_load"}


def quanta(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=300)


def run_json(command, *args):
    proc = quanta(command, *args, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_the_runtimes_decisions_have_the_simulators_fields_one_per_period():
    args = ["--workload", "fixed:1", "--workers", "1", "--load", "0.02", "--duration-s", "1",
            # low=0.5: a busy machine's noise does not lift a light run's busy share past it;
            # alpha=0, queue=1e9: nor its stalls make a heavy tail or a queue of the requests.
            "--quantum-us", "adaptive:2:50:period_s=0.05,low=0.5,alpha=0,queue=1e9"]
    out = run_json("run", *args)
    sim = run_json("sim", *args)
    a, s = out["adaptive_quantum"], sim["adaptive_quantum"]
    assert set(a) == set(s)
    assert (a["load_basis"], s["load_basis"]) == ("busy", "offered")
    assert all(set(p) == SERIES_FIELDS for p in a["series"] + s["series"])
    # One decision per period of the run, at the period's end; a late wake-up decides once
    # for the periods it passed (late_periods), so decisions plus late ones cover the run.
    periods = [round(p["at_s"] / 0.05, 6) for p in a["series"]]
    assert periods == sorted(set(periods)) and all(p == int(p) for p in periods)
    covered = len(a["series"]) + a["late_periods"]
    assert abs(covered - out["runtime"]["elapsed_s"] / 0.05) <= 2, (covered, out["runtime"]["elapsed_s"])
    assert covered == periods[-1]  # the last decision's period, counted from 1
    # Light load: it starts at MAX and stays there.
    assert out["config"]["quantum_us"] == 50
    assert all(p["low_load"] and p["quantum_us"] == 50 for p in a["series"])


def test_under_overload_the_quantum_falls_to_min():
    # Load 3 on one worker: it never idles until the backlog drains.
    out = run_json("run", "--workload", "fixed:20", "--workers", "1", "--load", "3", "--duration-s", "0.5",
                   "--quantum-us", "adaptive:2:50:period_s=0.05")
    series = out["adaptive_quantum"]["series"]
    assert len(series) >= 4
    assert series[0]["high_load"] or series[0]["long_queue"]
    quanta = [p["quantum_us"] for p in series]
    assert min(quanta) == 2
    # Down by k1 (12) and k2 (12) per period while overloaded: never up before MIN, and
    # every decision until then with a rule that takes the quantum down (the queue is long
    # all along; the busy share may dip below `high` when the host takes the worker's CPU
    # between quanta).
    first_min = quanta.index(2)
    assert all(b <= a for a, b in zip([50] + quanta[:first_min], quanta[:first_min + 1]))
    assert all(p["long_queue"] and not p["low_load"] for p in series[:first_min + 1])


def test_intervals_count_every_completion_once():
    out = run_json("run", "--workload", "fixed:2", "--workers", "1", "--load", "0.2", "--duration-s", "1",
                   "--warmup-frac", "0", "--interval-s", "0.1")
    assert out["intervals"]["interval_s"] == 0.1
    rows = out["intervals"]["sojourn"]
    assert set(rows[0]) == {"start_s", "completed", "p50_us", "p99_us", "p999_us"}
    assert [round(r["start_s"], 6) for r in rows] == [round(0.1 * i, 6) for i in range(len(rows))]
    assert sum(r["completed"] for r in rows) == out["requests"]["completed"]
    assert 10 <= len(rows) <= 12  # 1 s of arrivals and the drain
    assert all(r["p50_us"] <= r["p99_us"] <= r["p999_us"] for r in rows if r["completed"])


def test_run_and_sim_draw_the_same_requests_across_a_workload_shift():
    args = ["--workload", "fixed:1", "--workload-shift", "fixed:3@0.5", "--workers", "1", "--load", "0.1",
            "--duration-s", "1", "--warmup-frac", "0", "--seed", "4"]
    run = run_json("run", *args)
    sim = run_json("sim", *args)
    counts = {k: c["count"] for k, c in run["classes"].items()}
    assert set(counts) == {"1", "3"}
    assert counts == {k: c["count"] for k, c in sim["classes"].items()}
    assert run["config"]["workload_shift"] == "fixed:3@0.5"


@pytest.mark.parametrize("spec, problem", [("adaptive:50:3", "MIN must be below MAX"),
                                           ("adaptive:2:50:period_s=0", "period_s must be a number from"),
                                           ("adaptive:2:50:speed=3", "is not KEY=VALUE"),
                                           ("adaptive:2", "expected adaptive:MIN:MAX"),
                                           ("adaptive:x:5", "is not a number")])
def test_bad_adaptive_specs_exit_2(spec, problem):
    proc = quanta("run", "--quantum-us", spec, "--duration-s", "0.1")
    assert proc.returncode == 2 and "--quantum-us" in proc.stderr and problem in proc.stderr, proc.stderr


@pytest.mark.parametrize("args, problem", [
    (["--interval-s", "1e-6", "--duration-s", "1"], "over 10000 intervals"),
    (["--interval-s", "-1"], "--interval-s"),
    (["--runtime", "linux", "--interval-s", "0.1"], "does not apply with --runtime linux"),
    (["--runtime", "linux", "--quantum-us", "adaptive:2:50"], "does not apply with --runtime linux"),
])
def test_bad_interval_and_controller_combinations_exit_2(args, problem):
    proc = quanta("run", *args)
    assert proc.returncode == 2 and problem in proc.stderr, proc.stderr
