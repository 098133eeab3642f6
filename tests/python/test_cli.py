"""`quanta run` as a user meets it: help, errors that name the option (exit 2), and the
JSON schema documented in docs/json-output.md."""
import json
import os
import subprocess

import pytest
from pathlib import Path

SUMMARY_KEYS = {"mean", "p50", "p99", "p99.9", "max"}
ROOT = Path(__file__).resolve().parents[2]  # the checkout, for the spin app's sources


def test_help_lists_every_run_option(run_quanta):
    proc = run_quanta("run", "--help")
    assert proc.returncode == 0
    for option in ["--workload", "--load", "--rate-rps", "--workers", "--quantum-us", "--local", "--dispatch",
                   "--preempt", "--duration-s", "--warmup-frac", "--seed", "--format", "--on-full"]:
        assert option in proc.stdout, option


def test_no_command_is_a_usage_error(run_quanta):
    proc = run_quanta()
    assert proc.returncode == 2
    assert "subcommand" in proc.stderr.lower() or "command" in proc.stderr.lower()


@pytest.mark.parametrize(
    "args, named",
    [
        (["--workload", "bimodal:50:1"], "bimodal:P:A:B"),
        (["--workload", "nonsense"], "nonsense"),
        (["--local", "ps,srpt"], "--local"),
        (["--dispatch", "round-robin"], "--dispatch"),
        (["--preempt", "magic"], "--preempt"),
        (["--load", "-1"], "--load"),
        (["--load", "0.5", "--rate-rps", "1000"], "--rate-rps"),
        (["--quantum-us", "0"], "--quantum-us"),
        (["--workers", "100000"], "--workers"),
        (["--warmup-frac", "1.5"], "--warmup-frac"),
        (["--format", "xml"], "--format"),
        (["--on-full", "explode"], "--on-full"),
        (["--duration-s", "abc"], "--duration-s"),
        (["--bogus"], "--bogus"),
        # One per allowed CPU is one too many (the dispatcher has a CPU), without --oversubscribe.
        (["--workers", str(len(os.sched_getaffinity(0)))], "--workers"),
        (["--dispatch", "jbsq:0"], "--dispatch"),
        (["--dispatch", "jbsq:x"], "--dispatch"),
        (["--dispatcher-works"], "--dispatcher-works"),  # needs central or jbsq:K
        (["--dispatch", "central", "--dispatcher-works", "--preempt", "signal"], "--dispatcher-works"),
        (["--max-load", "untouched:p99-us<=3"], "untouched:p99-us<=3"),  # the prefix, then no class
        (["--idle", "sleep"], "--idle"),
        (["--idle", "block", "--idle-spin-us", "-1"], "--idle-spin-us"),
        (["--idle-spin-us", "nan"], "--idle-spin-us"),
        (["--seed", "18446744073709551616"], "--seed"),  # one past 2^64 - 1: refused, not clamped
        (["--seed", "-1"], "--seed"),
        (["--seed", "0x10"], "--seed"),
    ],
)
def test_bad_input_exits_2_naming_the_option(run_quanta, args, named):
    proc = run_quanta("run", *args)
    assert proc.returncode == 2, proc.stderr
    assert named in proc.stderr
    assert proc.stdout == ""


def check_summary(entry):
    assert SUMMARY_KEYS <= set(entry["sojourn_us"])
    assert SUMMARY_KEYS <= set(entry["slowdown"])
    assert entry["count"] >= 0
    assert entry["preemptions_per_request"] >= 0
    assert 0 <= entry["share_slowdown_over_10"] <= 1


def test_json_has_the_documented_schema(run_json):
    out = run_json("run", "--workload", "extreme-bimodal", "--load", "0.3", "--duration-s", "0.3", "--seed", "3")
    assert out["mode"] == "run"
    config = out["config"]
    for key in ["workload", "load", "rate_rps", "workers", "quantum_us", "local", "dispatch", "preempt",
                "duration_s", "warmup_frac", "seed"]:
        assert key in config, key
    assert config["local"] == "ps" and config["dispatch"] == "jsq-msq" and config["preempt"] == "clock"
    assert config["quantum_us"] == 2.0 and config["workers"] >= 1
    assert set(out["classes"]) == {"0.5", "500"}
    assert out["classes"]["0.5"]["label"] == "short"
    assert out["classes"]["500"]["label"] == "long"
    for entry in out["classes"].values():
        check_summary(entry)
    check_summary(out["overall"])
    requests = out["requests"]
    assert requests["generated"] == requests["completed"] + requests["dropped"]
    assert requests["measured"] == out["overall"]["count"]
    assert requests["measured"] < requests["completed"]  # the warm-up is left out
    assert out["rates"]["offered_rps"] > 0 and out["rates"]["achieved_rps"] > 0
    # Slowdown is sojourn over service time, so never below 1 (to histogram precision).
    assert out["classes"]["0.5"]["slowdown"]["p50"] >= 0.999
    # The same statistics over the requests no host stall touched: a subset in every count.
    untouched = out["untouched"]
    assert set(untouched["classes"]) == set(out["classes"])
    assert untouched["requests"] == untouched["overall"]["count"] <= requests["measured"]
    assert requests["stall_touched"] == requests["measured"] - untouched["requests"]
    for key, entry in out["classes"].items():
        subset = untouched["classes"][key]
        check_summary(subset)
        assert subset["label"] == entry["label"]
        assert subset["count"] <= entry["count"]
        assert subset["count"] + entry["stall_touched"] == entry["count"]
    check_summary(untouched["overall"])


def test_policy_lists_run_each_combination_on_the_same_arrivals(run_json):
    out = run_json("run", "--workload", "fixed1", "--load", "0.2", "--duration-s", "0.2", "--local", "ps,fcfs",
                   "--dispatch", "jsq-msq,po2")
    runs = out["runs"]
    assert [(r["config"]["local"], r["config"]["dispatch"]) for r in runs] == [
        ("ps", "jsq-msq"), ("ps", "po2"), ("fcfs", "jsq-msq"), ("fcfs", "po2")]
    assert len({r["requests"]["generated"] for r in runs}) == 1


def test_rate_rps_sets_the_offered_rate(run_json):
    out = run_json("run", "--workload", "exp1", "--rate-rps", "20000", "--duration-s", "0.2")
    assert out["config"]["rate_rps"] == 20000
    # Poisson count over 0.2 s at 20k/s: mean 4000, sd 63.
    assert abs(out["requests"]["generated"] - 4000) < 6 * 63


def test_text_output_shows_runs_side_by_side(run_quanta):
    proc = run_quanta("run", "--workload", "high-bimodal", "--load", "0.2", "--duration-s", "0.2",
                      "--local", "ps,fcfs", check=True)
    assert "ps/jsq-msq/clock" in proc.stdout and "fcfs/jsq-msq/clock" in proc.stdout
    assert "class short (1 us" in proc.stdout and "class long (100 us" in proc.stdout
    assert "slowdown p99.9" in proc.stdout
    # Whether any request was touched depends on the host; the count row is always there.
    assert "requests a stall touched" in proc.stdout


def test_calibrate_prints_every_measurement(run_quanta, tmp_path):
    out_file = tmp_path / "calibration.json"
    proc = run_quanta("calibrate", "--flag-samples", "100", "--output", str(out_file), check=True)
    import json
    data = json.loads(proc.stdout)
    assert json.loads(out_file.read_text()) == data
    for key in ["tsc_read_ns", "quantum_round_trip_ns", "signal_cpu_cost_ns"]:
        assert data[key] >= 0, key
    assert data["probe_ns"]["clock"] >= 0 and data["probe_ns"]["flag"] >= 0
    dispatch = data["dispatch_ns_per_request"]
    for key in ["dispatcher_only", "two_level_noop", "central_noop", "jbsq2_noop"]:
        assert dispatch[key] > 0, key
    for key in ["flag_notification_ns", "signal_preemption_ns"]:
        assert 0 < data[key]["p50"] <= data[key]["p99"], key
    assert data["dispatch_ns_per_request"]["dispatcher_only"] > 0
    assert data["user_interrupts"]["usable"] is False  # never emulated
    assert data["machine"]["cpus"] >= 1
    assert data["monitor_poll_ns"] > 0
    assert data["requeue_ns"] == max(0, dispatch["central_noop"] - dispatch["two_level_noop"])
    # The simulator reads what calibrate writes, each mechanism's costs included.
    sim = run_quanta("sim", "--jobs", "2000", "--workers", "2", "--calibration", str(out_file), "--format", "json",
                     check=True)
    overheads = json.loads(sim.stdout)["sim"]["overheads"]
    assert overheads["flag_notification_ns"] == data["flag_notification_ns"]["p50"]
    assert overheads["signal_latency_ns"] == data["signal_preemption_ns"]["p50"]
    assert overheads["signal_cpu_ns"] == data["signal_cpu_cost_ns"]
    assert overheads["monitor_poll_ns"] == data["monitor_poll_ns"]
    assert overheads["preempt_overhead_ns"] == data["quantum_round_trip_ns"]
    assert overheads["requeue_ns"] == data["requeue_ns"]


def test_calibrate_on_one_cpu_measures_what_one_cpu_can(quanta_bin, tmp_path):
    # Pinned to one CPU (as `taskset -c 0` pins it), the measurements that time one CPU from
    # another cannot run: they are listed as not measured instead of spinning for ever, and
    # what is left is still a calibration file the simulator reads.
    out_file = tmp_path / "one_cpu.json"
    first_cpu = min(os.sched_getaffinity(0))
    proc = subprocess.run([quanta_bin, "calibrate", "--output", str(out_file)], capture_output=True, text=True,
                          timeout=120, preexec_fn=lambda: os.sched_setaffinity(0, {first_cpu}))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["machine"]["cpus"] == 1
    assert data["quantum_round_trip_ns"] > 0 and data["tsc_read_ns"] > 0
    assert data["probe_ns"]["clock"] >= 0 and data["probe_ns"]["flag"] >= 0
    two_cpu = {"flag_notification_ns", "dispatch_ns_per_request", "signal_preemption_ns", "signal_cpu_cost_ns",
               "requeue_ns"}
    assert set(data["not_measured"]) == two_cpu
    assert not two_cpu & set(data)
    assert "one CPU" in proc.stderr and "not measured" in proc.stderr
    sim = subprocess.run([quanta_bin, "sim", "--jobs", "1000", "--calibration", str(out_file), "--format", "json"],
                         capture_output=True, text=True, timeout=60)
    assert sim.returncode == 0, sim.stderr
    assert json.loads(sim.stdout)["sim"]["overheads"]["preempt_overhead_ns"] == data["quantum_round_trip_ns"]


def test_calibrate_rejects_bad_options(run_quanta):
    proc = run_quanta("calibrate", "--flag-samples", "1")
    assert proc.returncode == 2 and "--flag-samples" in proc.stderr


@pytest.mark.parametrize("idle", ["yield", "block"])
@pytest.mark.parametrize("dispatch", ["jsq-msq", "central"])
def test_idle_modes_serve_every_request(run_json, dispatch, idle):
    # Yielding idle threads still see every request (a yield returns at once when nothing
    # else wants the CPU); blocking ones sleep until the next arrival is near and are woken
    # by each hand-over. The report says which idle mode ran.
    out = run_json("run", "--idle", idle, "--dispatch", dispatch, "--workload", "bimodal:90:1:50", "--load", "0.5",
                   "--duration-s", "0.2")
    assert out["config"]["idle"] == idle
    assert out["requests"]["generated"] == out["requests"]["completed"] > 0


@pytest.mark.parametrize("spin_us", ["0", "20"])
def test_idle_block_sleeps_at_a_low_rate(run_json, spin_us):
    # 1 us requests at load 0.001: a millisecond between arrivals, and the threads sleep
    # through most of it (at once with --idle-spin-us 0).
    out = run_json("run", "--idle", "block", "--idle-spin-us", spin_us, "--workload", "fixed1", "--load", "0.001",
                   "--duration-s", "0.3")
    assert out["config"]["idle_spin_us"] == float(spin_us)
    assert out["requests"]["generated"] == out["requests"]["completed"] > 100
    sleeps = out["runtime"]["idle_sleeps"]
    assert sleeps["dispatcher"] > 0 and sleeps["workers"] > 0
    spun = run_json("run", "--workload", "fixed1", "--load", "0.001", "--duration-s", "0.1")
    assert spun["runtime"]["idle_sleeps"] == {"dispatcher": 0, "workers": 0}


def test_central_dispatch_reports_its_counters(run_json):
    out = run_json("run", "--dispatch", "jbsq:2", "--workload", "bimodal:90:1:50", "--load", "0.9",
                   "--duration-s", "0.2", "--dispatcher-works")
    assert out["config"]["dispatch"] == "jbsq:2"
    assert out["config"]["dispatcher_works"] is True
    central = out["runtime"]["central"]
    assert set(central) == {"migrations", "requeued", "max_outstanding_per_worker", "dispatcher_requests", "steals"}
    assert 1 <= central["max_outstanding_per_worker"] <= 2
    assert central["requeued"] > 0  # 50 us requests, 2 us quanta
    assert out["requests"]["generated"] == out["requests"]["completed"]


def spin_app(quanta_bin, kind):
    # The built-in spin app's builds sit in lib/quanta/apps beside the command
    # (apps/synthetic/CMakeLists.txt): the handler compiled by the pass in clock and in flag
    # mode, and once plain.
    return str(Path(quanta_bin).resolve().parent.parent / "lib" / "quanta" / "apps" / f"spin-{kind}.so")


@pytest.mark.parametrize("kind", ["clock", "flag"])
def test_probes_lists_the_instrumented_spin_handler(run_quanta, quanta_bin, kind):
    path = spin_app(quanta_bin, kind)
    proc = run_quanta("probes", path, check=True)
    lines = proc.stdout.splitlines()
    assert lines[0].split() == ["mode", "probes", "lock_sites", "functions", "twins", "module"]
    rows = [line.split() for line in lines[1:-1]]
    assert {row[0] for row in rows if row[-1].endswith("spin_handler.c")} == {kind}
    # Flag mode gives each instrumented function a clock twin, counted apart; clock has none.
    handler = [row for row in rows if row[-1].endswith("spin_handler.c")][0]
    assert int(handler[4]) == (int(handler[3]) if kind == "flag" else 0)
    total = lines[-1].split()
    assert total[0] == "total"
    assert int(total[1]) == sum(int(row[1]) for row in rows) > 0
    assert path in lines[-1]


def test_probes_json_has_one_object_per_record(run_json, quanta_bin):
    path = spin_app(quanta_bin, "flag")
    out = run_json("probes", path)
    assert out["path"] == path
    for obj in out["objects"]:
        assert set(obj) == {"module", "mode", "probes", "lock_sites", "functions", "twins"}
        assert obj["mode"] in {"clock", "flag", "counter", "locks"}
    assert {o["mode"] for o in out["objects"] if o["module"].endswith("spin_handler.c")} == {"flag"}
    assert out["total_probes"] == sum(o["probes"] for o in out["objects"]) > 0
    plain = run_json("probes", spin_app(quanta_bin, "plain"))
    assert plain["objects"] == [] and plain["total_probes"] == 0


def test_probes_on_a_binary_without_instrumented_objects(run_quanta, run_json):
    import sys
    proc = run_quanta("probes", sys.executable, check=True)
    assert "no instrumented objects" in proc.stdout
    out = run_json("probes", sys.executable)
    assert out["objects"] == [] and out["total_probes"] == 0


@pytest.mark.parametrize("content, problem", [(None, "No such file"), ("just text\n", "not an ELF file")])
def test_probes_bad_input_exits_2_naming_the_path(run_quanta, tmp_path, content, problem):
    path = tmp_path / "input"
    if content is not None:
        path.write_text(content)
    proc = run_quanta("probes", str(path))
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("quanta: ")
    assert str(path) in proc.stderr and problem in proc.stderr
    assert proc.stdout == ""


def test_probes_rejects_bad_options(run_quanta, quanta_bin):
    proc = run_quanta("probes", quanta_bin, "--format", "xml")
    assert proc.returncode == 2 and "--format" in proc.stderr
    proc = run_quanta("probes")
    assert proc.returncode == 2 and "probes --help" in proc.stderr


SHORT_RUN = ["--duration-s", "0.2", "--workload", "bimodal:90:1:50", "--load", "0.5"]


def test_version(run_quanta):
    proc = run_quanta("--version", check=True)
    assert proc.stdout.split()[0] == "quanta" and proc.stdout.split()[1].count(".") == 2


def test_spin_app_through_app_gives_the_default_counts(run_json, quanta_bin):
    builds = ",".join(spin_app(quanta_bin, kind) for kind in ("clock", "flag", "plain"))
    default = run_json("run", *SHORT_RUN, "--preempt", "clock,flag,signal")["runs"]
    explicit = run_json("run", *SHORT_RUN, "--preempt", "clock,flag,signal", "--app", builds)["runs"]
    for a, b in zip(default, explicit):
        assert a["requests"]["generated"] == b["requests"]["generated"]  # the same schedule
        assert b["requests"]["generated"] == b["requests"]["completed"] + b["requests"]["dropped"]
        assert b["config"]["app"] == "spin" and b["config"]["app_path"] == builds
        assert b["classes"]["50"]["slowdown_basis"] == "nominal"
        # The build with the probes each mechanism needs was loaded: clock probes preempt a
        # 50 us request every 2 us; how often the dispatcher's monitor gets round to a flag
        # or a signal depends on how busy the machine is, so those only need to happen.
        floor = 1 if b["config"]["preempt"] == "clock" else 0
        assert b["classes"]["50"]["preemptions_per_request"] > floor, b["config"]["preempt"]
        if b["config"]["preempt"] == "signal":
            # spin-plain.so's handler is in its own quanta_text section, which the loader
            # registers: some signals switch right in the handler (most land in the
            # runtime's CPU-time call and wait for it to return: deferred).
            assert b["runtime"]["signals"]["switched"] > 0, b["runtime"]["signals"]


def test_app_build_is_chosen_by_its_probes(run_quanta, quanta_bin):
    proc = run_quanta("run", *SHORT_RUN, "--app", spin_app(quanta_bin, "clock"), "--preempt", "flag")
    assert proc.returncode == 2
    assert "no build for --preempt flag" in proc.stderr and "flag probes" in proc.stderr
    # A build without probes runs, with a warning that says what that means.
    proc = run_quanta("run", *SHORT_RUN, "--app", spin_app(quanta_bin, "plain"), "--preempt", "clock", check=True)
    assert "has no probes" in proc.stderr


@pytest.mark.parametrize("path, problem", [("", "must name a shared object"),
                                            ("/nonexistent/app.so", "cannot load"),
                                            ("/lib/x86_64-linux-gnu/libm.so.6", "exports no quanta_app_entry")])
def test_bad_app_exits_2_naming_it(run_quanta, path, problem):
    proc = run_quanta("run", *SHORT_RUN, "--app", path)
    assert proc.returncode == 2, proc.stderr
    assert path in proc.stderr and problem in proc.stderr
    assert proc.stdout == ""


def test_payload_buffer_too_small_for_the_spin_app_is_refused(run_quanta):
    proc = run_quanta("run", *SHORT_RUN, "--max-payload-bytes", "4")
    assert proc.returncode == 2 and "--max-payload-bytes" in proc.stderr


OVERLOAD = ["--workload", "fixed:20", "--load", "3", "--duration-s", "0.05", "--ring-capacity", "2",
            "--task-slots", "2", "--warmup-frac", "0"]


def test_an_overloaded_run_warns_and_strict_fails_it(run_quanta):
    proc = run_quanta("run", *OVERLOAD, "--format", "json", check=True)
    codes = {w["code"] for w in json.loads(proc.stdout)["warnings"]}
    assert {"late_dispatches", "full_ring_waits"} <= codes
    text = run_quanta("run", *OVERLOAD, check=True)
    assert "warning (ps/jsq-msq/clock): the dispatcher waited" in text.stdout
    strict = run_quanta("run", *OVERLOAD, "--strict")
    assert strict.returncode == 3
    assert "--strict" in strict.stderr


def test_more_threads_than_cpus_warns(run_quanta):
    cpus = len(os.sched_getaffinity(0))
    proc = run_quanta("run", "--workers", str(cpus), "--oversubscribe", "--duration-s", "0.05", "--format", "json",
                      check=True)
    warnings = json.loads(proc.stdout)["warnings"]
    assert "shared_cpus" in {w["code"] for w in warnings}


RUN_FLOAT_OPTIONS = ["--load", "--rate-rps", "--quantum-us", "--backstop-us", "--duration-s", "--warmup-frac",
                     "--stall-threshold-us"]


@pytest.mark.parametrize("option", RUN_FLOAT_OPTIONS)
@pytest.mark.parametrize("value, problem", [("nan", "a finite number"), ("inf", "a finite number"),
                                            ("-inf", "a finite number"), ("1e400", "a finite number"),
                                            ("abc", "a number")])
def test_float_options_refuse_what_is_no_finite_number(run_quanta, option, value, problem):
    proc = run_quanta("run", option, value)
    assert proc.returncode == 2, proc.stderr
    assert f"{option}: must be {problem}" in proc.stderr
    assert len(proc.stderr) < 400  # no 309-digit bounds


@pytest.mark.parametrize("option", ["--deadline-runtime-us", "--deadline-period-us"])
def test_deadline_options_refuse_nan(run_quanta, option):
    proc = run_quanta("run", "--runtime", "linux", "--linux-policy", "deadline", option, "nan")
    assert proc.returncode == 2 and f"{option}: must be a finite number" in proc.stderr


def test_more_task_stacks_than_the_kernel_maps_is_a_usage_error(run_quanta):
    # Each stack's guard page costs two of the kernel's memory maps (vm.max_map_count); a run
    # that needs more must say so before it starts, naming the option.
    limit = int(Path("/proc/sys/vm/max_map_count").read_text())
    slots = min(limit // 2 + 1, 65536)  # above 65536 the option's own range refuses it
    proc = run_quanta("run", "--workers", "1", "--task-slots", str(slots), "--duration-s", "0.1")
    assert proc.returncode == 2, proc.stderr
    assert "--task-slots" in proc.stderr


def test_an_unknown_command_is_named(run_quanta):
    proc = run_quanta("bogus")
    assert proc.returncode == 2
    assert "unknown command 'bogus'" in proc.stderr and "run, sim, serve" in proc.stderr
    proc = run_quanta()
    assert proc.returncode == 2 and "subcommand is required" in proc.stderr


# The watchdog (runtime/quantum_watchdog.h). spin-plain.so has no probes, so a request of
# 3 s runs its whole length in one quantum: a run with --watchdog-ms ends on it instead of
# waiting, exit 1, naming the worker and the request, with the counts so far.
def test_watchdog_ends_a_run_stuck_in_one_quantum(run_quanta, quanta_bin):
    proc = run_quanta("run", "--app", spin_app(quanta_bin, "plain"), "--workload", "fixed:3000000",
                      "--rate-rps", "2", "--duration-s", "1", "--quantum-us", "5", "--watchdog-ms", "200")
    assert proc.returncode == 1, proc.stderr
    assert "watchdog: worker 0 has run request 0 for " in proc.stderr
    assert "ending the run. So far: 0 requests finished (worker 0: 0)" in proc.stderr
    assert proc.stdout == ""


def test_overruns_are_reported_with_where_the_task_was(run_quanta, quanta_bin):
    proc = run_quanta("run", "--app", spin_app(quanta_bin, "plain"), "--workload", "fixed:20000",
                      "--rate-rps", "20", "--duration-s", "0.5", "--warmup-frac", "0", "--quantum-us", "5",
                      "--overrun-report-quanta", "400", "--format", "json", check=True)
    report = json.loads(proc.stdout)
    overruns = report["runtime"]["overruns"]
    # Every 20 ms request overran its 2 ms mark (the last may still have been running at
    # the stop and been reported too).
    assert overruns["count"] >= report["requests"]["completed"] >= 5, overruns
    first = overruns["first"][0]
    assert first["worker"] == 0 and first["elapsed_us"] >= 2000
    assert "overruns" in [w["code"] for w in report["warnings"]]
    assert f"watchdog: request {first['request_id']} on worker 0 ran " in proc.stderr
    # Where the task was, sampled by a signal: the handler, or the runtime's CPU-time call
    # it spins on. Only "unknown" if no sample came back within 50 ms.
    assert any(o["where"] for o in overruns["first"]), overruns


def test_no_overruns_where_quanta_have_no_length(run_quanta, quanta_bin):
    proc = run_quanta("run", "--app", spin_app(quanta_bin, "plain"), "--workload", "fixed:20000",
                      "--rate-rps", "20", "--duration-s", "0.3", "--quantum-us", "5", "--preempt", "none",
                      "--overrun-report-quanta", "400", "--format", "json", check=True)
    assert json.loads(proc.stdout)["runtime"]["overruns"]["count"] == 0


@pytest.mark.parametrize("option, value", [("--watchdog-ms", "-1"), ("--watchdog-ms", "nan"),
                                           ("--overrun-report-quanta", "inf"), ("--overrun-report-quanta", "-3")])
def test_watchdog_options_refuse_bad_values(run_quanta, option, value):
    proc = run_quanta("run", *SHORT_RUN, option, value)
    assert proc.returncode == 2 and option in proc.stderr, proc.stderr


def test_dispatcher_works_under_flag_runs_requests_on_the_dispatcher(run_json):
    # Concord's configuration: flag-probed workers, and a dispatcher that runs requests
    # itself in the clock twin the pass made of the spin handler (spin-flag.so).
    out = run_json("run", "--dispatch", "central", "--dispatcher-works", "--preempt", "flag",
                   "--workload", "bimodal:90:1:50", "--load", "0.9", "--duration-s", "0.2")
    assert out["config"]["preempt"] == "flag" and out["config"]["dispatcher_works"] is True
    assert out["runtime"]["central"]["dispatcher_requests"] > 0
    assert out["runtime"]["central"]["requeued"] > 0  # 50 us requests, 2 us quanta
    assert out["requests"]["generated"] == out["requests"]["completed"]


def spin_app_without_twins(quanta_bin, tmp_path):
    """The spin app compiled by quanta-clang in flag mode with twins turned off."""
    bin_dir = Path(quanta_bin).resolve().parent
    src = ROOT / "apps" / "synthetic"
    out = tmp_path / "spin-flag-no-twins.so"
    env = dict(os.environ, QUANTA_MODE="flag", QUANTA_FLAG_TWINS="0", QUANTA_NO_RUNTIME="1")
    subprocess.run([str(bin_dir / "quanta-clang"), "-O2", "-shared", "-fPIC", "-fvisibility=hidden",
                    "-DSPIN_HANDLER=synthetic_spin_handle_flag", f"-I{ROOT / 'include'}", f"-I{src}",
                    str(src / "spin_app.c"), str(src / "spin_export.c"), str(src / "spin_handler.c"),
                    "-o", str(out)], check=True, env=env, capture_output=True, text=True, timeout=300)
    return str(out)


@pytest.mark.parametrize("build", ["plain", "no-twins"])
def test_dispatcher_works_under_flag_refuses_a_handler_without_a_twin(run_quanta, quanta_bin, tmp_path, build):
    path = spin_app(quanta_bin, "plain") if build == "plain" else spin_app_without_twins(quanta_bin, tmp_path)
    if build == "no-twins":
        rows = [line.split() for line in run_quanta("probes", path, check=True).stdout.splitlines()[1:-1]]
        assert rows and all(row[0] == "flag" and row[4] == "0" for row in rows)
    proc = run_quanta("run", "--app", path, "--dispatch", "central", "--dispatcher-works", "--preempt", "flag",
                      "--duration-s", "0.1")
    assert proc.returncode == 2, proc.stderr
    assert "--dispatcher-works" in proc.stderr and "clock twin" in proc.stderr
    assert path in proc.stderr  # names the object
    # Clock probes need no twin: the same build runs with --preempt clock (the plain one
    # only warns that it has no probes).
    if build == "plain":
        run_quanta("run", "--app", path, "--dispatch", "central", "--dispatcher-works", "--preempt", "clock",
                   "--duration-s", "0.1", check=True)
