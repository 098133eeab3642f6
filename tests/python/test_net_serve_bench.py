"""bench/net_serve_bench.py --quick runs every configuration and reports its shape.

Counts only: the rates and latencies depend on the machine and what else runs on it.
"""
import json
import subprocess
import sys

from conftest import BUILD_DIR, ROOT

BENCH = ROOT / "bench" / "net_serve_bench.py"
CONFIGURATIONS = {"udp-worker": "worker", "udp-dispatcher": "dispatcher", "tcp": None}


def test_quick_run_reports_every_configuration(tmp_path):
    out_file = tmp_path / "bench.json"
    proc = subprocess.run([sys.executable, str(BENCH), "--quick", "--build-dir", str(BUILD_DIR), "--out",
                           str(out_file)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert json.loads(out_file.read_text()) == out
    assert out["bench"] == "net_serve" and out["config"]["quick"] is True
    cpus = out["cpus"]
    assert cpus["client"] in cpus["allowed"] and cpus["server_dispatcher"] in cpus["allowed"]
    assert all(cpu in cpus["allowed"] for cpu in cpus["server_workers"])
    assert set(out["configurations"]) == set(CONFIGURATIONS)
    for name, udp_replies in CONFIGURATIONS.items():
        c = out["configurations"][name]
        transport = name.split("-")[0]
        assert c["transport"] == transport
        if udp_replies is not None:
            assert c["server_config_udp_replies"] == udp_replies
            assert ["--udp-replies", udp_replies] == c["commands"]["serve"][-2:]
        assert c["search"], name
        for step in c["search"]:
            assert {"rate_rps", "sent", "answered", "overloaded", "passed", "p50_us", "p99_us"} <= set(step)
        # Every configuration answered requests, and the server counted what it answered.
        assert sum(step["answered"] for step in c["search"]) > 0, name
        assert c["server_network"]["replies_ok"] >= sum(step["answered"] for step in c["search"]), name
        assert isinstance(c["sustained_rps"], int)
        if c["sustained_rps"] > 0:
            assert c["half_rate"]["sent"] > 0
        assert len(c["commands"]["load"]) == len(c["search"]) + (1 if c["half_rate"] else 0)


def test_quick_run_with_the_one_thread_layout(tmp_path):
    # --dispatcher-only: the server is one thread, pinned with taskset to the last CPU, and
    # the client keeps the first; every configuration still answers.
    # With --tcp-poll io_uring, which reaches the TCP server only.
    proc = subprocess.run([sys.executable, str(BENCH), "--quick", "--dispatcher-only", "--server-idle", "block",
                           "--tcp-poll", "io_uring", "--build-dir", str(BUILD_DIR)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["config"]["dispatcher_only"] is True and out["config"]["server_idle"] == "block"
    assert out["config"]["tcp_poll"] == "io_uring"
    for name, c in out["configurations"].items():
        serve = c["commands"]["serve"]
        assert ("--tcp-poll" in serve) == (name == "tcp"), name
    assert out["configurations"]["tcp"]["server_network"]["poll_ring_errors"] == 0
    cpus = out["cpus"]
    assert cpus["server_workers"] == [] and cpus["server_dispatcher"] == max(cpus["allowed"])
    for name, c in out["configurations"].items():
        serve = c["commands"]["serve"]
        assert serve[:3] == ["taskset", "-c", str(cpus["server_dispatcher"])] and "--dispatcher-only" in serve, name
        assert sum(step["answered"] for step in c["search"]) > 0, name
