"""experiments/tcp_poll_syscalls.py counts the one-thread TCP server's system calls per
request with each --tcp-poll. Counts only, and only their shape: how many idle polls fall
between requests depends on the machine."""
import json
import subprocess
import sys

import pytest

from conftest import BUILD_DIR, ROOT

SCRIPT = ROOT / "experiments" / "tcp_poll_syscalls.py"


def perf_counts_syscalls():
    proc = subprocess.run(["perf", "stat", "-e", "syscalls:sys_enter_getppid", "-x", ",", "--", "true"],
                          capture_output=True, text=True)
    return proc.returncode == 0


def test_short_run_counts_both_methods(tmp_path):
    if not perf_counts_syscalls():
        pytest.skip("perf cannot count system call tracepoints here (not root, or no tracefs)")
    out = tmp_path / "syscalls.json"
    proc = subprocess.run([sys.executable, str(SCRIPT), "--build", str(BUILD_DIR), "--rate-rps", "2000",
                           "--duration-s", "0.5", "--idle", "spin", "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert json.loads(out.read_text()) == result
    assert set(result["methods"]) == {"epoll", "io_uring"}
    for method, m in result["methods"].items():
        net = m["server_network_tcp"]
        assert m["answered"] == m["sent"] > 0, method
        assert net["requests"] == net["replies_ok"] == m["sent"], method
        # Every request was read and answered by a system call of its own at least.
        assert m["syscalls_per_request"] >= 1.0, method
        # One write per reply: sendmsg straight from the record (the usual case), or send
        # (sendto) of a backlog the kernel would not take at once.
        calls = m["per_request_by_call"]
        assert calls.get("sendmsg", 0) + calls.get("sendto", 0) >= 0.99, method
        assert m["commands"]["serve"][m["commands"]["serve"].index("--tcp-poll") + 1] == method
    # A spinning server polls far more often than requests come; with the ring only the
    # polls after something arrived ask epoll.
    ring = result["methods"]["io_uring"]["server_network_tcp"]
    assert ring["epoll_waits"] <= 2 * (ring["requests"] + ring["connections"]) + 20
    assert ring["poll_ring_errors"] == 0
