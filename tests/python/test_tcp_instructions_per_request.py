"""experiments/tcp_instructions_per_request.py counts the one-thread TCP server's user-space
instructions per request under callgrind. Its argument errors, and one short run: counts and
names only (how many instructions a request takes is the script's to report)."""
import json
import shutil
import subprocess
import sys

import pytest

from conftest import BUILD_DIR, ROOT

SCRIPT = ROOT / "experiments" / "tcp_instructions_per_request.py"


@pytest.mark.parametrize("args, named", [
    (["--rate-rps", "0"], "--rate-rps"),
    (["--duration-s", "-1"], "--duration-s"),
    (["--repeat", "0"], "--repeat"),
    (["--idle-spin-us", "-5"], "--idle-spin-us"),
    (["--build", "/nonexistent-build-dir"], "--build"),
    (["--memcached", "/nonexistent-memcached"], "--memcached"),
    (["--quantum-us", "0"], "--quantum-us"),
])
def test_bad_arguments_exit_2_naming_the_option(args, named):
    proc = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert named in proc.stderr


def test_short_run_counts_the_request_path(tmp_path):
    if shutil.which("valgrind") is None or shutil.which("callgrind_annotate") is None:
        pytest.skip("valgrind is not installed")
    out = tmp_path / "ipr.json"
    proc = subprocess.run([sys.executable, str(SCRIPT), "--build", str(BUILD_DIR), "--rate-rps", "300",
                           "--duration-s", "1", "--top", "5", "--out", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    (run,) = result["runs"]
    assert run["requests"] > 0
    assert run["instructions_per_request"] > 0
    assert run["quanta_per_request"] >= 1  # every request runs at least one quantum
    functions = " ".join(run["functions_per_request"])
    # The handler runs on a task's own stack: counted all the same, as are the app's framer
    # and the runtime's quantum around it.
    for name in ("kvcache_handle", "mc_frame_request", "run_own_quantum"):
        assert name in functions, name


def test_memcached_is_counted_per_get_beside_quanta(tmp_path):
    memcached = shutil.which("memcached")
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None or memcached is None:
        pytest.skip("valgrind or memcached is not installed")
    out = tmp_path / "ipr.json"
    proc = subprocess.run([sys.executable, str(SCRIPT), "--build", str(BUILD_DIR), "--memcached", memcached,
                           "--rate-rps", "300", "--duration-s", "1", "--top", "3", "--out", str(out)],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    runs = json.loads(out.read_text())["runs"]
    assert [r["build"] for r in runs] == [str(BUILD_DIR.resolve()), "memcached"]
    mc = runs[1]
    # Every GET the client had answered was counted by memcached after the preload.
    assert mc["requests"] >= mc["answered"] > 0
    # Its threads (worker, listener, LRU maintainer and crawler, clock) are counted apart:
    # the worker ran the most, and no thread ran more than all together.
    assert len(mc["thread_instructions"]) >= 2
    assert 0 < mc["worker_thread_instructions_per_request"] <= mc["instructions_per_request"]
