"""The kvcache app (apps/kvcache) served by `quanta serve` in the memcached text protocol:
real memcached clients against it (pymemcache, libmemcached's memccapable and memcslap),
memcached's UDP framing, its answers to bad input byte for byte against Debian's memcached
1.6, `quanta load` driving it and real memcached, the graceful stop, and apps of the
previous app ABI. Counts, bytes and ordering only, never timings: socket timeouts are
safety nets, and the server's own counters (its JSON, or SIGUSR1's snapshot) say when it
has seen something."""
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import time

import pytest
from pymemcache.client.base import Client

from memcached_checks import check_noreply, check_storage_commands
from conftest import BUILD_DIR
from test_serve import closed_by_server, read_replies, request, serve, tcp_client, udp_client  # noqa: F401 (fixture)

FRAME = struct.Struct(">HHHH")  # memcached's UDP frame header: request id, sequence, count, reserved
MAX_DATAGRAM = 1400
KEYS = 100


def app_path(name):
    # apps/kvcache and tests/CMakeLists.txt build them into this build.
    path = BUILD_DIR / name
    if not path.exists():
        pytest.fail(f"{path} does not exist: build first")
    return str(path)


def kvcache():
    return app_path("lib/quanta/apps/kvcache-clock.so")


def key(i):
    return f"key:{i:010d}"


def value(i, length=64):
    # kvcache's value_of(): the preloaded value of key i.
    return bytes(ord("a") + (i + k) % 26 for k in range(length))


def serve_kvcache(serve, *args, keys=KEYS, listen=("tcp://127.0.0.1:0",)):
    """kvcache with the default runtime (clock probes, preemptive processor sharing). Its
    protocol asks for in-order connections (QUANTA_PROTOCOL_IN_ORDER), so a command sees
    every earlier command of its connection, as with memcached."""
    return serve("--app", kvcache(), "--app-config", f"keys={keys}", *args, listen=listen)


def read_until(sock, end, data=b""):
    """Reads until the bytes received end with `end`; returns them all."""
    while not data.endswith(end):
        chunk = sock.recv(65536)
        if not chunk:
            raise AssertionError(f"connection closed after {data!r}, waiting for {end!r}")
        data += chunk
    return data


class LineReader:
    """Replies of one line each, read from a socket; bytes past the lines asked for are kept
    for the next call."""

    def __init__(self, sock):
        self.sock = sock
        self.data = b""

    def lines(self, count):
        while self.data.count(b"\r\n") < count:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise AssertionError(f"connection closed after {self.data[-200:]!r}, waiting for {count} lines")
            self.data += chunk
        parts = self.data.split(b"\r\n", count)
        self.data = parts[count]
        return parts[:count]


def exchange(sock, send, end):
    sock.sendall(send)
    return read_until(sock, end)


# ---- real clients ----

def test_pymemcache_round_trips_every_command(serve):
    server = serve_kvcache(serve)
    c = Client(server.address["tcp"], timeout=30, connect_timeout=30, default_noreply=False)
    assert c.get(key(3)) == value(3)
    assert c.set("a", b"1") is True
    check_storage_commands(c, key, value)
    assert c.version() == b"1.6.0-quanta-kvcache"
    stats = {k.decode() if isinstance(k, bytes) else k: v for k, v in c.stats().items()}
    assert int(stats["curr_items"]) == KEYS + 2      # the preloaded keys, a and n
    assert c.stats("slabs") == {}
    check_noreply(c)
    assert c.get("q") is None
    assert c.flush_all() is True
    assert c.get("a") is None and c.get(key(3)) is None
    assert c.flush_all(noreply=True) is True
    assert c.version() == b"1.6.0-quanta-kvcache"
    c.close()
    # pymemcache has no verbosity.
    raw = tcp_client(server)
    assert exchange(raw, b"verbosity 1\r\nverbosity 1 noreply\r\nversion\r\n", b"quanta-kvcache\r\n") == (
        b"OK\r\nVERSION 1.6.0-quanta-kvcache\r\n")
    net = server.stop()["network"]["tcp"]
    assert net["refused_by_protocol"] == 0
    # A noreply command's reply is counted, though nothing was sent.
    assert net["requests"] == net["replies_ok"] == 46


# The kernel-thread baseline (quanta serve --runtime linux) keeps the same promises: its
# pool's free threads must not run a connection's later commands beside an earlier one.
RUNTIMES = pytest.mark.parametrize("runtime", [(), ("--runtime", "linux")], ids=["quanta", "linux"])


@RUNTIMES
def test_a_connection_runs_its_commands_in_order(serve, runtime):
    # Pipelined in one write: a long scan, then sets without replies, increments and gets
    # of what they stored. Each get must see every command before it on the connection,
    # although the scan is preempted (or, on kernel threads, other threads are free) and
    # the rest would otherwise run beside it.
    server = serve_kvcache(serve, *runtime, keys=20000)
    sock = socket.create_connection(server.address["tcp"], timeout=30)
    rounds = 50
    batch = [b"scan key:0000000000 20000\r\n", b"set n 0 0 1 noreply\r\n0\r\n"]
    for i in range(rounds):
        batch.append(b"set k%d 0 0 %d noreply\r\n%s\r\n" % (i, len(value(i)), value(i)))
        batch.append(b"incr n 1 noreply\r\n")
        batch.append(b"get k%d n\r\n" % i)
    sock.sendall(b"".join(batch))
    data = b""
    while data.count(b"END\r\n") < rounds:
        chunk = sock.recv(65536)
        assert chunk, f"connection closed after {data[-200:]!r}"
        data += chunk
    replies = data.split(b"\r\n")
    assert replies[0].startswith(b"SCANNED 20000 "), replies[0]
    text = b"\r\n".join(replies[1:])
    for i in range(rounds):
        assert b"VALUE k%d 0 %d\r\n%s\r\nVALUE n 0 %d\r\n%d\r\nEND" % (
            i, len(value(i)), value(i), len(str(i + 1)), i + 1) in text, i
    net = server.stop()["network"]["tcp"]
    # One request of the connection in the runtime at a time: the rest waited, unread.
    assert net["paused_at_in_flight_limit"] > 0
    assert net["requests"] == 2 + 3 * rounds


def test_scan_walks_the_items_it_is_asked_for(serve):
    server = serve_kvcache(serve)
    conn = tcp_client(server)
    conn.sendall(f"scan {key(0)} 10\r\nscan {key(0)} 1000\r\n".encode())
    first, second = LineReader(conn).lines(2)
    assert re.fullmatch(rb"SCANNED 10 [0-9a-f]{16}", first)
    assert second.startswith(b"SCANNED 100 ")  # all there are
    assert exchange(conn, b"scan k 0\r\n", b"\r\n") == b"CLIENT_ERROR bad command line format\r\n"


# ---- memcached's UDP framing ----

def udp_exchange(sock, request_id, command):
    """Sends `command` in one framed datagram; returns the reply's bytes after checking its
    datagrams' headers (all with the request's id, numbered 0..count-1, at most 1400 bytes)."""
    sock.send(FRAME.pack(request_id, 0, 1, 0) + command)
    parts = {}
    count = None
    while count is None or len(parts) < count:
        datagram = sock.recv(65536)
        assert len(datagram) <= MAX_DATAGRAM
        rid, seq, n, reserved = FRAME.unpack_from(datagram)
        assert (rid, reserved) == (request_id, 0)
        assert count in (None, n)
        count = n
        assert seq < n and seq not in parts
        parts[seq] = datagram[FRAME.size:]
    return b"".join(parts[i] for i in range(count)), count


def test_udp_speaks_memcached_framing(serve):
    # Without preemption: datagrams have no connection to keep them in order, so under
    # processor sharing a `set` whose quantum ran out (a busy host takes the CPU) could be
    # passed by the `get` sent after it, and the noreply check below would miss its value.
    server = serve_kvcache(serve, "--max-response-bytes", "16384", "--preempt", "none",
                           listen=("udp://127.0.0.1:0",))
    sock = udp_client(server)
    reply, count = udp_exchange(sock, 7, f"get {key(1)}\r\n".encode())
    assert count == 1
    assert reply == f"VALUE {key(1)} 0 64\r\n".encode() + value(1) + b"\r\nEND\r\n"
    reply, _ = udp_exchange(sock, 8, b"set u 5 0 3\r\nabc\r\n")
    assert reply == b"STORED\r\n"
    assert udp_exchange(sock, 9, b"get u\r\n")[0] == b"VALUE u 5 3\r\nabc\r\nEND\r\n"
    # 40 values of 64 bytes: about 3.7 KB, so several datagrams.
    keys = list(range(40))
    reply, count = udp_exchange(sock, 10, ("get " + " ".join(key(i) for i in keys) + "\r\n").encode())
    assert count == 3
    assert reply == b"".join(f"VALUE {key(i)} 0 64\r\n".encode() + value(i) + b"\r\n" for i in keys) + b"END\r\n"
    # Not framed: shorter than the header, a request said to span two datagrams, and one
    # numbered 1 of 1. None is answered; each is counted.
    sock.send(b"get u\r\n")
    sock.send(FRAME.pack(11, 0, 2, 0) + b"get u\r\n")
    sock.send(FRAME.pack(12, 1, 1, 0) + b"get u\r\n")
    # Half a command in one datagram: no answer either, counted as truncated.
    sock.send(FRAME.pack(13, 0, 1, 0) + b"get u")
    # An error line comes back framed like any reply.
    assert udp_exchange(sock, 14, b"bogus\r\n")[0] == b"ERROR\r\n"
    # noreply: no datagram at all; the get after it sees the value.
    sock.send(FRAME.pack(15, 0, 1, 0) + b"set v 0 0 1 noreply\r\nv\r\n")
    assert udp_exchange(sock, 16, b"get v\r\n")[0] == b"VALUE v 0 1\r\nv\r\nEND\r\n"
    net = server.stop()["network"]["udp"]
    assert net["bad_datagram_header"] == 3
    assert net["bad_truncated"] == 1
    assert net["refused_by_protocol"] == 1
    # Every request is in replies_ok, the silent one too.
    assert net["requests"] == net["replies_ok"] == 6


# ---- libmemcached's tools ----

def test_memccapable_ascii_passes(serve):
    server = serve_kvcache(serve)
    host, port = server.address["tcp"]
    proc = subprocess.run(["memccapable", "-h", host, "-p", str(port), "-a"], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    server.stop()


def test_memcslap_ascii_load_is_served_without_a_protocol_error(serve):
    # memcslap's values are about 4 KB: over the default request and response buffers.
    server = serve_kvcache(serve, "--max-payload-bytes", "16384", "--max-response-bytes", "16384")
    host, port = server.address["tcp"]
    proc = subprocess.run(["memcslap", f"--servers={host}:{port}", "--concurrency=2", "--execute-number=2000"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # memcslap has exited, but the server may not have read its last bytes yet: wait until
    # it has seen both connections end. They end with "quit" (the protocol's own close) or
    # by closing; a line the protocol could not read would end one otherwise.
    while True:
        net = server.snapshot()["tcp"]
        if net["closed_by_protocol"] + net["closed_by_peer"] == net["connections"] == 2:
            break
        assert net["closed_error"] == net["closed_mid_request"] == 0, net
    net = server.stop()["network"]["tcp"]
    assert net["requests"] == net["replies_ok"] == 2 * 2000  # --execute-number per connection
    assert net["refused_by_protocol"] == 0


# ---- against real memcached, byte for byte ----

def free_port(kind=socket.SOCK_STREAM):
    s = socket.socket(socket.AF_INET, kind)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@pytest.fixture
def memcached():
    """Debian's memcached on free ports (TCP, and UDP on another): its address (host, tcp, udp)."""
    if shutil.which("memcached") is None:
        pytest.fail("memcached is not installed: run scripts/setup.sh")
    tcp, udp = free_port(), free_port(socket.SOCK_DGRAM)
    command = ["memcached", "-t", "1", "-p", str(tcp), "-U", str(udp), "-l", "127.0.0.1"]
    if os.geteuid() == 0:
        command += ["-u", "root"]  # memcached refuses to run as root unless told whom to run as
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        # memcached prints no line when it is ready: poll until it accepts (or exits).
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise AssertionError(f"memcached exited {proc.returncode}: {proc.stderr.read()}")
            try:
                socket.create_connection(("127.0.0.1", tcp), timeout=30).close()
                break
            except ConnectionRefusedError:
                assert time.monotonic() < deadline, "memcached did not start listening"
                time.sleep(0.01)
        yield ("127.0.0.1", tcp, udp)
    finally:
        proc.kill()
        proc.wait()


LONG_KEY = "k" * 251
# Each case goes on a fresh connection, in this order, to both servers (both start empty,
# so a case may rely on what the ones before it stored). Left out: flags of 2^32 or more,
# which memcached stores cut to 32 bits and kvcache refuses (memcached_text.h); stats,
# whose values differ; and a set of a value too large, after which memcached has also
# dropped the key's old value and kvcache keeps it (its framer refuses the set before any
# handler sees it), besides the limits differing (memcached's -I, quanta's
# --max-payload-bytes).
CASES = [
    b"bogus\r\n",
    b"\r\n",                                        # an empty line
    b"GET a\r\n",                                   # commands are lower case
    b"get\r\n",                                     # wrong token counts
    b"set a 0 0\r\n",
    b"set a 0 0 1 noreply extra\r\nx\r\n",
    b"cas a 0 0 1\r\nx\r\n",
    b"incr a\r\n",
    b"touch a\r\n",
    b"delete\r\n",
    b"stats a b\r\n",
    b"verbosity\r\n",
    f"get {LONG_KEY}\r\n".encode(),                 # a key of 251 bytes
    f"set {LONG_KEY} 0 0 1\r\nx\r\n".encode(),
    f"delete {LONG_KEY}\r\n".encode(),
    b"set a 0 0 -1\r\n",                            # a negative length
    b"set a x 0 1\r\nx\r\n",                        # bad flags: the value is then a command
    b"set a 0 x 1\r\nx\r\n",                        # bad exptime
    b"set a 0 0 3\r\nabcXY\r\n",                    # bad data chunk
    b"set a 0 0 3\r\nabc\n\r\n",
    b"set a 1 0 3\r\nabc\r\n",
    b"get a\r\n",
    b"gets a\r\n",
    b"get a b a\r\n",
    b"add a 0 0 1\r\nz\r\n",
    b"add b 2 0 2\r\nbb\r\n",
    b"replace c 0 0 1\r\nc\r\n",
    b"append a 9 0 2\r\nde\r\n",                    # keeps a's flags
    b"prepend a 0 0 1\r\n_\r\n",
    b"get a b\r\n",
    b"cas a 0 0 1 1\r\nq\r\n",                      # the unique does not match
    b"cas nope 0 0 1 1\r\nq\r\n",
    b"set n 0 0 2\r\n10\r\n",
    b"incr n 5\r\n",
    b"decr n 100\r\n",                              # stops at 0
    b"incr n x\r\n",                                # bad delta
    b"incr n -1\r\n",
    b"incr a 1\r\n",                                # not a number
    b"incr nope 1\r\n",
    b"set big 0 0 20\r\n18446744073709551615\r\n",
    b"incr big 1\r\n",                              # wraps to 0
    # No get of a number that shrank: memcached pads it with spaces to its old length in
    # place, which its protocol.txt leaves to the implementation (kvcache does not pad).
    b"touch n x\r\n",                               # bad exptime
    b"touch n 0\r\n",
    b"touch nope 10\r\n",
    b"delete n 1\r\n",                              # delete's usage line
    b"delete n 0 0\r\n",
    b"delete n 0\r\n",
    b"delete n\r\n",
    b"delete n noreply\r\nget n\r\n",
    b"set q 0 0 1 noreply\r\nq\r\nget q\r\n",       # noreply forms: only the get answers
    b"add q 0 0 1 noreply\r\nr\r\nget q\r\n",
    b"incr q 1 noreply\r\nget q\r\n",
    b"touch q 0 noreply\r\n",
    b"delete q 0 noreply\r\nget q\r\n",
    b"set e 0 -1 1\r\ne\r\nget e\r\n",             # a negative exptime: expired at once
    b"version extra tokens\r\n",
    b"verbosity 1\r\n",
    b"verbosity 1 noreply\r\n",
    b"flush_all x\r\n",
    b"flush_all noreply\r\n",
    b"get a b n\r\n",
    b"flush_all\r\n",
]


def normalise(reply):
    """What legitimately differs: the version string and cas uniques."""
    reply = re.sub(rb"VERSION [^\r]*", b"VERSION x", reply)
    return re.sub(rb"(VALUE \S+ \d+ \d+) \d+\r\n", rb"\1 CAS\r\n", reply)


def replies_to_cases(address):
    # After each case, a set and a get of a key no case uses: its answer cannot be part of
    # the case's, so the bytes before it are all the case's (set with it: a case may flush).
    sentinel = b"STORED\r\nVALUE sentinel 0 4\r\nDONE\r\nEND\r\n"
    answers = []
    for case in CASES:
        conn = socket.create_connection(address, timeout=30)
        reply = exchange(conn, case + b"set sentinel 0 0 4\r\nDONE\r\nget sentinel\r\n", sentinel)
        answers.append(normalise(reply[:-len(sentinel)]))
        conn.close()
    return answers


def test_answers_match_memcached_byte_for_byte(serve, memcached):
    host, port, _ = memcached
    expected = replies_to_cases((host, port))
    server = serve_kvcache(serve, keys=0)
    got = replies_to_cases(server.address["tcp"])
    for case, want, have in zip(CASES, expected, got):
        assert have == want, f"{case!r}: memcached {want!r}, kvcache {have!r}"
    # Every error line but the handler's own (incr of a value that is not a number) was the
    # framer's refusal, and counted as one.
    net = server.stop()["network"]["tcp"]
    errors = sum(len(re.findall(rb"(?m)^(ERROR|CLIENT_ERROR[^\r]*|SERVER_ERROR[^\r]*)\r$", r)) for r in got)
    handler_errors = sum(r.count(b"CLIENT_ERROR cannot increment or decrement non-numeric value\r\n") for r in got)
    assert handler_errors == 1
    assert net["refused_by_protocol"] == errors - handler_errors


# ---- bad input on kvcache ----

def test_bad_input_is_answered_counted_and_the_connection_goes_on(serve):
    server = serve_kvcache(serve, "--max-payload-bytes", "512")
    conn = tcp_client(server)
    # (The bad chunk's 2 bytes after "ab" are where its \r\n should be: nothing is left over.)
    errors = exchange(conn, b"bogus\r\nget\r\nincr k x\r\nset k 0 0 2\r\nabXY", b"bad data chunk\r\n")
    assert errors == (b"ERROR\r\nERROR\r\nCLIENT_ERROR invalid numeric delta argument\r\n"
                      b"CLIENT_ERROR bad data chunk\r\n")
    # A value over the limit is answered as soon as its line is read; its bytes, sent in
    # pieces after the answer came, are thrown away rather than read as commands.
    too_large = exchange(conn, b"set big 0 0 2000\r\n" + b"get x\r\n" * 10, b"\r\n")
    assert too_large == b"SERVER_ERROR object too large for cache\r\n"
    rest = (b"get x\r\n" * 300)[:2000 - 70] + b"\r\n"
    for i in range(0, len(rest), 400):
        conn.sendall(rest[i:i + 400])
    assert exchange(conn, b"set ok 0 0 2\r\nhi\r\nget ok\r\n", b"END\r\n") == b"STORED\r\nVALUE ok 0 2\r\nhi\r\nEND\r\n"
    # A line with no end within 2048 bytes: answered, then closed.
    long_line = tcp_client(server)
    long_line.sendall(b"x" * 3000)
    assert read_until(long_line, b"\r\n") == b"CLIENT_ERROR line too long\r\n"
    assert closed_by_server(long_line)
    # quit: the replies due go out, then the connection closes.
    quitter = tcp_client(server)
    quitter.sendall(b"get ok\r\nquit\r\nget ok\r\n")
    assert read_until(quitter, b"END\r\n") == b"VALUE ok 0 2\r\nhi\r\nEND\r\n"
    assert closed_by_server(quitter)
    net = server.stop()["network"]["tcp"]
    assert net["refused_by_protocol"] == 5  # the four error lines and the value too large
    assert net["closed_by_protocol"] == 2   # the long line and the quit
    assert net["requests"] == 3             # set ok, get ok, and the quitter's get


# ---- quanta load with the app's requests ----

LOAD_RUN = ["--rate-rps", "2000", "--duration-s", "0.25", "--timeout-ms", "2000", "--arrivals", "constant",
            "--warmup-frac", "0", "--no-progress"]


def load_kvcache(run_json, target, *args):
    report = run_json("load", "--app", kvcache(), "--app-config", "keys=1000,get=0.8,set=0.2", "--target", target,
                      *LOAD_RUN, *args)
    client = report["client"]
    assert client["sent"] == client["answered"] + client["dropped"] + client["overloaded"] + client["bad_request"]
    # Loopback at a modest rate with a generous timeout: everything is answered.
    assert client["sent"] > 0 and client["answered"] == client["sent"]
    assert report["classes"]["get"]["count"] > 0 and report["classes"]["set"]["count"] > 0
    return client["sent"]


@pytest.mark.parametrize("transport", ["tcp", "udp"])
def test_quanta_load_drives_kvcache(serve, run_json, transport):
    # Preempted at its probes, side by side: only counts are checked here.
    server = serve_kvcache(serve, keys=1000, listen=(f"{transport}://127.0.0.1:0",))
    host, port = server.address[transport]
    extra = ["--connections", "2"] if transport == "tcp" else []
    sent = load_kvcache(run_json, f"{transport}://{host}:{port}", *extra)
    report = server.stop()
    net = report["network"][transport]
    assert net["requests"] == net["replies_ok"] == sent
    assert report["requests"]["completed"] == sent
    assert net["refused_by_protocol"] == 0
    if transport == "tcp":
        assert net["connections"] == 2


@pytest.mark.parametrize("transport", ["tcp", "udp"])
def test_quanta_load_drives_real_memcached(run_json, memcached, transport):
    # Its cache is empty: gets miss, and a miss is answered too ("END").
    host, tcp_port, udp_port = memcached
    port = tcp_port if transport == "tcp" else udp_port
    load_kvcache(run_json, f"{transport}://{host}:{port}")


# ---- the graceful stop ----

@RUNTIMES
def test_graceful_stop_answers_every_set_taken(serve, runtime):
    server = serve_kvcache(serve, *runtime, "--max-in-flight-per-connection", "64")
    count = 300
    clients = [tcp_client(server) for _ in range(2)]
    for k, conn in enumerate(clients):
        conn.sendall(b"".join(f"set g{k}:{i} 0 0 8\r\n{i:08d}\r\n".encode() for i in range(count)))
    # Some are acknowledged before the signal...
    readers = [LineReader(conn) for conn in clients]
    assert all(reader.lines(10) == [b"STORED"] * 10 for reader in readers)
    while server.snapshot()["tcp"]["requests"] != 2 * count:  # until the server has taken them all
        pass
    report = server.stop()
    # ...and every one the server took is answered before it exits.
    for reader in readers:
        assert reader.lines(count - 10) == [b"STORED"] * (count - 10)
        assert reader.data == b"" and closed_by_server(reader.sock)
    net = report["network"]["tcp"]
    assert net["requests"] == net["replies_ok"] == 2 * count
    assert report["requests"]["completed"] == 2 * count
    assert report["config"]["runtime"] == ("linux" if runtime else "quanta")


# ---- apps of other ABI versions ----

def test_an_app_of_abi_version_2_is_served(serve):
    server = serve("--app", app_path("tests/apps/abi2.so"), "--preempt", "none", listen=("tcp://127.0.0.1:0",))
    conn = tcp_client(server)
    payloads = [b"", b"a", b"abc", os.urandom(100)]
    conn.sendall(b"".join(request(i, p) for i, p in enumerate(payloads)))
    replies = read_replies(conn, len(payloads))
    assert [r["response"] for r in replies] == [p[::-1] for p in payloads]
    assert [r["value"] for r in replies] == [1000 + len(p) for p in payloads]
    report = server.stop()
    assert list(report["classes"]) == ["reverse"]


def test_an_app_of_abi_version_2_runs_with_the_generator(run_json):
    report = run_json("run", "--app", app_path("tests/apps/abi2.so"), "--preempt", "none", "--rate-rps", "1000",
                      "--duration-s", "0.1", "--warmup-frac", "0")
    run = report  # one run: not in a "runs" list
    assert run["requests"]["completed"] == run["requests"]["generated"] > 0
    assert run["classes"]["reverse"]["count"] == run["requests"]["completed"]


def test_an_app_of_an_unknown_abi_version_is_refused(run_quanta):
    proc = run_quanta("serve", "--app", app_path("tests/apps/abi99.so"), "--listen", "tcp://127.0.0.1:0",
                      "--duration-s", "5")
    assert proc.returncode == 2, proc.stderr
    assert "version 99" in proc.stderr
