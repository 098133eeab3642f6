"""kv (apps/kv): the key-value server on instrumented LevelDB, served by `quanta serve` in
the memcached text protocol. Real clients (pymemcache, libmemcached's memccapable), its
answers to bad input byte for byte against Debian's memcached 1.6, scans under concurrent
writers on several workers, persistence across a clean stop and across kill -9 with
sync=1, memcached's UDP framing, and `quanta load` driving it. Counts, bytes and order only,
never timings.

Run by scripts/kv/test.sh after scripts/kv/build.sh (ctest's python.cli leaves this file
out: the app is built after LevelDB). A missing app fails the tests; none is skipped."""
import collections
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from pymemcache.client.base import Client

from memcached_checks import check_noreply, check_storage_commands
from conftest import BUILD_DIR
from test_kvcache import (CASES, FRAME, LineReader, exchange, memcached,  # noqa: F401 (fixture)
                          replies_to_cases, udp_exchange)
from test_serve import serve, tcp_client, udp_client  # noqa: F401 (fixture)


def kv_app(mode="clock"):
    path = BUILD_DIR / "lib" / "quanta" / "apps" / f"kv-{mode}.so"
    if not path.exists():
        pytest.fail(f"{path} does not exist: run scripts/kv/build.sh")
    return str(path)


def key(i):
    return f"key:{i:010d}"


def value(i, length=64):
    # kv's generated_value(): the preloaded value of key i.
    return bytes(ord("a") + (i + k) % 26 for k in range(length))


def serve_kv(serve, db, *args, config="", listen=("tcp://127.0.0.1:0",), mode="clock"):
    settings = f"db={db}" + (f",{config}" if config else "")
    return serve("--app", kv_app(mode), "--app-config", settings, *args, listen=listen)


def fnv1a(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def scan_digest(values):
    """kv's scan digest over the values it walked, in key order."""
    digest = 0
    for v in values:
        digest = (digest * 31 + fnv1a(v)) & 0xFFFFFFFFFFFFFFFF
    return digest


# ---- the build ----

@pytest.mark.parametrize("mode", ["clock", "flag"])
def test_leveldb_is_compiled_into_the_app_with_probes_and_bracketed_locks(run_quanta, mode):
    # The probe records of every object in the app: LevelDB's DBImpl (whose mutex guards
    # the memtable, the version set and the writer queue) has probes of the app's kind and
    # lock sites, the calls the pass brackets with preempt_disable/enable.
    proc = run_quanta("probes", kv_app(mode), check=True)
    rows = {}
    for line in proc.stdout.splitlines():
        parts = line.split()
        # mode, probes, lock_sites, functions, twins, module
        if len(parts) == 6 and parts[1].isdigit():
            rows[parts[5]] = (parts[0], int(parts[1]), int(parts[2]))
    db_impl = [row for path, row in rows.items() if path.endswith("leveldb/src/db/db_impl.cc")]
    assert len(db_impl) == 1, proc.stdout
    kind, probes, lock_sites = db_impl[0]
    assert kind == mode and probes > 0 and lock_sites > 0


# ---- real clients ----

# Every pool thread of the kernel-thread baseline (quanta serve --runtime linux) calls
# setup_worker as a quanta worker does: kv opens its database on the first, and serves and
# closes it the same way.
RUNTIMES = pytest.mark.parametrize("runtime", [(), ("--runtime", "linux")], ids=["quanta", "linux"])


@RUNTIMES
def test_pymemcache_round_trips_every_command(serve, tmp_path, runtime):
    server = serve_kv(serve, tmp_path / "db", *runtime, config="keys=100")
    c = Client(server.address["tcp"], timeout=30, connect_timeout=30, default_noreply=False)
    assert c.get(key(3)) == value(3)
    assert c.set("a", b"1", expire=0) is True
    check_storage_commands(c, key, value)
    assert c.version() == b"1.6.0-quanta-kv"
    stats = {k.decode() if isinstance(k, bytes) else k: v for k, v in c.stats().items()}
    assert int(stats["get_hits"]) >= 1 and int(stats["cmd_set"]) >= 1
    assert stats["version"] == b"1.6.0-quanta-kv"
    files = {k.decode() if isinstance(k, bytes) else k: v for k, v in c.stats("leveldb").items()}
    assert "files_at_level0" in files
    assert c.stats("slabs") == {}
    # Flags and expiry: stored and given back; a negative exptime is expired at once.
    assert c.set("f", b"v", flags=77) is True
    raw = tcp_client(server)
    assert exchange(raw, b"get f\r\n", b"END\r\n") == b"VALUE f 77 1\r\nv\r\nEND\r\n"
    assert exchange(raw, b"set e 0 -1 1\r\ne\r\nget e\r\n", b"END\r\n") == b"STORED\r\nEND\r\n"
    assert exchange(raw, b"set t 0 1000 1\r\nt\r\ntouch t -1\r\nget t\r\n", b"END\r\n") == (
        b"STORED\r\nTOUCHED\r\nEND\r\n")
    check_noreply(c)
    assert c.get("q") is None
    assert c.flush_all() is True
    assert c.get("a") is None and c.get(key(3)) is None
    assert c.set("after", b"flush") is True        # stored after the flush: there
    assert c.get("after") == b"flush"
    assert c.flush_all(noreply=True) is True
    assert c.version() == b"1.6.0-quanta-kv"
    c.close()
    assert exchange(raw, b"verbosity 1\r\nverbosity 1 noreply\r\nversion\r\n", b"quanta-kv\r\n") == (
        b"OK\r\nVERSION 1.6.0-quanta-kv\r\n")
    net = server.stop()["network"]["tcp"]
    assert net["refused_by_protocol"] == 0
    assert net["requests"] == net["replies_ok"]


def test_memccapable_ascii_passes(serve, tmp_path):
    server = serve_kv(serve, tmp_path / "db")
    host, port = server.address["tcp"]
    proc = subprocess.run(["memccapable", "-h", host, "-p", str(port), "-a"], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    server.stop()


def test_answers_match_memcached_byte_for_byte(serve, memcached, tmp_path):
    host, port, _ = memcached
    expected = replies_to_cases((host, port))
    server = serve_kv(serve, tmp_path / "db")
    got = replies_to_cases(server.address["tcp"])
    for case, want, have in zip(CASES, expected, got):
        assert have == want, f"{case!r}: memcached {want!r}, kv {have!r}"
    net = server.stop()["network"]["tcp"]
    errors = sum(len(re.findall(rb"(?m)^(ERROR|CLIENT_ERROR[^\r]*|SERVER_ERROR[^\r]*)\r$", r)) for r in got)
    handler_errors = sum(r.count(b"CLIENT_ERROR cannot increment or decrement non-numeric value\r\n") for r in got)
    assert handler_errors == 1
    assert net["refused_by_protocol"] == errors - handler_errors


def test_delayed_flush_all_matches_memcached(serve, memcached, tmp_path):
    # A flush at a time already past flushes only what was stored before that time; one in
    # the future flushes nothing yet; an immediate one flushes everything stored so far.
    # (What a future flush does when its time comes needs a wait: not tested here.)
    past = int(time.time()) - 3600
    script = (b"set a 0 0 1\r\na\r\nflush_all %d\r\nget a\r\n"
              b"flush_all 100\r\nget a\r\nflush_all 0\r\nget a\r\nset b 0 0 1\r\nb\r\nget a b\r\n" % past)
    end = b"VALUE b 0 1\r\nb\r\nEND\r\n"
    host, port, _ = memcached
    want = exchange(socket.create_connection((host, port), timeout=30), script, end)
    server = serve_kv(serve, tmp_path / "db")
    got = exchange(tcp_client(server), script, end)
    assert got == want
    assert got == (b"STORED\r\nOK\r\nVALUE a 0 1\r\na\r\nEND\r\nOK\r\nVALUE a 0 1\r\na\r\nEND\r\n"
                   b"OK\r\nEND\r\nSTORED\r\n" + end)
    server.stop()


# ---- bad input ----

def test_bad_input_gets_memcached_error_lines_and_the_server_goes_on(serve, tmp_path):
    # One input at a time, each answered before the next is sent (test_answers_match_...
    # checks these lines against memcached's own).
    server = serve_kv(serve, tmp_path / "db", "--max-payload-bytes", "4096")
    conn = tcp_client(server)
    long_key = b"k" * 251
    assert exchange(conn, b"bogus\r\n", b"\r\n") == b"ERROR\r\n"
    assert exchange(conn, b"get " + long_key + b"\r\n", b"\r\n") == b"CLIENT_ERROR bad command line format\r\n"
    assert exchange(conn, b"set " + long_key + b" 0 0 1\r\n", b"\r\n") == (
        b"CLIENT_ERROR bad command line format\r\n")
    # A value shorter than announced: its 5 bytes are "ab\r\nX", then "YZ" stands where
    # \r\n should be; the rest of the line ("W") is read as a command, as memcached does.
    assert exchange(conn, b"set k 0 0 5\r\nab\r\nXYZW\r\n", b"ERROR\r\n") == (
        b"CLIENT_ERROR bad data chunk\r\nERROR\r\n")
    # Binary junk ending in a newline: an unknown command.
    junk = bytes(range(1, 256)).replace(b"\n", b"").replace(b"\r", b"").replace(b" ", b"")
    assert exchange(conn, junk + b"\r\n", b"\r\n") == b"ERROR\r\n"
    # A value over the limit: memcached's answer, its bytes thrown away.
    assert exchange(conn, b"set big 0 0 100000\r\n", b"\r\n") == b"SERVER_ERROR object too large for cache\r\n"
    conn.sendall(b"x" * 100000 + b"\r\n")
    assert exchange(conn, b"set ok 0 0 2\r\nhi\r\nget ok\r\n", b"END\r\n") == (
        b"STORED\r\nVALUE ok 0 2\r\nhi\r\nEND\r\n")
    # Connections closed mid-command: in the line, and in the value.
    for partial in (b"get o", b"set half 0 0 10\r\nabc"):
        gone = tcp_client(server)
        gone.sendall(partial)
        gone.close()
    while server.snapshot()["tcp"]["closed_mid_request"] < 2:
        pass
    # The half-sent set stored nothing; the server answers on.
    assert exchange(conn, b"get half ok\r\n", b"END\r\n") == b"VALUE ok 0 2\r\nhi\r\nEND\r\n"
    net = server.stop()["network"]["tcp"]
    assert net["connections"] == 3
    assert net["closed_mid_request"] == 2
    # bogus, two long keys, the bad chunk and its "W", the junk, the value too large
    assert net["refused_by_protocol"] == 7


def test_appends_stop_at_memcached_item_size(serve, tmp_path):
    # Each append is within the request limit; the item they would make is over 1 MB.
    server = serve_kv(serve, tmp_path / "db", "--max-payload-bytes", "700000", "--max-response-bytes", "1000000")
    conn = tcp_client(server)
    big = b"a" * 600000
    assert exchange(conn, b"set g 0 0 %d\r\n%s\r\n" % (len(big), big), b"\r\n") == b"STORED\r\n"
    assert exchange(conn, b"append g 0 0 %d\r\n%s\r\n" % (len(big), big), b"\r\n") == (
        b"SERVER_ERROR out of memory storing object\r\n")
    assert exchange(conn, b"prepend g 0 0 3\r\nxyz\r\n", b"\r\n") == b"STORED\r\n"
    assert exchange(conn, b"get g\r\n", b"END\r\n") == b"VALUE g 0 600003\r\nxyz" + big + b"\r\nEND\r\n"
    server.stop()


def test_random_bytes_never_crash_the_server(serve, tmp_path):
    # Seeded junk, some of it shaped like commands, on connections that close at any point
    # (some mid-command); after it the server still answers and stops cleanly.
    rng = random.Random(23)
    server = serve_kv(serve, tmp_path / "db", "--max-payload-bytes", "4096", config="keys=10")
    verbs = [b"get", b"gets", b"set", b"add", b"cas", b"append", b"incr", b"decr", b"touch", b"delete",
             b"scan", b"flush_all", b"stats", b"verbosity"]
    for _ in range(40):
        conn = tcp_client(server)
        for _ in range(rng.randrange(1, 20)):
            if rng.random() < 0.5:
                chunk = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300)))
            else:
                words = [rng.choice(verbs)] + [rng.choice([b"key:0000000001", b"k", b"-1", b"0", b"99999999999999999999",
                                                           b"5", b"noreply", b"\xff\x00"])
                                               for _ in range(rng.randrange(0, 6))]
                chunk = b" ".join(words) + rng.choice([b"\r\n", b"\n", b"\r\nabcde\r\n", b""])
            try:
                conn.sendall(chunk)
            except (BrokenPipeError, ConnectionResetError):
                break   # the server closed it (a line too long, a quit): as it may
        conn.close()
    assert exchange(tcp_client(server), b"get key:0000000001\r\nversion\r\n", b"quanta-kv\r\n").endswith(
        b"VERSION 1.6.0-quanta-kv\r\n")
    server.stop()   # exit 0: nothing crashed, every task ended


# ---- scan ----

def test_scan_walks_keys_in_order_from_the_start_key(serve, tmp_path):
    server = serve_kv(serve, tmp_path / "db", config="keys=50")
    conn = tcp_client(server)
    reader = LineReader(conn)
    conn.sendall(f"scan {key(10)} 5\r\nscan {key(0)} 1000\r\nscan zzz 10\r\n".encode())
    first, second, third = reader.lines(3)
    assert first == f"SCANNED 5 {scan_digest(value(i) for i in range(10, 15)):016x}".encode()
    assert second == f"SCANNED 50 {scan_digest(value(i) for i in range(50)):016x}".encode()
    assert third == b"SCANNED 0 0000000000000000"   # past every key; kv's own records are not walked
    # Deleted, expired and flushed items are not walked.
    conn.sendall(f"delete {key(10)}\r\ntouch {key(11)} -1\r\nscan {key(10)} 3\r\n".encode())
    assert reader.lines(3) == [b"DELETED", b"TOUCHED",
                               f"SCANNED 3 {scan_digest(value(i) for i in range(12, 15)):016x}".encode()]
    conn.sendall(f"flush_all\r\nscan {key(0)} 1000\r\n".encode())
    assert reader.lines(2) == [b"OK", b"SCANNED 0 0000000000000000"]
    assert exchange(conn, b"scan k 0\r\n", b"\r\n") == b"CLIENT_ERROR bad command line format\r\n"
    server.stop()


@pytest.mark.parametrize("mode, dispatch", [("clock", "jsq-msq"), ("flag", "jsq-msq"), ("clock", "central")])
def test_scans_under_concurrent_writers_on_several_workers(serve, tmp_path, mode, dispatch):
    # Two workers (oversubscribed on a small machine), short quanta so that scans are
    # preempted again and again inside LevelDB, writers that set and increment the same
    # keys from several connections. Every increment must count (read-modify-write under
    # the key's stripe), every scan must finish, and the server must still answer after.
    # With central dispatch a preempted scan may go on on the other worker (a migration).
    keys, writers, rounds = 2000, 4, 150
    server = serve_kv(serve, tmp_path / "db", "--workers", "2", "--oversubscribe", "--preempt", mode,
                      "--quantum-us", "5", "--dispatch", dispatch, config=f"keys={keys}", mode=mode)
    scans_done = []
    errors = []

    def writer(w):
        try:
            c = Client(server.address["tcp"], timeout=120, connect_timeout=30, default_noreply=False)
            for i in range(rounds):
                assert c.set(f"w{w}:{i}", f"{i}".encode()) is True
                c.incr("counter", 1)
                c.set(key((w * rounds + i) % keys), value(0, 16))
            c.close()
        except Exception as e:  # reported by the main thread
            errors.append(e)

    def scanner():
        try:
            conn = socket.create_connection(server.address["tcp"], timeout=120)
            reader = LineReader(conn)
            for _ in range(20):
                conn.sendall(f"scan {key(0)} {keys}\r\n".encode())
                line = reader.lines(1)[0]
                assert re.fullmatch(rb"SCANNED \d+ [0-9a-f]{16}", line), line
                assert int(line.split()[1]) == keys   # the preloaded keys are all live
                scans_done.append(1)
            conn.close()
        except Exception as e:
            errors.append(e)

    c = Client(server.address["tcp"], timeout=30, connect_timeout=30, default_noreply=False)
    assert c.set("counter", b"0") is True
    threads = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
    threads += [threading.Thread(target=scanner) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(scans_done) == 40
    assert c.get("counter") == str(writers * rounds).encode()
    for w in range(writers):
        for lo in range(0, rounds, 20):   # an answer within the response buffer
            part = range(lo, min(rounds, lo + 20))
            assert c.get_many([f"w{w}:{i}" for i in part]) == {f"w{w}:{i}": f"{i}".encode() for i in part}
    c.close()
    report = server.stop()
    net = report["network"]["tcp"]
    assert net["requests"] == net["replies_ok"]
    assert net["refused_by_protocol"] == 0
    # The scans were preempted inside LevelDB's iterator (each many times at 5 us), and
    # every preempt_disable (the stripes', the pass's brackets of LevelDB's mutexes) was
    # matched by its enable.
    assert report["classes"]["scan"]["count"] == 40
    assert report["classes"]["scan"]["preemptions_per_request"] >= 1
    assert report["runtime"]["unbalanced_preempt_disables"] == 0
    assert report["runtime"]["app_errors"] == 0


# ---- persistence ----

@RUNTIMES
def test_a_clean_stop_closes_the_database_and_a_restart_finds_it(serve, tmp_path, runtime):
    db = tmp_path / "db"
    server = serve_kv(serve, db, *runtime)
    c = Client(server.address["tcp"], timeout=30, default_noreply=False)
    assert c.set("kept", b"value", flags=5) is True
    assert c.set("gone", b"x") is True
    assert c.delete("gone") is True
    c.close()
    assert server.stop()["config"]["runtime"] == ("linux" if runtime else "quanta")
    # LevelDB's lock file is free again: a second server opens the same directory.
    server = serve_kv(serve, db, *runtime)
    raw = tcp_client(server)
    assert exchange(raw, b"get kept gone\r\n", b"END\r\n") == b"VALUE kept 5 5\r\nvalue\r\nEND\r\n"
    # A flush survives a restart too: what it made invisible stays so.
    assert exchange(raw, b"flush_all\r\n", b"OK\r\n") == b"OK\r\n"
    server.stop()
    server = serve_kv(serve, db, *runtime)
    assert exchange(tcp_client(server), b"get kept\r\n", b"END\r\n") == b"END\r\n"
    server.stop()


def test_every_write_acknowledged_with_sync_survives_kill_9(serve, tmp_path):
    db = tmp_path / "db"
    server = serve_kv(serve, db, config="sync=1")
    conn = tcp_client(server)
    reader = LineReader(conn)
    count = 300
    conn.sendall(b"".join(f"set s{i} 0 0 8\r\n{i:08d}\r\n".encode() for i in range(count)))
    acknowledged = 0
    while acknowledged < count // 2:   # kill while the rest may still be on their way
        assert reader.lines(1) == [b"STORED"]
        acknowledged += 1
    server.proc.send_signal(signal.SIGKILL)
    server.proc.wait()
    server = serve_kv(serve, db, config="sync=1")
    c = Client(server.address["tcp"], timeout=30, default_noreply=False)
    got = {}
    for lo in range(0, count, 20):   # an answer within the response buffer
        got.update(c.get_many([f"s{i}" for i in range(lo, min(count, lo + 20))]))
    for i in range(acknowledged):
        assert got.get(f"s{i}") == f"{i:08d}".encode(), i
    # Whatever else came back is whole: LevelDB's log replays whole records.
    assert all(v == f"{int(k[1:]):08d}".encode() for k, v in got.items())
    c.close()
    server.stop()


# ---- configuration ----

@pytest.mark.parametrize("config, message", [
    ("", "db=PATH is required"),
    ("db={db},sync=2", "sync"),
    ("db={db},cache_mb=x", "cache_mb"),
    ("db={db},colour=blue", "colour"),
    ("db={db},mix=ycsb", "mix expects one of tq, tq-scan50, concord, zippydb"),
    ("db={db},scan_start=middle", "scan_start"),
    ("db={db},delete=-1", "delete"),
    ("db={db}/missing,create=0", "create=0"),
])
def test_bad_configuration_is_refused_naming_the_setting(run_quanta, tmp_path, config, message):
    proc = run_quanta("serve", "--app", kv_app(), "--app-config", config.format(db=tmp_path / "db"),
                      "--listen", "tcp://127.0.0.1:0")
    assert proc.returncode != 0
    assert message in proc.stderr, proc.stderr


# ---- memcached's UDP framing ----

def test_udp_get_with_the_memcached_frame_header(serve, tmp_path):
    server = serve_kv(serve, tmp_path / "db", "--max-response-bytes", "16384", config="keys=100",
                      listen=("udp://127.0.0.1:0",))
    sock = udp_client(server)
    reply, count = udp_exchange(sock, 7, f"get {key(1)}\r\n".encode())
    assert count == 1
    assert reply == f"VALUE {key(1)} 0 64\r\n".encode() + value(1) + b"\r\nEND\r\n"
    assert udp_exchange(sock, 8, b"set u 5 0 3\r\nabc\r\n")[0] == b"STORED\r\n"
    assert udp_exchange(sock, 9, b"get u\r\n")[0] == b"VALUE u 5 3\r\nabc\r\nEND\r\n"
    keys = list(range(40))   # about 3.7 KB: several datagrams
    reply, count = udp_exchange(sock, 10, ("get " + " ".join(key(i) for i in keys) + "\r\n").encode())
    assert count == 3
    assert reply == b"".join(f"VALUE {key(i)} 0 64\r\n".encode() + value(i) + b"\r\n" for i in keys) + b"END\r\n"
    # Bad input over UDP: memcached's error lines, framed like any reply.
    assert udp_exchange(sock, 11, b"bogus\r\n")[0] == b"ERROR\r\n"
    assert udp_exchange(sock, 12, b"get " + b"k" * 251 + b"\r\n")[0] == b"CLIENT_ERROR bad command line format\r\n"
    assert udp_exchange(sock, 13, b"set u 0 0 3\r\nabcXY")[0] == b"CLIENT_ERROR bad data chunk\r\n"
    sock.send(b"get u\r\n")                                  # no frame header
    sock.send(FRAME.pack(14, 0, 1, 0) + b"set u 0 0 10\r\nabc")  # a value shorter than announced
    while True:   # neither is answered; both are counted
        net = server.snapshot()["udp"]
        if net["bad_datagram_header"] == 1 and net["bad_truncated"] == 1:
            break
    assert udp_exchange(sock, 15, b"get u\r\n")[0] == b"VALUE u 5 3\r\nabc\r\nEND\r\n"   # unchanged
    net = server.stop()["network"]["udp"]
    assert net["refused_by_protocol"] == 3
    assert net["requests"] == net["replies_ok"] == 5


# ---- quanta load ----

@pytest.mark.parametrize("transport", ["tcp", "udp"])
def test_quanta_load_drives_kv_with_gets_sets_and_scans(serve, run_json, tmp_path, transport):
    config = "keys=1000,get=0.8,set=0.15,scan=0.05,scan_count=100"
    server = serve_kv(serve, tmp_path / "db", config=config, listen=(f"{transport}://127.0.0.1:0",))
    host, port = server.address[transport]
    extra = ["--connections", "2"] if transport == "tcp" else []
    # The client takes the same settings without db=: it opens no database.
    report = run_json("load", "--app", kv_app(), "--app-config", config, "--target", f"{transport}://{host}:{port}",
                      "--rate-rps", "1000", "--duration-s", "0.5", "--timeout-ms", "5000", "--arrivals", "constant",
                      "--warmup-frac", "0", "--no-progress", *extra)
    client = report["client"]
    assert client["sent"] > 0 and client["answered"] == client["sent"]
    assert report["classes"]["get"]["count"] > 0 and report["classes"]["set"]["count"] > 0
    net = server.stop()["network"][transport]
    assert net["requests"] == net["replies_ok"] == client["sent"]
    assert net["refused_by_protocol"] == 0


# ---- scaling out: twemproxy and libmemcached's key distribution ----

def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@pytest.fixture
def nutcracker(tmp_path):
    """Starts Debian's twemproxy in front of the given servers; yields a starter returning
    the proxy's (host, port)."""
    binary = shutil.which("nutcracker") or "/usr/sbin/nutcracker"
    if not os.path.exists(binary):
        pytest.fail("nutcracker is not installed: run scripts/setup.sh")
    procs = []

    def start(servers):
        port, stats_port = free_port(), free_port()
        conf = tmp_path / "nutcracker.yml"
        # ketama over md5: the consistent hashing libmemcached and most memcached clients use.
        lines = ["kv:", f"  listen: 127.0.0.1:{port}", "  hash: md5", "  distribution: ketama",
                 "  timeout: 30000", "  auto_eject_hosts: false", "  servers:"]
        lines += [f"   - {host}:{p}:1 kv{i}" for i, (host, p) in enumerate(servers)]
        conf.write_text("\n".join(lines) + "\n")
        proc = subprocess.Popen([binary, "-c", str(conf), "-s", str(stats_port), "-o", str(tmp_path / "nc.log")],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        procs.append(proc)
        while True:   # no line says it is ready: poll until it accepts (or exits)
            if proc.poll() is not None:
                raise AssertionError(f"nutcracker exited {proc.returncode}: {proc.stderr.read()}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=30).close()
                return ("127.0.0.1", port)
            except ConnectionRefusedError:
                pass

    yield start
    for proc in procs:
        proc.kill()
        proc.wait()


def test_two_servers_behind_twemproxy(serve, tmp_path, nutcracker):
    servers = [serve_kv(serve, tmp_path / f"db{i}") for i in range(2)]
    proxy = nutcracker([s.address["tcp"] for s in servers])
    c = Client(proxy, timeout=30, connect_timeout=30, default_noreply=False)
    count = 200
    for i in range(count):
        assert c.set(f"shard:{i}", f"v{i}".encode()) is True
    for lo in range(0, count, 20):   # the proxy splits a multi-key get by server
        part = range(lo, lo + 20)
        assert c.get_many([f"shard:{i}" for i in part]) == {f"shard:{i}": f"v{i}".encode() for i in part}
    assert c.set("n", b"1") is True and c.incr("n", 41) == 42
    assert c.delete("shard:0") is True and c.get("shard:0") is None
    c.close()
    # Each key lives on exactly one server, and both servers hold some.
    held = []
    for s in servers:
        direct = Client(s.address["tcp"], timeout=30, default_noreply=False)
        mine = set()
        for lo in range(1, count, 20):
            mine |= set(direct.get_many([f"shard:{i}" for i in range(lo, min(count, lo + 20))]))
        held.append(mine)
        direct.close()
    assert held[0] and held[1] and not (held[0] & held[1])
    assert held[0] | held[1] == {f"shard:{i}" for i in range(1, count)}
    for s in servers:
        assert s.stop()["network"]["tcp"]["refused_by_protocol"] == 0


def test_two_servers_behind_libmemcached_distribution(serve, tmp_path):
    # memcslap spreads its keys over both servers with libmemcached's hashing; its values
    # are about 4 KB, over the default request and response buffers.
    servers = [serve_kv(serve, tmp_path / f"db{i}", "--max-payload-bytes", "16384", "--max-response-bytes", "16384")
               for i in range(2)]
    spec = ",".join(f"{h}:{p}" for h, p in (s.address["tcp"] for s in servers))
    proc = subprocess.run(["memcslap", f"--servers={spec}", "--concurrency=2", "--execute-number=500"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    stats = [Client(s.address["tcp"], timeout=30).stats() for s in servers]
    assert all(int(st[b"cmd_set"]) > 0 for st in stats), stats
    for s in servers:
        assert s.stop()["network"]["tcp"]["refused_by_protocol"] == 0


# ---- generated key popularity ----

REPLIES = {b"get": b"END\r\n", b"set": b"STORED\r\n", b"delete": b"NOT_FOUND\r\n",
           b"scan": b"SCANNED 0 0000000000000000\r\n"}


def record_commands(run_json, config, count=1000):
    """Runs `quanta load` with kv's generator against a stand-in server that answers every
    command as an empty database would and records each command line (a set's data block
    left out)."""
    listener = socket.create_server(("127.0.0.1", 0))
    commands = []

    def serve_one():
        conn, _ = listener.accept()
        data = b""
        data_block_next = False   # generated values hold no CR LF: a set's block is one line
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                return
            data += chunk
            lines = data.split(b"\r\n")
            data = lines.pop()
            replies = b""
            for line in lines:
                if data_block_next:
                    data_block_next = False
                    continue
                commands.append(line.decode())
                verb = line.split(b" ")[0]
                data_block_next = verb == b"set"
                replies += REPLIES[verb]
            conn.sendall(replies)

    thread = threading.Thread(target=serve_one, daemon=True)
    thread.start()
    report = run_json("load", "--app", kv_app(), "--app-config", config, "--target",
                      f"tcp://127.0.0.1:{listener.getsockname()[1]}", "--rate-rps", str(count * 2), "--duration-s",
                      "0.5", "--arrivals", "constant", "--timeout-ms", "5000", "--warmup-frac", "0", "--no-progress")
    thread.join()
    listener.close()
    assert len(commands) == report["client"]["sent"] == report["client"]["answered"]
    return commands, report


def record_gets(run_json, config, count=1000):
    """The keys of the gets that `quanta load` sends with kv's generator, counted."""
    commands, _ = record_commands(run_json, config, count)
    keys = collections.Counter()
    for line in commands:
        verb, key_asked = line.split(" ")
        assert verb == "get"
        keys[key_asked] += 1
    return keys


def test_generated_keys_follow_the_configured_popularity(run_json):
    # zipf(0.99) over 1000 keys: the first key has 1/H(1000, 0.99) = 12.9% of the draws,
    # the second half; uniform gives each key 0.1%.
    skewed = record_gets(run_json, "keys=1000,zipf=0.99")
    total = sum(skewed.values())
    first, second = skewed[key(0)] / total, skewed[key(1)] / total
    assert 0.08 < first < 0.18 and 0.03 < second < 0.10, (first, second)
    assert skewed.most_common(1)[0][0] == key(0)
    uniform = record_gets(run_json, "keys=1000")
    assert uniform.most_common(1)[0][1] <= 10
    assert len(uniform) > 500


# ---- the papers' request mixes (mix=NAME) ----

@pytest.mark.parametrize("mix, shares", [
    ("tq", {"get": 0.995, "scan": 0.005}),
    ("tq-scan50", {"get": 0.5, "scan": 0.5}),
    ("concord", {"get": 0.5, "scan": 0.5}),
    ("zippydb", {"get": 0.78, "set": 0.13, "delete": 0.06, "scan": 0.03}),
])
def test_named_mixes_send_the_papers_shares(run_json, mix, shares):
    commands, report = record_commands(run_json, f"keys=1000,mix={mix}", count=2000)
    verbs = collections.Counter(line.split(" ")[0] for line in commands)
    assert set(verbs) == set(shares), verbs
    for verb, share in shares.items():
        # 4,000 draws: within 4 standard deviations of the share (a seeded run, so stable).
        sd = (share * (1 - share) / len(commands)) ** 0.5
        assert abs(verbs[verb] / len(commands) - share) <= 4 * sd + 1e-9, (verb, verbs)
        assert report["classes"][verb]["count"] == verbs[verb]
    scans = [line for line in commands if line.startswith("scan ")]
    if mix == "concord":
        # Concord's scans walk the whole database from the first key: 15,000 items, more
        # than the 1,000 keys given here, so a scan stops at the database's end.
        assert set(scans) == {f"scan {key(0)} 15000"}, set(scans)
    elif mix == "tq":
        assert scans and all(line.endswith(" 5000") for line in scans)


def test_a_mix_sets_defaults_that_settings_beside_it_override(run_json):
    # mix=concord alone: 15,000 keys and whole-database scans from the first key.
    commands, _ = record_commands(run_json, "mix=concord", count=200)
    scans = {line for line in commands if line.startswith("scan ")}
    assert scans == {f"scan {key(0)} 15000"}
    gets = [int(line.split(":")[1]) for line in commands if line.startswith("get ")]
    assert max(gets) >= 10000   # keys drawn over all 15,000
    # Given beside it, in any order, a setting wins over the mix's.
    commands, _ = record_commands(run_json, "scan_count=7,mix=concord,scan_start=random,scan=1,get=0", count=100)
    scans = [line for line in commands if line.startswith("scan ")]
    assert len(scans) == len(commands) and all(line.endswith(" 7") for line in scans)
    assert len({line.split(" ")[1] for line in scans}) > 1


def test_a_mix_drives_the_real_server_and_both_sides_count_the_same_classes(serve, run_json, tmp_path):
    config = "keys=1000,mix=zippydb,scan_count=50"
    server = serve_kv(serve, tmp_path / "db", config=config)
    host, port = server.address["tcp"]
    report = run_json("load", "--app", kv_app(), "--app-config", config, "--target", f"tcp://{host}:{port}",
                      "--rate-rps", "2000", "--duration-s", "0.5", "--timeout-ms", "5000", "--arrivals", "constant",
                      "--warmup-frac", "0", "--no-progress")
    assert report["client"]["answered"] == report["client"]["sent"] > 0
    served = server.stop()
    for name in ("get", "set", "delete", "scan"):
        assert report["classes"][name]["count"] > 0
        assert served["classes"][name]["count"] == report["classes"][name]["count"], name
    assert served["network"]["tcp"]["refused_by_protocol"] == 0


def test_preload_0_draws_from_the_keys_without_writing_them(serve, tmp_path):
    server = serve_kv(serve, tmp_path / "db", config="keys=20,preload=0")
    conn = tcp_client(server)
    assert exchange(conn, f"get {key(0)}\r\n".encode(), b"END\r\n") == b"END\r\n"
    conn.close()
    server.stop()
    server = serve_kv(serve, tmp_path / "db", config="keys=20")
    conn = tcp_client(server)
    assert exchange(conn, f"get {key(19)}\r\n".encode(), b"END\r\n") == \
        f"VALUE {key(19)} 0 64\r\n".encode() + value(19) + b"\r\nEND\r\n"
    conn.close()
    server.stop()


def test_a_get_that_finds_an_expired_or_flushed_item_deletes_it(serve, tmp_path):
    server = serve_kv(serve, tmp_path / "db")
    c = Client(server.address["tcp"], timeout=30, connect_timeout=30, default_noreply=False)

    def reclaimed():
        return int(c.stats()[b"reclaimed"])

    assert c.set("gone", b"x", expire=-1) is True    # stored already expired, as memcached does
    assert c.set("kept", b"y") is True
    assert reclaimed() == 0
    assert c.get("gone") is None
    assert reclaimed() == 1
    assert c.get("gone") is None                     # deleted: nothing left to reclaim
    assert reclaimed() == 1
    assert c.flush_all() is True
    assert c.get_many(["kept", "never"]) == {}
    assert reclaimed() == 2
    assert c.set("kept", b"z") is True               # a key reclaimed is stored afresh
    assert c.get("kept") == b"z"
    c.close()
    server.stop()


def test_one_thread_server_opens_the_database_on_the_dispatcher(serve, tmp_path):
    # --dispatcher-only: no worker threads; the dispatcher is set up as worker 0 and opens
    # LevelDB there (it used to serve from an unopened database and crash).
    server = serve_kv(serve, tmp_path / "db", "--dispatcher-only", "--dispatch", "central", config="keys=10",
                      listen=("tcp://127.0.0.1:0", "udp://127.0.0.1:0"))
    conn = tcp_client(server)
    assert exchange(conn, f"get {key(3)}\r\n".encode(), b"END\r\n") == \
        f"VALUE {key(3)} 0 64\r\n".encode() + value(3) + b"\r\nEND\r\n"
    conn.sendall(f"scan {key(0)} 100\r\n".encode())
    assert LineReader(conn).lines(1) == [f"SCANNED 10 {scan_digest(value(i) for i in range(10)):016x}".encode()]
    sock = udp_client(server)
    assert udp_exchange(sock, 7, f"get {key(4)}\r\n".encode())[0] == \
        f"VALUE {key(4)} 0 64\r\n".encode() + value(4) + b"\r\nEND\r\n"
    conn.close()
    report = server.stop()
    assert report["classes"]["get"]["count"] == 2 and report["classes"]["scan"]["count"] == 1


@pytest.mark.parametrize("runtime", [(), ("--runtime", "linux")], ids=["quanta", "linux"])
def test_quanta_run_draws_the_classes_the_app_config_sets(run_json, tmp_path, runtime):
    # The shares follow --app-config (mix=zippydb: gets, sets, deletes and scans); quanta
    # run reads the app's classes after its setup has seen the settings (it used to read
    # the defaults, gets only).
    report = run_json("run", "--app", kv_app(), "--app-config", f"db={tmp_path / 'db'},keys=200,mix=zippydb,scan_count=20",
                      *runtime, "--rate-rps", "4000", "--duration-s", "0.5", "--warmup-frac", "0")
    classes = report["classes"]
    assert all(classes[name]["count"] > 0 for name in ("get", "set", "delete", "scan")), classes
    assert classes["get"]["count"] > classes["set"]["count"] > classes["delete"]["count"]
    assert report["requests"]["completed"] == report["requests"]["generated"]


# ---- experiments/kv_get_scan.py ----

EXPERIMENT = Path(__file__).resolve().parents[2] / "experiments" / "kv_get_scan.py"


def test_the_get_scan_experiment_runs_every_configuration(tmp_path):
    proc = subprocess.run([sys.executable, str(EXPERIMENT), "--quick", "--build", str(BUILD_DIR), "--out-dir",
                           str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads((tmp_path / "kv_get_scan_quick.json").read_text())
    network = {(p["server"], p["rate_rps"]) for p in result["network_points"]}
    assert network == {(s, r) for s in ["ps-clock-2", "ps-clock-5", "ps-clock-10", "fcfs", "linux", "memcached"]
                       for r in (2000, 4000)}
    in_process = {(p["server"], p["rate_rps"]) for p in result["in_process_points"]}
    assert in_process == {(s, r) for s in ["ps-clock-2", "ps-clock-5", "ps-clock-10", "ps-flag-5", "fcfs", "linux"]
                          for r in (2000, 4000)}
    for p in result["network_points"] + result["in_process_points"]:
        assert p["sent"] > 0 and p["answered"] == p["sent"], p
    # The servers saw the scans the mix asks for (quanta's servers keep per-class statistics).
    assert any(p.get("server_scan_p50_us") for p in result["in_process_points"])
    assert (tmp_path / "kv_get_scan_quick.csv").read_text().count("\n") == 1 + 24
    assert "Largest offered rate" in (tmp_path / "kv_get_scan_quick.md").read_text()


@pytest.mark.parametrize("args, message", [(["--parts", "web"], "--parts"), (["--rates", "0"], "--rates"),
                                           (["--network-servers", "redis"], "--network-servers"),
                                           (["--scan-count", "-1"], "--scan-count")])
def test_the_get_scan_experiment_refuses_bad_options(args, message):
    proc = subprocess.run([sys.executable, str(EXPERIMENT), *args], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr


# ---- libmemcached's command-line tools ----

def libmemcached_tool(name):
    path = shutil.which(name) or f"/usr/bin/{name}"
    if not os.path.exists(path):
        pytest.fail(f"{name} is not installed (libmemcached-tools: run scripts/setup.sh)")
    return path


def test_libmemcached_tools_and_load_generators_work_against_kv(serve, tmp_path):
    # memcaslap stores values of up to a few KB: room for memcached's 1 MB items (docs/kv.md).
    server = serve_kv(serve, tmp_path / "db", "--max-payload-bytes", "1048700", "--max-response-bytes", "1048700",
                      "--max-in-flight", "64")
    host, port = server.address["tcp"]
    servers = f"--servers={host}:{port}"

    def tool(name, *args, timeout=120):
        return subprocess.run([libmemcached_tool(name), servers, *args], capture_output=True, text=True,
                              timeout=timeout, cwd=tmp_path)

    (tmp_path / "note.txt").write_text("hello from a file\n")
    assert tool("memccp", "note.txt").returncode == 0
    got = tool("memccat", "note.txt")
    assert got.returncode == 0 and got.stdout == "hello from a file\n\n"   # memccat ends each value with one
    assert tool("memcexist", "note.txt").returncode == 0
    assert tool("memctouch", "--expire=3600", "note.txt").returncode == 0
    # memcping and memcstat parse the version (major.minor.micro) before anything else.
    assert tool("memcping").returncode == 0
    stat = tool("memcstat")
    assert stat.returncode == 0 and "cmd_get" in stat.stdout, stat.stdout + stat.stderr
    assert tool("memcrm", "note.txt").returncode == 0
    assert tool("memcexist", "note.txt").returncode != 0
    # The load tools: memcslap's sets and gets, memcaslap's mixed load for a second.
    for test in ("set", "get"):
        slap = tool("memcslap", "--concurrency=2", "--execute-number=200", f"--test={test}")
        assert slap.returncode == 0, slap.stderr
    aslap = subprocess.run([libmemcached_tool("memcaslap"), "-s", f"{host}:{port}", "-t", "1s", "-T", "1", "-c", "4"],
                           capture_output=True, text=True, timeout=120)
    assert aslap.returncode == 0 and "TPS" in aslap.stdout, aslap.stdout + aslap.stderr
    assert tool("memcflush").returncode == 0
    net = server.stop()["network"]["tcp"]
    assert net["refused_by_protocol"] == 0 and net["requests"] == net["replies_ok"] > 500
