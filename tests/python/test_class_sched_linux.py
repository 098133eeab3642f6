"""The kernel-thread baseline per class (`--runtime linux --class-sched`): a queue and a pool
of threads per request class, each pool under its own Linux policy. The threads' policies
are read back from the kernel (sched_getscheduler, sched_getparam, getpriority, and
sched_getattr for SCHED_DEADLINE) while a server runs; requests of each class are served
by their own pool; bad specs and combinations exit 2 naming the option. Counts only."""
import ctypes
import json
import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from test_serve import serve, udp_client, udp_round_trips  # noqa: F401 (fixture)

LINUX = ("--runtime", "linux")
SCHED_DEADLINE = 6
SYS_SCHED_GETATTR = 315  # x86_64


class SchedAttr(ctypes.Structure):
    _fields_ = [("size", ctypes.c_uint32), ("sched_policy", ctypes.c_uint32), ("sched_flags", ctypes.c_uint64),
                ("sched_nice", ctypes.c_int32), ("sched_priority", ctypes.c_uint32),
                ("sched_runtime", ctypes.c_uint64), ("sched_deadline", ctypes.c_uint64),
                ("sched_period", ctypes.c_uint64)]


def sched_getattr(tid):
    libc = ctypes.CDLL(None, use_errno=True)
    attr = SchedAttr()
    if libc.syscall(SYS_SCHED_GETATTR, tid, ctypes.byref(attr), ctypes.sizeof(attr), 0) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return attr


def pool_threads(pid):
    """Thread ids of the server's pool threads, by name (quanta-c<class>)."""
    threads = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        name = (task / "comm").read_text().strip()
        if name.startswith("quanta-c"):
            threads.setdefault(int(name[len("quanta-c"):]), []).append(int(task.name))
    return threads


def test_each_class_pool_runs_under_the_policy_asked_for(serve):  # noqa: F811
    server = serve(*LINUX, "--workers", "1", "--threads-per-core", "2", "--workload", "bimodal:50:1:2",
                   "--class-sched", "fifo:50,deadline:300/1000", listen=("udp://127.0.0.1:0",))
    threads = pool_threads(server.proc.pid)
    assert sorted(threads) == [0, 1]
    assert len(threads[0]) == len(threads[1]) == 2
    for tid in threads[0]:
        assert os.sched_getscheduler(tid) == os.SCHED_FIFO
        assert os.sched_getparam(tid).sched_priority == 50
    for tid in threads[1]:
        attr = sched_getattr(tid)
        assert attr.sched_policy == SCHED_DEADLINE
        assert (attr.sched_runtime, attr.sched_deadline, attr.sched_period) == (300_000, 1_000_000, 1_000_000)
    # Requests of both classes are served, each by its class's pool.
    sock = udp_client(server)
    for class_index in (0, 1):
        # The spin app's payload: cycles to spin.
        replies = udp_round_trips(sock, [struct.pack("<Q", 1000)] * 20, class_index=class_index)
        assert len(replies) == 20
    report = server.stop()
    config = report["config"]
    assert (config["local"], config["dispatch"]) == ("sched-per-class", "queue-per-class")
    assert config["class_sched"] == "fifo:50,deadline:300/1000"
    assert [p["spec"] for p in config["class_pools"]] == ["fifo:50", "deadline:300/1000"]
    assert report["runtime"]["kernel"]["threads"] == 4
    assert [c["count"] for c in report["classes"].values()] == [20, 20]


def test_nice_values_and_round_robin(serve):  # noqa: F811
    server = serve(*LINUX, "--workers", "1", "--threads-per-core", "1", "--workload", "bimodal:50:1:2",
                   "--class-sched", "other:-5,rr:7", listen=("udp://127.0.0.1:0",))
    threads = pool_threads(server.proc.pid)
    [lc], [be] = threads[0], threads[1]
    assert os.sched_getscheduler(lc) == os.SCHED_OTHER
    assert os.getpriority(os.PRIO_PROCESS, lc) == -5
    assert os.sched_getscheduler(be) == os.SCHED_RR
    assert os.sched_getparam(be).sched_priority == 7
    server.stop()


def test_run_reports_the_pools(run_json):
    out = run_json("run", *LINUX, "--workload", "bimodal:90:1:50", "--workers", "1", "--threads-per-core", "1",
                   "--load", "0.3", "--duration-s", "0.2", "--class-sched", "other:-2,other:10")
    config = out["config"]
    assert config["class_pools"] == [{"policy": "other", "spec": "other:-2", "nice": -2},
                                     {"policy": "other", "spec": "other:10", "nice": 10}]
    assert "linux_policy" not in config
    assert out["runtime"]["kernel"]["threads"] == 2
    assert out["requests"]["completed"] == out["requests"]["generated"]


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root to drop it")
def test_without_privileges_an_rt_class_fails_the_run_saying_why(quanta_bin):
    # Without CAP_SYS_NICE (and root's RLIMIT_RTPRIO of 0) the kernel refuses SCHED_FIFO: the
    # run fails (exit 1) naming the class and what it needs. The capability is dropped from
    # the bounding set rather than by becoming another user, who might not be able to reach
    # the build (a checkout in a 0700 directory).
    proc = subprocess.run(["setpriv", "--bounding-set", "-sys_nice", "--inh-caps", "-sys_nice", "--", quanta_bin,
                           "run", *LINUX,
                           "--workers", "1", "--threads-per-core", "1", "--duration-s", "0.1",
                           "--class-sched", "other,fifo:50"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert "--class-sched class 1 fifo:50" in proc.stderr and "CAP_SYS_NICE" in proc.stderr, proc.stderr


@pytest.mark.parametrize(
    "args, named",
    [
        (["--class-sched", "fifo:50,other"], "--class-sched"),  # without --runtime linux
        ([*LINUX, "--class-sched", "cfs"], "unknown Linux scheduling policy"),
        ([*LINUX, "--class-sched", "fifo:0"], "RT priority from 1 to 99"),
        ([*LINUX, "--class-sched", "other,rr:100"], "class 1"),
        ([*LINUX, "--class-sched", "other:20"], "nice value"),
        ([*LINUX, "--class-sched", "deadline:300"], "RUNTIME/PERIOD"),
        ([*LINUX, "--class-sched", "deadline:2000/1000"], "longer than the period"),
        ([*LINUX, "--class-sched", "other,fifo", "--linux-policy", "rr"], "--linux-policy"),
        ([*LINUX, "--class-sched", "other,deadline", "--deadline-runtime-us", "100"], "--deadline-runtime-us"),
    ],
)
@pytest.mark.parametrize("command", ["run", "serve"])
def test_bad_class_sched_exits_2_naming_it(run_quanta, command, args, named):
    proc = run_quanta(command, "--duration-s", "0.1", *args)
    assert proc.returncode == 2, proc.stderr
    assert named in proc.stderr
    assert proc.stdout == ""


def test_a_tenant_port_feeds_its_class_pool(serve, run_quanta):  # noqa: F811
    # --be-listen on the kernel-thread baseline: the tenant's requests (class 0 in their
    # headers) all go to class 1's queue and pool.
    server = serve(*LINUX, "--workers", "1", "--threads-per-core", "1", "--workload", "bimodal:50:1:2",
                   "--class-sched", "other,other:5", "--be-listen", "udp://127.0.0.1:0", "--be-class", "1",
                   listen=("udp://127.0.0.1:0",))
    while not any("best-effort tenant" in l for l in server.stderr):
        assert server.lines.get(timeout=60) is not None, "quanta serve exited"
    line = next(l for l in server.stderr if "best-effort tenant (class 1) on udp://" in l)
    host, port = line.strip().rsplit("udp://", 1)[1].rsplit(":", 1)
    proc = run_quanta("load", "--target", f"udp://{host}:{port}", "--workload", "fixed:1", "--rate-rps", "1000",
                      "--duration-s", "0.2", "--warmup-frac", "0", "--format", "json")
    assert proc.returncode in (0, 3), proc.stderr
    answered = json.loads(proc.stdout)["client"]["answered"]
    assert answered > 0
    report = server.stop()
    assert [c["count"] for c in report["classes"].values()] == [0, answered]
