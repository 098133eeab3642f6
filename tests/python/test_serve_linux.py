"""`quanta serve --runtime linux`: the same front ends, protocols, counters and stop as
`quanta serve`, with requests run to completion on a pool of kernel threads. Round trips
over UDP and TCP in quanta's wire protocol and in kvcache's memcached protocol, the stop
with requests running, --idle block, a long request beside a short one, and the options
that mean nothing for kernel threads. (Reply order per connection, kvcache's in-order
connections and its graceful stop run on both runtimes in test_serve.py and
test_kvcache.py.) Counts and ordering only: socket timeouts are safety nets, and the
server's own counters say when it has seen something."""
import struct

import pytest
from pymemcache.client.base import Client

from memcached_checks import check_storage_commands
from test_kvcache import KEYS, key, kvcache, value
from test_serve import (OK, echo_app, echo_round_trips, parse_reply, quiet_memcached_rounds, read_replies, request,
                        serve, tcp_client, udp_client)  # noqa: F401 (fixture)

LINUX = ("--runtime", "linux")


def check_kernel_report(report, threads_per_core=4):
    config = report["config"]
    assert config["runtime"] == "linux"
    assert (config["local"], config["dispatch"], config["preempt"]) == ("sched-other", "shared-queue", "kernel")
    assert config["linux_policy"] == "other"
    assert config["threads_per_core"] == threads_per_core
    assert report["runtime"]["kernel"]["threads"] == threads_per_core * config["workers"]


@pytest.mark.parametrize("extra", [(), ("--idle", "block", "--udp-replies", "dispatcher"),
                                   ("--threads-per-core", "1", "--udp-receive", "io_uring", "--preempt", "clock")])
def test_udp_and_tcp_round_trips_on_kernel_threads(serve, extra):
    server = serve("--app", echo_app(), *LINUX, *extra)
    report = echo_round_trips(server)
    check_kernel_report(report, threads_per_core=1 if "--threads-per-core" in extra else 4)


def test_kvcache_over_tcp_with_pymemcache(serve):
    server = serve("--app", kvcache(), "--app-config", f"keys={KEYS}", *LINUX, listen=("tcp://127.0.0.1:0",))
    c = Client(server.address["tcp"], timeout=30, connect_timeout=30, default_noreply=False)
    assert c.get(key(3)) == value(3)
    assert c.get_many([key(1), key(2), "missing"]) == {key(1): value(1), key(2): value(2)}
    assert c.set("a", b"1") is True and c.get("a") == b"1"
    check_storage_commands(c, key, value)
    assert c.version() == b"1.6.0-quanta-kvcache"
    c.close()
    report = server.stop()
    check_kernel_report(report)
    assert report["config"]["protocol"] != "quanta"
    net = report["network"]["tcp"]
    assert net["requests"] == net["replies_ok"] == report["requests"]["completed"]
    assert net["refused_by_protocol"] == 0


def test_stop_waits_for_a_request_running_on_a_pool_thread(serve):
    # The echo app's spin_echo class spins for the cycles it is given (~0.1 s here): the
    # server takes it, is told to stop while a pool thread runs it, and answers it first.
    server = serve("--app", echo_app(), *LINUX, listen=("tcp://127.0.0.1:0", "udp://127.0.0.1:0"))
    tcp = tcp_client(server)
    tcp.sendall(request(1, struct.pack("<Q", 300_000_000), class_index=1))
    udp = udp_client(server)
    udp.send(request(2, struct.pack("<Q", 300_000_000), class_index=1))
    while True:
        net = server.snapshot()
        if net["tcp"]["requests"] == 1 and net["udp"]["requests"] == 1:
            break
    report = server.stop()
    assert read_replies(tcp, 1)[0]["id"] == 1
    assert parse_reply(udp.recv(100))["id"] == 2
    assert report["requests"]["completed"] == 2
    assert report["config"]["runtime"] == "linux"


def test_idle_block_sleeps_between_memcached_requests_and_misses_none(serve):
    # The dispatcher sleeps in epoll_wait when nothing comes; a datagram, a connection's
    # bytes, a completion the pool hands back (its bell) and the stop all wake it.
    server = serve("--app", kvcache(), "--app-config", "keys=100", *LINUX, "--idle", "block")
    rounds = 30
    quiet_memcached_rounds(server, rounds)
    report = server.stop()
    assert report["config"]["idle"] == "block"
    assert report["runtime"]["idle_sleeps"]["dispatcher"] > 0
    net = report["network"]
    assert net["udp"]["requests"] == net["udp"]["replies_ok"] == rounds
    assert net["tcp"]["replies_ok"] == 3 * rounds


ENDLESS = struct.pack("<Q", 1 << 62)  # the spin app: spin for ~50 years of CPU time


def start_endless_then_short(serve, threads_per_core):
    """One worker CPU; an endless request on one connection, then, once the server has
    taken it, a short one on another. Returns (server, the short request's connection)."""
    server = serve(*LINUX, "--workers", "1", "--threads-per-core", str(threads_per_core),
                   listen=("tcp://127.0.0.1:0",))
    endless = tcp_client(server)
    endless.sendall(request(1, ENDLESS))
    while server.snapshot()["tcp"]["requests"] != 1:
        pass
    short = tcp_client(server)
    short.sendall(request(2, struct.pack("<Q", 1000)))
    return server, short


def test_a_long_request_does_not_hold_back_a_short_one_with_two_threads_per_core(serve):
    # The endless request keeps one pool thread forever; the other takes the short one and
    # the kernel shares the CPU between them, so the short one's reply comes (first: the
    # endless one never finishes).
    server, short = start_endless_then_short(serve, threads_per_core=2)
    reply = read_replies(short, 1)[0]
    assert (reply["id"], reply["kind"], reply["status"]) == (2, OK, 0)
    net = server.snapshot()["tcp"]
    assert (net["requests"], net["replies_ok"]) == (2, 1)


def test_with_one_thread_per_core_the_short_one_waits_behind_the_long_one(serve):
    # The control: one pool thread, busy for good with the endless request, so the short
    # one stays in the queue. (Waiting a second proves it: the endless one would need years.)
    server, short = start_endless_then_short(serve, threads_per_core=1)
    short.settimeout(1)
    with pytest.raises(TimeoutError):
        short.recv(100)
    assert server.snapshot()["tcp"]["replies_ok"] == 0


@pytest.mark.parametrize(
    "args, option",
    [
        (["--dispatcher-only"], "--dispatcher-only"),
        (["--dispatcher-works"], "--dispatcher-works"),
        (["--preempt", "flag"], "--preempt"),
        (["--preempt", "none"], "--preempt"),
        (["--local", "fcfs"], "--local"),
        (["--dispatch", "jsq"], "--dispatch"),
        (["--quantum-us", "5"], "--quantum-us"),
        (["--task-slots", "8"], "--task-slots"),
        (["--ring-capacity", "64"], "--ring-capacity"),
        (["--on-full", "drop"], "--on-full"),
        (["--oversubscribe"], "--oversubscribe"),
        (["--watchdog-ms", "100"], "--watchdog-ms"),
        (["--overrun-report-quanta", "5"], "--overrun-report-quanta"),
        (["--threads-per-core", "0"], "--threads-per-core"),
        (["--workers", "4096"], "--workers"),  # more than the CPUs: more threads per core instead
        (["--linux-policy", "cfs"], "--linux-policy"),
        (["--deadline-runtime-us", "100"], "--deadline-runtime-us"),  # not deadline
    ],
)
def test_options_without_meaning_for_kernel_threads_exit_2_naming_the_option(run_quanta, args, option):
    proc = run_quanta("serve", *LINUX, *args)
    assert proc.returncode == 2, proc.stderr
    assert option in proc.stderr
    assert proc.stdout == ""


@pytest.mark.parametrize("args, option", [(["--linux-policy", "rr"], "--linux-policy"),
                                          (["--threads-per-core", "2"], "--threads-per-core"),
                                          (["--runtime", "bsd"], "--runtime")])
def test_kernel_thread_options_need_runtime_linux(run_quanta, args, option):
    proc = run_quanta("serve", *args)
    assert proc.returncode == 2, proc.stderr
    assert option in proc.stderr
    assert proc.stdout == ""
