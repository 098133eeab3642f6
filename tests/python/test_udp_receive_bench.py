"""quanta-bench-udp-receive runs every receive method briefly and reports counts.

Counts only: the figures themselves depend on the machine and what else runs on it.
"""
import json
import subprocess

import pytest

from conftest import BUILD_DIR

BENCH = BUILD_DIR / "bin" / "quanta-bench-udp-receive"
METHODS = ["recv", "recvmmsg", "epoll_recvmmsg", "io_uring", "io_uring_coop"]


def run_bench(*args):
    if not BENCH.exists():
        pytest.skip(f"{BENCH} not built (benches are off in this build)")
    return subprocess.run([str(BENCH), *args], capture_output=True, text=True, timeout=120)


def test_every_method_receives_datagrams():
    proc = run_bench("--seconds", "0.05", "--repetitions", "1", "--empty-poll-samples", "100")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert sorted(out["methods"]) == sorted(METHODS)
    assert out["datagram_bytes"] == 24 and out["batch"] == 32
    for name, method in out["methods"].items():
        run = method["runs"][0]
        assert run["datagrams"] > 0, name
        assert run["sent"] >= run["datagrams"], name
        assert run["empty_poll_ns"] > 0, name


def test_methods_subset_and_repetitions():
    proc = run_bench("--seconds", "0.02", "--repetitions", "2", "--methods", "recvmmsg,io_uring",
                     "--empty-poll-samples", "10", "--rate-dps", "50000")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert sorted(out["methods"]) == ["io_uring", "recvmmsg"]
    for method in out["methods"].values():
        assert len(method["runs"]) == 2
        assert method["datagrams"] > 0


@pytest.mark.parametrize("args", [["--methods", "select"], ["--seconds", "0"], ["--repetitions", "x"],
                                  ["--datagram-bytes", "8"], ["--sender-cpu", "-1"]])
def test_bad_options_exit_2(args):
    proc = run_bench(*args)
    assert proc.returncode == 2, proc.stderr
    assert "quanta-bench-udp-receive:" in proc.stderr
