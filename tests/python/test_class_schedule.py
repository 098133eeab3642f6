"""Latency-critical and best-effort classes (`--class-schedule`) in `quanta run`, `quanta
sim` and `quanta serve`: the per-class accounting in the JSON, and the refusals (exit 2,
naming the option) where a schedule cannot apply. Counts only, never timings."""
import json

import pytest

from test_serve import serve  # noqa: F401  (the fixture)

# Class 0 is the 1 us requests (LC), class 1 the 200 us ones (BE).
WORKLOAD = "bimodal:90:1:200"
USAGE_KEYS = {"index", "kind", "priority", "runtime_us", "period_us", "capped", "budget_share", "quanta",
              "budget_ended_quanta", "throttled_spells", "admissions_deferred", "cpu_ms", "cpu_share"}


def check_schedule(out, spec, kinds):
    schedule = out["class_schedule"]
    assert schedule["spec"] == spec
    classes = schedule["classes"]
    assert [c["kind"] for c in classes] == kinds
    for i, c in enumerate(classes):
        assert set(c) == USAGE_KEYS, set(c) ^ USAGE_KEYS
        assert c["index"] == i
        assert 0.0 <= c["cpu_share"] <= 1.0
        assert c["budget_ended_quanta"] <= c["quanta"]
    return classes


def test_run_reports_each_scheduled_class_and_its_share(run_json):
    spec = "lc,be:30/100"
    out = run_json("run", "--workload", WORKLOAD, "--workers", "1", "--load", "0.5", "--quantum-us", "5",
                   "--duration-s", "0.3", "--class-schedule", spec)
    assert out["config"]["class_schedule"] == spec
    lc, be = check_schedule(out, spec, ["lc", "be"])
    assert (lc["runtime_us"], lc["period_us"], lc["capped"], lc["priority"]) == (0, 0, False, 1)
    assert (be["runtime_us"], be["period_us"], be["capped"]) == (30, 100, False)
    assert be["budget_share"] == pytest.approx(0.3)
    # Every quantum the worker ran belongs to one class; both classes ran some.
    assert lc["quanta"] + be["quanta"] == out["runtime"]["quanta"]
    assert lc["quanta"] > 0 and be["quanta"] > 0
    # 200 us BE requests in 5 us quanta: several quanta each, so BE ran more quanta than it
    # had requests, and LC none that were cut by a budget.
    assert be["quanta"] > out["classes"]["200"]["count"]
    assert lc["budget_ended_quanta"] == 0
    assert out["requests"]["completed"] == out["requests"]["generated"]


def test_run_without_a_schedule_has_no_class_schedule_section(run_json):
    out = run_json("run", "--workload", WORKLOAD, "--workers", "1", "--duration-s", "0.1")
    assert "class_schedule" not in out


def test_text_output_has_a_row_per_class(run_quanta):
    proc = run_quanta("run", "--workload", WORKLOAD, "--workers", "1", "--duration-s", "0.2",
                      "--class-schedule", "lc,be:20/100:cap", check=True)
    assert "class 0 lc cpu (cut)" in proc.stdout and "class 1 be cpu (cut)" in proc.stdout


def test_sim_reports_the_same_accounting(run_json):
    spec = "lc,be:18/100"
    out = run_json("sim", "--workload", WORKLOAD, "--workers", "1", "--load", "0.7", "--quantum-us", "5",
                   "--duration-s", "0.5", "--class-schedule", spec)
    lc, be = check_schedule(out, spec, ["lc", "be"])
    assert lc["quanta"] + be["quanta"] == out["runtime"]["quanta"]
    assert be["budget_ended_quanta"] > 0, "18 us budgets under 5 us quanta end BE quanta early"


def test_a_capped_class_is_throttled_in_the_simulator(run_json):
    # BE offered about 0.6 of the CPU and allowed 0.1: it must sit out periods.
    out = run_json("sim", "--workload", WORKLOAD, "--workers", "1", "--load", "0.7", "--quantum-us", "5",
                   "--duration-s", "0.2", "--class-schedule", "lc,be:10/100:cap")
    be = out["class_schedule"]["classes"][1]
    assert be["throttled_spells"] > 0
    # The simulator stops at the end of the arrivals with BE requests unfinished: the
    # share is over the whole simulated span, and at most the budget.
    assert out["requests"]["completed"] < out["requests"]["generated"]
    assert be["cpu_share"] <= 0.1 + 1e-9


@pytest.mark.parametrize(
    "args, named",
    [
        (["--class-schedule", "lc,be", "--dispatch", "central"], "--class-schedule"),
        (["--class-schedule", "lc,be", "--dispatch", "jbsq:2"], "--class-schedule"),
        (["--class-schedule", "lc,be", "--dispatch", "jsq,steal"], "--class-schedule"),
        (["--class-schedule", "lc,bx"], "the kind must be lc or be"),
        (["--class-schedule", "lc,be:30"], "RUNTIME/PERIOD"),
        (["--class-schedule", "lc,be:300/100"], "longer than its period"),
        (["--class-schedule", "lc:cap"], "a cap needs a runtime"),
        (["--class-schedule", "lc,be", "--runtime", "linux"], "--class-schedule"),
    ],
)
def test_run_refuses_a_schedule_where_it_cannot_apply(run_quanta, args, named):
    proc = run_quanta("run", "--duration-s", "0.1", *args)
    assert proc.returncode == 2, proc.stderr
    assert named in proc.stderr
    assert proc.stdout == ""


@pytest.mark.parametrize(
    "args",
    [["--dispatcher-only"], ["--dispatch", "central"], ["--dispatch", "steal"], ["--runtime", "linux"]],
)
def test_serve_refuses_a_schedule_where_it_cannot_apply(run_quanta, args):
    proc = run_quanta("serve", "--class-schedule", "lc,be", "--duration-s", "0.1", *args)
    assert proc.returncode == 2, proc.stderr
    assert "--class-schedule" in proc.stderr


def test_serve_schedules_the_classes_quanta_load_sends(serve, run_quanta):  # noqa: F811
    # The BE tenant's requests are the ones that name the schedule's BE class in their
    # header: quanta load's --workload draws class 1 (200 us) for one request in ten.
    spec = "lc,be:20/100"
    server = serve("--workers", "1", "--workload", WORKLOAD, "--quantum-us", "5", "--class-schedule", spec,
                   listen=("udp://127.0.0.1:0",))
    host, port = server.address["udp"]
    proc = run_quanta("load", "--target", f"udp://{host}:{port}", "--workload", WORKLOAD, "--rate-rps", "2000",
                      "--duration-s", "0.5", "--format", "json")
    assert proc.returncode in (0, 3), proc.stderr
    client = json.loads(proc.stdout)
    report = server.stop()
    lc, be = check_schedule(report, spec, ["lc", "be"])
    served = report["classes"]
    sent = client["classes"]
    # Every answered request of each class ran on its class's queue.
    assert served["1"]["count"] + served["200"]["count"] == report["requests"]["completed"]
    assert served["1"]["count"] >= sent["1"]["count"] > 0
    assert served["200"]["count"] >= sent["200"]["count"] > 0
    assert lc["quanta"] >= served["1"]["count"]
    assert be["quanta"] >= served["200"]["count"]
    assert lc["quanta"] + be["quanta"] == report["runtime"]["quanta"]


def test_a_best_effort_tenant_on_its_own_port(serve, run_quanta):  # noqa: F811
    # --be-listen: every request the tenant's socket takes is the schedule's BE class, even
    # though its client (quanta load --workload fixed:1) names class 0 in every header.
    spec = "lc,be:20/100"
    server = serve("--workers", "1", "--workload", WORKLOAD, "--quantum-us", "5", "--class-schedule", spec,
                   "--be-listen", "udp://127.0.0.1:0", listen=("udp://127.0.0.1:0",))
    # Printed right after the --listen lines the fixture waited for.
    while not any("best-effort tenant" in l for l in server.stderr):
        assert server.lines.get(timeout=60) is not None, "quanta serve exited"
    tenant = [l for l in server.stderr if "best-effort tenant (class 1) on udp://" in l]
    assert len(tenant) == 1, server.stderr
    be_host, be_port = tenant[0].strip().rsplit("udp://", 1)[1].rsplit(":", 1)
    lc_host, lc_port = server.address["udp"]
    counts = {}
    for name, host, port in (("lc", lc_host, lc_port), ("be", be_host, be_port)):
        proc = run_quanta("load", "--target", f"udp://{host}:{port}", "--workload", "fixed:1", "--rate-rps", "1000",
                          "--duration-s", "0.3", "--warmup-frac", "0", "--format", "json")
        assert proc.returncode in (0, 3), proc.stderr
        counts[name] = json.loads(proc.stdout)["client"]["answered"]
        assert counts[name] > 0
    report = server.stop()
    assert report["config"]["be_class"] == 1 and len(report["config"]["be_listen"]) == 1
    served = report["classes"]
    # Every request answered on the LC port ran as class 0, every one on the tenant's as 1.
    assert served["1"]["count"] == counts["lc"]
    assert served["200"]["count"] == counts["be"]
    lc, be = report["class_schedule"]["classes"]
    assert be["quanta"] >= counts["be"] and lc["quanta"] >= counts["lc"]


@pytest.mark.parametrize(
    "args, named",
    [
        (["--be-listen", "udp://127.0.0.1:0"], "--be-listen"),  # no class to put them in
        (["--be-listen", "udp://127.0.0.1:0", "--class-schedule", "lc,lc"], "--be-listen"),
        (["--be-class", "1"], "--be-class"),  # without --be-listen
        (["--be-listen", "udp://localhost:0", "--be-class", "1"], "--be-listen"),
        (["--be-listen", "udp://127.0.0.1:0", "--be-class", "5", "--workload", WORKLOAD], "--be-class"),
    ],
)
def test_be_listen_refusals_exit_2(run_quanta, args, named):
    proc = run_quanta("serve", "--duration-s", "0.1", *args)
    assert proc.returncode == 2, proc.stderr
    assert named in proc.stderr
