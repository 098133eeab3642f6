"""`quanta sim` as a user meets it: the options of `quanta run` plus the simulator's own,
the same JSON schema with "mode": "sim", determinism, errors that exit 2 naming the option,
and --max-load (on sim; `quanta run --max-load` is only checked for its errors here, since
a real run spins every CPU)."""
import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = os.environ.get("QUANTA_BIN", str(ROOT / "build" / "bin" / "quanta"))


def quanta(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=300)


def sim_json(*args):
    proc = quanta("sim", *args, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


SMALL = ["--jobs", "20000", "--workers", "4", "--load", "0.6"]


def test_sim_takes_every_run_option_plus_its_own():
    run_help = quanta("run", "--help").stdout
    sim_help = quanta("sim", "--help").stdout
    run_options = {w.rstrip(",") for w in run_help.split() if w.startswith("--") and w != "--help"}
    # The kernel-thread baseline's options are run's alone: there is no kernel to simulate.
    run_options -= {"--runtime", "--linux-policy", "--threads-per-core", "--deadline-runtime-us",
                    "--deadline-period-us", "--class-sched"}
    # Nor real threads to oversubscribe or to idle, nor an app to load: the simulator models
    # service times, it runs no handler.
    run_options -= {"--oversubscribe", "--app", "--app-config", "--max-payload-bytes",
                    "--max-response-bytes", "--idle", "--idle-spin-us"}
    # Nor handlers that can get stuck: the watchdog watches real threads.
    run_options -= {"--overrun-report-quanta", "--watchdog-ms"}
    assert run_options, run_help
    for option in run_options:
        assert option in sim_help, option
    for option in ["--jobs", "--preempt-overhead-ns", "--probe-overhead-pct", "--dispatch-ns",
                   "--quantum-jitter-ns", "--request-overhead-ns", "--calibration", "--max-load", "--stalls",
                   "--stall-window", "--stall-threshold-us", "--flag-notification-ns", "--signal-latency-ns",
                   "--signal-cpu-ns", "--monitor-poll-ns", "--requeue-ns", "--dispatcher-works"]:
        assert option in sim_help, option


def test_same_schema_as_run_with_mode_sim():
    out = sim_json(*SMALL)
    assert out["mode"] == "sim"
    for key in ["config", "classes", "overall", "requests", "rates", "runtime"]:
        assert key in out
    assert out["config"]["workers"] == 4
    assert set(out["classes"]) == {"0.5", "500"}
    assert out["classes"]["0.5"]["label"] == "short"
    assert out["requests"]["generated"] == 20000
    assert out["requests"]["completed"] == 20000
    assert out["requests"]["measured"] == 18000
    for stat in ["mean", "p50", "p99", "p99.9", "max"]:
        assert stat in out["overall"]["slowdown"] and stat in out["overall"]["sojourn_us"]
    assert {"events", "wall_s", "requests_per_s"} <= set(out["sim"])


def test_any_number_of_workers():
    assert sim_json("--jobs", "50000", "--workers", "64")["config"]["workers"] == 64


def test_deterministic_for_a_seed_and_seed_matters():
    a, b = sim_json(*SMALL, "--seed", "7"), sim_json(*SMALL, "--seed", "7")
    c = sim_json(*SMALL, "--seed", "8")
    for d in (a, b, c):
        d.pop("sim")
    assert a == b
    assert a["overall"] != c["overall"]


def test_comma_lists_give_runs_including_sim_only_policies():
    out = sim_json(*SMALL, "--dispatch", "jsq-msq,central,jbsq:2,steal", "--local", "ps,fcfs")
    assert [(r["config"]["local"], r["config"]["dispatch"]) for r in out["runs"]] == [
        (l, d) for l in ["ps", "fcfs"] for d in ["jsq-msq", "central", "jbsq:2", "steal"]]


def test_text_output_is_a_table():
    proc = quanta("sim", *SMALL)
    assert proc.returncode == 0
    assert proc.stdout.startswith("sim")
    assert "slowdown p99.9" in proc.stdout


def test_overheads_are_echoed_and_calibration_is_read(tmp_path):
    cal = tmp_path / "cal.json"
    cal.write_text(json.dumps({"yield_round_trip_ns": 40, "probe_overhead_pct": 2.5,
                               "dispatch_ns_per_request": 60, "signal_cpu_cost_ns": 13000}))
    out = sim_json(*SMALL, "--calibration", str(cal), "--dispatch-ns", "10")
    assert out["sim"]["overheads"] == {"preempt_overhead_ns": 40, "probe_overhead_pct": 2.5,
                                       "dispatch_ns": 10, "quantum_jitter_ns": 0,
                                       "request_overhead_ns": 0, "flag_notification_ns": 0,
                                       "signal_latency_ns": 0, "signal_cpu_ns": 13000,
                                       "monitor_poll_ns": 0, "requeue_ns": 0}


def test_calibration_gives_each_mechanism_its_costs(tmp_path):
    # The spread form `quanta calibrate` writes: the p50 is read.
    cal = tmp_path / "cal.json"
    cal.write_text(json.dumps({"flag_notification_ns": {"p50": 180, "p99": 900, "mean": 250},
                               "signal_preemption_ns": {"p50": 9000, "p99": 30000, "mean": 12000},
                               "signal_cpu_cost_ns": 4000, "monitor_poll_ns": 60, "requeue_ns": 90}))
    overheads = sim_json(*SMALL, "--calibration", str(cal), "--requeue-ns", "70")["sim"]["overheads"]
    assert (overheads["flag_notification_ns"], overheads["signal_latency_ns"], overheads["signal_cpu_ns"],
            overheads["monitor_poll_ns"], overheads["requeue_ns"]) == (180, 9000, 4000, 60, 70)


def test_each_mechanism_gives_its_own_result_when_the_costs_differ():
    costs = ["--flag-notification-ns", "300", "--signal-latency-ns", "3000", "--signal-cpu-ns", "1500",
             "--monitor-poll-ns", "100", "--quantum-jitter-ns", "2000", "--backstop-us", "3"]
    out = sim_json(*SMALL, *costs, "--preempt", "clock,flag,signal,hybrid")
    runs = {r["config"]["preempt"]: r for r in out["runs"]}
    means = {m: r["overall"]["sojourn_us"]["mean"] for m, r in runs.items()}
    assert len(set(means.values())) == 4, means
    assert runs["clock"]["runtime"]["signals"]["received"] == 0
    assert runs["flag"]["runtime"]["monitor_actions"] > 0
    assert runs["signal"]["runtime"]["signals"]["switched"] > 0
    assert runs["hybrid"]["runtime"]["signals"]["switched"] > 0
    # Signals cost the workers CPU: the long requests are slowed down more than by clock probes.
    assert (runs["signal"]["classes"]["500"]["slowdown"]["mean"] >
            runs["clock"]["classes"]["500"]["slowdown"]["mean"])


@pytest.mark.parametrize("preempt", ["clock", "flag"])
def test_dispatcher_works_runs_requests_on_the_dispatcher(preempt):
    out = sim_json("--jobs", "20000", "--workers", "1", "--load", "0.9", "--dispatch", "central",
                   "--dispatcher-works", "--preempt", preempt)
    assert out["runtime"]["central"]["dispatcher_requests"] > 0
    assert out["requests"]["completed"] == 20000


@pytest.mark.parametrize(
    "args, named",
    [
        (["--dispatch", "jbsq:0"], "jbsq:0"),
        (["--dispatch", "round-robin"], "--dispatch"),
        (["--local", "srpt"], "--local"),
        (["--workers", "0"], "--workers"),
        (["--jobs", "0"], "--jobs"),
        (["--jobs", "10", "--duration-s", "1"], "--jobs"),
        (["--preempt-overhead-ns", "-1"], "--preempt-overhead-ns"),
        (["--quantum-jitter-ns", "x"], "--quantum-jitter-ns"),
        (["--calibration", "/nonexistent.json"], "--calibration"),
        (["--max-load", "short:p99-lat<=3"], "--max-load"),
        (["--max-load", "short:p99-us<=3", "--load", "0.5"], "--max-load"),
        (["--max-load", "medium:p99-us<=3"], "medium"),
        # Values that would make the simulation run for ever or overflow.
        (["--quantum-us", "1e-12"], "--quantum-us"),
        (["--probe-overhead-pct", "1e300"], "--probe-overhead-pct"),
        (["--preempt-overhead-ns", "1e300"], "--preempt-overhead-ns"),
        (["--workload", "fixed:5e6"], "at most 4e6 us"),
        (["--workload", "lognormal:1:50"], "sigma"),
        (["--calibration", "/tmp"], "directory"),
        # What the model has nothing to do with, or does not model with the rest.
        (["--stack-kib", "64"], "--stack-kib"),
        (["--dispatcher-works"], "--dispatcher-works"),
        (["--dispatcher-works", "--dispatch", "central", "--preempt", "signal"], "--dispatcher-works"),
        (["--signal-cpu-ns", "-3"], "--signal-cpu-ns"),
        (["--requeue-ns", "1e300"], "--requeue-ns"),
    ],
)
def test_bad_input_exits_2_naming_the_option(args, named):
    proc = quanta("sim", "--jobs", "1000", *args)
    assert proc.returncode == 2, proc.stderr
    assert named in proc.stderr
    assert proc.stdout == ""


def test_a_run_too_long_to_simulate_is_refused_not_run():
    proc = quanta("sim", "--duration-s", "1e8")
    assert proc.returncode == 2 and "--duration-s" in proc.stderr and "1e10" in proc.stderr
    # Longer than simulated time (whole ns in 64 bits) holds: refused as an option.
    proc = quanta("sim", "--duration-s", "1e12")
    assert proc.returncode == 2 and "--duration-s" in proc.stderr and "at most 1e+09" in proc.stderr
    # As many --jobs as asked, at a rate so low that they would outlast that clock.
    proc = quanta("sim", "--jobs", "1000", "--load", "1e-12")
    assert proc.returncode == 2 and "--jobs" in proc.stderr and "simulated time" in proc.stderr


def test_bad_calibration_file_exits_2(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    proc = quanta("sim", "--jobs", "1000", "--calibration", str(bad))
    assert proc.returncode == 2
    assert "--calibration" in proc.stderr and "JSON" in proc.stderr


@pytest.mark.parametrize(
    "content, key",
    [
        ('{"bogus": 1}', "'bogus'"),
        ('{"quantum_round_trip_ns": 40, "probe_overhead_pc": 3}', "'probe_overhead_pc'"),
        ('{"dispatch_ns_per_request": {"dispatcher_only": 30, "dispatcher_onyl": 3}}',
         "'dispatch_ns_per_request.dispatcher_onyl'"),
    ],
)
def test_unknown_calibration_key_exits_2_naming_it(tmp_path, content, key):
    # A misspelt key would otherwise leave its overhead at 0 without a word.
    cal = tmp_path / "cal.json"
    cal.write_text(content)
    proc = quanta("sim", "--jobs", "1000", "--calibration", str(cal))
    assert proc.returncode == 2
    assert "--calibration" in proc.stderr and f"unknown key {key}" in proc.stderr
    assert proc.stdout == ""


def test_max_load_bisects_and_reports_points():
    # M/M/1 FCFS: p99 sojourn = ln(100)/(1 - load) us <= 15.35 up to load 0.7.
    out = sim_json("--workload", "exp1", "--workers", "1", "--local", "fcfs", "--preempt", "none",
                   "--jobs", "1000000", "--max-load", "all:p99-us<=15.35", "--max-load-steps", "7")
    assert out["objective"] == "all:p99-us<=15.35"
    assert abs(out["max_load"] - 0.7) < 0.03
    assert len(out["points"]) == 7
    assert all({"load", "value", "met", "rate_rps"} <= set(p) for p in out["points"])
    assert out["run"]["mode"] == "sim"
    assert out["run"]["config"]["load"] == out["max_load"]


def test_run_has_max_load_and_checks_it():
    assert "--max-load" in quanta("run", "--help").stdout
    proc = quanta("run", "--max-load", "short:p99.9-slowdown")
    assert proc.returncode == 2
    assert "--max-load" in proc.stderr


@pytest.mark.parametrize("option", ["--preempt-overhead-ns", "--probe-overhead-pct", "--dispatch-ns",
                                    "--quantum-jitter-ns", "--request-overhead-ns", "--quantum-us", "--load"])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_sim_float_options_refuse_what_is_no_finite_number(option, value):
    proc = quanta("sim", "--jobs", "1000", option, value)
    assert proc.returncode == 2, proc.stderr
    assert f"{option}: must be a finite number" in proc.stderr


def write_trace(path, cpus):
    path.write_text(json.dumps({"seconds": 0.01, "cpus": [{"cpu": i, "trace_us": t} for i, t in enumerate(cpus)]}))
    return str(path)


def test_stalls_replay_a_trace_and_mark_the_requests_they_touch(tmp_path):
    # Every 10 ms: a 2 ms stall of the dispatcher's CPU and a 500 us one of the worker's.
    trace = write_trace(tmp_path / "stalls.json", [[[1000, 2000]], [[6000, 500]]])
    base = ["--workers", "1", "--load", "0.5", "--duration-s", "0.5"]
    clean = sim_json(*base)
    stalled = sim_json(*base, "--stalls", trace)
    assert clean["requests"]["stall_touched"] == 0
    assert stalled["requests"]["stall_touched"] > 0
    assert stalled["untouched"]["requests"] < stalled["requests"]["measured"]
    threads = {t["thread"]: t for t in stalled["stalls"]["threads"]}
    # 0.5 s of the 10 ms trace: 50 stalls per CPU, all above the 20 us threshold.
    assert threads["dispatcher"]["count"] == 50 and threads["worker 0"]["count"] == 50
    assert abs(threads["dispatcher"]["largest_us"] - 2000) < 1
    # A threshold above the worker's stalls hides them (they still delay requests).
    hidden = sim_json(*base, "--stalls", trace, "--stall-threshold-us", "1000")
    assert {t["thread"]: t["count"] for t in hidden["stalls"]["threads"]}["worker 0"] == 0
    # The rule that looks past a stall's end marks at least what the lifetime rule marks.
    life = sim_json(*base, "--stalls", trace, "--stall-window", "lifetime")
    assert stalled["requests"]["stall_touched"] >= life["requests"]["stall_touched"]


@pytest.mark.parametrize(
    "content, named",
    [
        ("{not json", "not JSON"),
        ('{"seconds": 1, "cpus": [{"cpu": 0}]}', "trace_us"),
        ('{"seconds": 1, "cpus": [{"cpu": 0, "trace_us": [[10, 5], [12, 1]]}]}', "in order"),
        ('{"seconds": 0, "cpus": [{"cpu": 0, "trace_us": []}]}', "seconds"),
    ],
)
def test_bad_stall_trace_exits_2_naming_the_option(tmp_path, content, named):
    path = tmp_path / "bad.json"
    path.write_text(content)
    proc = quanta("sim", "--jobs", "1000", "--stalls", str(path))
    assert proc.returncode == 2, proc.stderr
    assert "--stalls" in proc.stderr and named in proc.stderr
    proc = quanta("sim", "--jobs", "1000", "--stall-window", "forever")
    assert proc.returncode == 2 and "--stall-window" in proc.stderr


def test_the_stall_benchmark_records_a_trace_the_simulator_reads(tmp_path):
    bench = Path(BIN).parent / "quanta-bench-stalls"
    proc = subprocess.run([str(bench), "0.05", "--trace"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    recorded = json.loads(proc.stdout)
    assert all("trace_us" in cpu for cpu in recorded["cpus"])
    path = tmp_path / "recorded.json"
    path.write_text(proc.stdout)
    assert sim_json("--jobs", "2000", "--workers", "1", "--stalls", str(path))["mode"] == "sim"
    bad = subprocess.run([str(bench), "--trace", "abc"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "abc" in bad.stderr


def test_adaptive_quantum_decisions_are_in_the_json():
    out = sim_json("--workload", "fixed:1", "--workers", "1", "--load", "0.05", "--duration-s", "0.5",
                   "--quantum-us", "adaptive:2:50:period_s=0.1,k3=6")
    a = out["adaptive_quantum"]
    assert (a["min_us"], a["max_us"], a["period_s"], a["k3_us"]) == (2, 50, 0.1, 6)
    # It starts at MAX (relaxed, as at low load) and low load keeps it there.
    assert out["config"]["quantum_us"] == 50
    assert [round(p["at_s"], 6) for p in a["series"]] == [0.1, 0.2, 0.3, 0.4, 0.5][:len(a["series"])]
    assert len(a["series"]) >= 4
    assert all(p["low_load"] and p["quantum_us"] == 50 for p in a["series"])


@pytest.mark.parametrize("spec, problem", [("adaptive:50:3", "MIN must be below MAX"),
                                           ("adaptive:2:50:period_s=0", "period_s must be a number from"),
                                           ("adaptive:2:50:speed=3", "is not KEY=VALUE"),
                                           ("adaptive:2", "expected adaptive:MIN:MAX")])
def test_bad_adaptive_quantum_specs_exit_2(spec, problem):
    proc = quanta("sim", "--quantum-us", spec, *SMALL)
    assert proc.returncode == 2 and "--quantum-us" in proc.stderr and problem in proc.stderr, proc.stderr


def test_a_rate_profile_moves_the_offered_rate():
    base = ["--workload", "fixed:1", "--workers", "1", "--load", "0.2", "--duration-s", "1", "--seed", "3"]
    flat = sim_json(*base)["requests"]["generated"]
    out = sim_json(*base, "--rate-profile", "steps:1@0,3@0.5")
    assert out["config"]["rate_profile"] == "steps:1@0,3@0.5"
    # Half the run at 1x and half at 3x: twice the arrivals of the constant rate.
    assert abs(out["requests"]["generated"] / flat - 2.0) < 0.02
    proc = quanta("sim", *base, "--rate-profile", "bursts:3:1:2")
    assert proc.returncode == 2 and "--rate-profile" in proc.stderr and "FOR_S" in proc.stderr


def test_intervals_show_a_run_change_over_time():
    out = sim_json("--workload", "exp1", "--workers", "1", "--load", "0.3", "--duration-s", "1", "--seed", "3",
                   "--rate-profile", "steps:1@0,3@0.5", "--interval-s", "0.25")
    assert out["intervals"]["interval_s"] == 0.25
    rows = out["intervals"]["sojourn"]
    assert [r["start_s"] for r in rows[:4]] == [0, 0.25, 0.5, 0.75]
    assert sum(r["completed"] for r in rows) == out["requests"]["completed"]
    # Load 0.3, then 0.9: three times the completions and a longer tail after the step.
    assert rows[2]["completed"] > 2.5 * rows[1]["completed"]
    assert rows[2]["p99_us"] > 2 * rows[1]["p99_us"]
    proc = quanta("sim", "--interval-s", "1e-6", "--duration-s", "1")
    assert proc.returncode == 2 and "--interval-s" in proc.stderr


def class_counts(report):
    return {key: c["count"] for key, c in report["classes"].items()}


def test_a_workload_shift_changes_the_service_times_at_its_time():
    base = ["--workload", "fixed:1", "--workers", "1", "--load", "0.3", "--seed", "5", "--warmup-frac", "0"]
    shifted = sim_json(*base, "--duration-s", "2", "--workload-shift", "fixed:3@1")
    assert shifted["config"]["workload_shift"] == "fixed:3@1"
    counts = class_counts(shifted)
    assert set(counts) == {"1", "3"}
    assert counts["1"] + counts["3"] == shifted["requests"]["completed"]
    # The arrivals of the first second are those of a 1-s run without the shift: the class
    # of fixed:1 has exactly its requests, and the rest (the same rate, fixed:3) come after.
    first_second = sim_json(*base, "--duration-s", "1")
    assert counts["1"] == first_second["requests"]["completed"]
    assert 0.9 < counts["3"] / counts["1"] < 1.1
    # Deterministic for a seed.
    assert class_counts(sim_json(*base, "--duration-s", "2", "--workload-shift", "fixed:3@1")) == counts


def test_a_workload_shift_to_extreme_bimodal_and_back():
    out = sim_json("--workload", "exp1", "--workers", "1", "--load", "0.3", "--seed", "2", "--warmup-frac", "0",
                   "--duration-s", "3", "--workload-shift", "extreme-bimodal@1,exp1@2")
    counts = class_counts(out)
    assert set(counts) == {"exp1", "0.5", "500"}
    assert out["classes"]["exp1"]["label"] == "exp1" and out["classes"]["500"]["label"] == "long"
    # Two seconds of exp1 for one of extreme-bimodal, at the same rate.
    assert 1.8 < counts["exp1"] / (counts["0.5"] + counts["500"]) < 2.2


@pytest.mark.parametrize("shift, problem", [("exp1", "not SPEC@T_S"), ("exp1@0", "above 0 and increasing"),
                                            ("exp1@2,fixed1@1", "above 0 and increasing"),
                                            ("nope@1", "unknown name"), ("exp1@x", "not a number of seconds")])
def test_bad_workload_shifts_exit_2(shift, problem):
    for command in ("sim", "run"):
        proc = quanta(command, "--workload-shift", shift, "--duration-s", "0.1")
        assert proc.returncode == 2 and "--workload-shift" in proc.stderr and problem in proc.stderr, proc.stderr
