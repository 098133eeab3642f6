"""`quanta serve` over loopback: round trips through every dispatch policy, reply order on
TCP, every bad input counted by its reason, and the graceful stop. Counts and ordering
only, never timings. Each server listens on port 0 and the test reads the bound ports
from its stderr."""
import json
import os
import queue
import signal
import socket
import struct
import subprocess
import threading
import time
from pathlib import Path

import pytest

from conftest import BUILD_DIR

REQUEST = struct.Struct("<HHIQ")       # magic, class, payload_len, request_id
REPLY = struct.Struct("<HHIQQiI")      # magic, kind, response_len, request_id, value, status, reserved
REQUEST_MAGIC, REPLY_MAGIC = 0x5131, 0x5231
OK, OVERLOADED, BAD_REQUEST = 0, 1, 2
DISPATCH_POLICIES = ["jsq-msq", "central", "jbsq:2", "steal"]
# How the TCP front end learns which sockets are ready (--tcp-poll): the TCP tests run with both.
TCP_POLLS = ["epoll", "io_uring"]


def echo_app():
    # tests/CMakeLists.txt builds it beside the tests of this build.
    path = BUILD_DIR / "tests" / "apps" / "echo.so"
    if not path.exists():
        pytest.fail(f"{path} does not exist: build first")
    return str(path)


def request(request_id, payload=b"", class_index=0):
    return REQUEST.pack(REQUEST_MAGIC, class_index, len(payload), request_id) + payload


def parse_reply(data):
    magic, kind, response_len, request_id, value, status, _ = REPLY.unpack_from(data)
    assert magic == REPLY_MAGIC
    return {"kind": kind, "id": request_id, "value": value, "status": status,
            "response": data[REPLY.size:REPLY.size + response_len], "response_len": response_len}


class Server:
    """A `quanta serve` process; stderr is read by a thread so that it never blocks."""

    def __init__(self, quanta_bin, tmp_path, *args, listen=("udp://127.0.0.1:0", "tcp://127.0.0.1:0"), fmt="json"):
        command = [quanta_bin, "serve", "--format", fmt, *args]
        self.fmt = fmt
        for address in listen:
            command += ["--listen", address]
        self.stdout_path = tmp_path / f"serve-{id(self)}.json"
        self.stdout = open(self.stdout_path, "w")
        self.proc = subprocess.Popen(command, stdout=self.stdout, stderr=subprocess.PIPE, text=True)
        self.lines = queue.Queue()
        self.stderr = []
        threading.Thread(target=self._read_stderr, daemon=True).start()
        self.address = {}
        while len(self.address) < len(listen):
            line = self.lines.get(timeout=60)
            if line is None:
                raise AssertionError(f"quanta serve exited: {''.join(self.stderr)}")
            if "listening on " in line:
                url = line.strip().split("listening on ")[1]
                transport, host_port = url.split("://")
                host, port = host_port.rsplit(":", 1)
                self.address[transport] = (host, int(port))

    def _read_stderr(self):
        for line in self.proc.stderr:
            self.stderr.append(line)
            self.lines.put(line)
        self.lines.put(None)

    def snapshot(self):
        """The network counters, as SIGUSR1 prints them."""
        self.proc.send_signal(signal.SIGUSR1)
        while True:
            line = self.lines.get(timeout=60)
            assert line is not None, "quanta serve exited"
            if line.startswith("{"):
                return json.loads(line)["network"]

    def stop(self, sig=signal.SIGTERM):
        self.proc.send_signal(sig)
        code = self.proc.wait(timeout=120)
        self.stdout.close()
        assert code == 0, f"quanta serve exited {code}: {''.join(self.stderr)}"
        text = self.stdout_path.read_text()
        return json.loads(text) if self.fmt == "json" else text

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.stdout.close()


@pytest.fixture
def serve(quanta_bin, tmp_path):
    servers = []

    def start(*args, **kwargs):
        server = Server(quanta_bin, tmp_path, *args, **kwargs)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.kill()


def udp_client(server):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    # Tests send a burst before reading its replies: room for all of them, lest the
    # kernel drop replies at this end (a 1400-byte datagram takes over 2 KiB of buffer).
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.settimeout(30)
    s.connect(server.address["udp"])
    return s


def tcp_client(server):
    s = socket.create_connection(server.address["tcp"], timeout=30)
    return s


def udp_round_trips(sock, payloads, window=16, class_index=0):
    """Sends the payloads with at most `window` unanswered at a time (so loopback buffers
    never overflow); returns the replies by id."""
    replies = {}
    sent = 0
    while len(replies) < len(payloads):
        while sent < len(payloads) and sent - len(replies) < window:
            sock.send(request(sent, payloads[sent], class_index))
            sent += 1
        reply = parse_reply(sock.recv(65536))
        assert reply["id"] not in replies
        replies[reply["id"]] = reply
    return replies


def recv_exactly(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise AssertionError(f"connection closed after {len(data)} of {n} bytes")
        data += chunk
    return data


def read_replies(sock, count):
    replies = []
    for _ in range(count):
        header = recv_exactly(sock, REPLY.size)
        response_len = REPLY.unpack(header)[2]
        replies.append(parse_reply(header + recv_exactly(sock, response_len)))
    return replies


def closed_by_server(sock):
    """True once the server has closed the connection (EOF or reset)."""
    try:
        while True:
            if not sock.recv(65536):
                return True
    except ConnectionResetError:
        return True


@pytest.mark.parametrize("tcp_poll", TCP_POLLS)
@pytest.mark.parametrize("dispatch", DISPATCH_POLICIES)
def test_udp_and_tcp_round_trips_through_every_dispatch_policy(serve, dispatch, tcp_poll):
    server = serve("--app", echo_app(), "--preempt", "none", "--dispatch", dispatch, "--tcp-poll", tcp_poll)
    report = echo_round_trips(server)
    assert report["config"]["tcp_poll"] == tcp_poll
    assert report["network"]["tcp"]["poll_ring_errors"] == 0


def echo_round_trips(server, count=300):
    """Echo requests of 0 to 199 bytes over UDP (`count`, each answered), then the same
    pipelined on one TCP connection (answered in order); stops the server, checks its
    counts and returns its report. Between the two, a SIGUSR1 snapshot must have counted
    every UDP request (requests are counted before they run; a reply may reach the client
    before its sender has counted it)."""
    payloads = [os.urandom(i % 200) for i in range(count)]
    udp = udp_client(server)
    replies = udp_round_trips(udp, payloads)
    for i, payload in enumerate(payloads):
        assert (replies[i]["kind"], replies[i]["response"], replies[i]["value"]) == (OK, payload, len(payload))
    assert server.snapshot()["udp"]["requests"] == count
    tcp = tcp_client(server)
    tcp.sendall(b"".join(request(i, p) for i, p in enumerate(payloads)))
    tcp_replies = read_replies(tcp, len(payloads))
    assert [r["id"] for r in tcp_replies] == list(range(len(payloads)))
    assert [r["response"] for r in tcp_replies] == payloads
    tcp.close()
    report = server.stop()
    assert report["mode"] == "serve"
    assert report["requests"]["completed"] == 2 * len(payloads)
    assert set(report["classes"]) == {"echo", "spin_echo", "echo_twice"}
    assert report["classes"]["echo"]["count"] == 2 * len(payloads)
    net = report["network"]
    assert net["udp"]["datagrams"] == net["udp"]["requests"] == net["udp"]["replies_ok"] == len(payloads)
    assert net["tcp"]["requests"] == net["tcp"]["replies_ok"] == len(payloads)
    assert net["tcp"]["connections"] == 1
    return report


@pytest.mark.parametrize("dispatch", DISPATCH_POLICIES)
def test_the_spin_app_serves_its_cycles_payload(serve, dispatch):
    server = serve("--dispatch", dispatch, listen=("udp://127.0.0.1:0",))
    cycles = [struct.pack("<Q", 1000 * (i % 5)) for i in range(100)]
    replies = udp_round_trips(udp_client(server), cycles)
    assert sorted(replies) == list(range(100))
    assert all(r["kind"] == OK and r["status"] == 0 for r in replies.values())
    report = server.stop()
    assert report["requests"]["completed"] == 100
    # The spin app declares no classes: those of --workload (extreme-bimodal by default,
    # as quanta load sends), all of these requests in the first.
    assert list(report["classes"]) == ["0.5", "500"]
    assert report["classes"]["0.5"]["count"] == 100


@pytest.mark.parametrize("preempt, quantum_us", [("clock", 2), ("flag", 2), ("hybrid", 2), ("signal", 50),
                                                ("none", 2)])
def test_every_preemption_mechanism_serves_the_spin_app(serve, preempt, quantum_us):
    # Requests of 0 to ~100 us of spinning: the longer ones are preempted (but for none).
    # Over TCP polled through io_uring (the round-trip tests run both ways).
    server = serve("--preempt", preempt, "--quantum-us", str(quantum_us), "--tcp-poll", "io_uring",
                   listen=("tcp://127.0.0.1:0",))
    conn = tcp_client(server)
    count = 60
    conn.sendall(b"".join(request(i, struct.pack("<Q", 100_000 * (i % 3))) for i in range(count)))
    replies = read_replies(conn, count)
    assert [(r["id"], r["kind"], r["status"]) for r in replies] == [(i, OK, 0) for i in range(count)]
    report = server.stop()
    assert report["config"]["preempt"] == preempt
    assert report["requests"]["completed"] == count


@pytest.mark.parametrize("tcp_poll", TCP_POLLS)
@pytest.mark.parametrize("runtime", [
    # Two workers on a 2-CPU machine (oversubscribed: only ordering is checked here)...
    ("--preempt", "none", "--workers", "2", "--oversubscribe", "--dispatch", "steal"),
    # ...or four kernel threads taking a connection's requests from one shared queue
    # (test_serve_linux.py).
    ("--runtime", "linux", "--threads-per-core", "4"),
], ids=["quanta", "linux"])
def test_tcp_replies_keep_request_order_when_requests_finish_out_of_order(serve, runtime, tcp_poll):
    # Requests of very different lengths, so that later requests often finish first.
    server = serve("--app", echo_app(), *runtime, "--max-in-flight-per-connection", "8", "--tcp-poll", tcp_poll)
    connections = [tcp_client(server) for _ in range(3)]
    count = 120
    for k, conn in enumerate(connections):
        batch = []
        for i in range(count):
            cycles = 2_000_000 if (i + k) % 7 == 0 else 0
            batch.append(request(i, struct.pack("<Q", cycles) + bytes([k, i % 256]), class_index=1))
        conn.sendall(b"".join(batch))
    for k, conn in enumerate(connections):
        replies = read_replies(conn, count)
        assert [r["id"] for r in replies] == list(range(count))
        assert all(r["response"][8:] == bytes([k, i % 256]) for i, r in enumerate(replies))
    report = server.stop()
    assert report["config"]["runtime"] == ("linux" if "linux" in runtime else "quanta")
    assert report["network"]["tcp"]["replies_ok"] == report["requests"]["completed"] == 3 * count
    # 8 in flight at most per connection, 120 pipelined: reading had to stop and resume.
    assert report["network"]["tcp"]["paused_at_in_flight_limit"] > 0


@pytest.mark.parametrize("receive", ["recvmmsg", "io_uring"])
def test_bad_datagrams_are_answered_or_dropped_and_counted_by_reason(serve, receive):
    # Both ways of receiving see the same datagrams: the truncation flag, the sender and
    # the kernel's counters come through either.
    server = serve("--app", echo_app(), "--preempt", "none", "--max-payload-bytes", "64", "--udp-receive", receive,
                   listen=("udp://127.0.0.1:0",))
    udp = udp_client(server)
    udp.send(b"")                                              # empty: dropped, no reply
    udp.send(b"\x31\x51\x00")                                  # shorter than a header
    assert parse_reply(udp.recv(100)) == {"kind": BAD_REQUEST, "id": 0, "value": 0, "status": 0,
                                          "response": b"", "response_len": 0}
    udp.send(b"GET / HTTP/1.0\r\n\r\n")                        # not this protocol
    assert parse_reply(udp.recv(100))["kind"] == BAD_REQUEST
    udp.send(request(7, b"x" * 65))                            # over --max-payload-bytes
    assert parse_reply(udp.recv(100)) == {"kind": BAD_REQUEST, "id": 7, "value": 0, "status": 0,
                                          "response": b"", "response_len": 0}
    udp.send(request(8, b"abc", class_index=3))                # the app serves classes 0, 1 and 2
    assert parse_reply(udp.recv(100))["id"] == 8
    udp.send(REQUEST.pack(REQUEST_MAGIC, 0, 10, 9) + b"abc")   # says 10 bytes, carries 3
    assert parse_reply(udp.recv(100))["kind"] == BAD_REQUEST
    udp.send(request(10, b"still served"))
    good = parse_reply(udp.recv(100))
    assert (good["kind"], good["id"], good["response"]) == (OK, 10, b"still served")
    net = server.stop()["network"]["udp"]
    assert net["datagrams"] == 7
    assert (net["dropped_empty"], net["bad_truncated"], net["bad_magic"], net["bad_too_large"],
            net["bad_class"], net["bad_length_mismatch"]) == (1, 1, 1, 1, 1, 1)
    assert net["requests"] == net["replies_ok"] == 1
    assert net["receive_errors"] == 0


def test_udp_sent_equals_answered_plus_overloaded(serve):
    # Two request records and requests that spin: a burst finds them all in use.
    server = serve("--app", echo_app(), "--preempt", "none", "--max-in-flight", "2", listen=("udp://127.0.0.1:0",))
    udp = udp_client(server)
    burst = 40
    for i in range(burst):
        udp.send(request(i, struct.pack("<Q", 5_000_000), class_index=1))
    kinds = [parse_reply(udp.recv(100))["kind"] for _ in range(burst)]
    assert kinds.count(OK) + kinds.count(OVERLOADED) == burst
    assert kinds.count(OVERLOADED) > 0
    net = server.stop()["network"]["udp"]
    assert net["datagrams"] == burst
    assert net["replies_ok"] == kinds.count(OK)
    assert net["overloaded"] == kinds.count(OVERLOADED)


def test_datagrams_the_kernel_dropped_are_counted_so_every_datagram_is_accounted_for(serve):
    server = serve("--app", echo_app(), "--preempt", "none", listen=("udp://127.0.0.1:0",))
    blaster = udp_client(server)
    # Stopped, the server reads nothing: its receive buffer fills and the kernel drops the rest.
    server.proc.send_signal(signal.SIGSTOP)
    blast = 5000
    for i in range(blast):
        blaster.send(request(i, b"x" * 100))
    server.proc.send_signal(signal.SIGCONT)
    # Another socket, so that its reply cannot be lost behind the blast's replies. A sync
    # sent while the buffer is still full is dropped too, so it is sent again until one is
    # answered; then one more, which the server reads only after everything before it, and
    # the kernel's drop count came with it.
    sync = udp_client(server)
    sync.settimeout(2)
    syncs = 0
    while True:
        sync.send(request(blast + syncs, b"sync"))
        syncs += 1
        try:
            parse_reply(sync.recv(100))
            break
        except TimeoutError:
            assert syncs < 30, "no sync datagram was ever answered"
    final = blast + syncs
    sync.send(request(final, b"sync"))
    syncs += 1
    sync.settimeout(30)
    while parse_reply(sync.recv(100))["id"] != final:
        pass
    net = server.stop()["network"]["udp"]
    assert net["dropped_by_kernel"] > 0
    assert net["datagrams"] + net["dropped_by_kernel"] == blast + syncs


@pytest.mark.parametrize("transport, tcp_poll", [("udp", "epoll"), ("tcp", "epoll"), ("tcp", "io_uring")])
def test_requests_the_runtime_drops_are_answered_overloaded(serve, transport, tcp_poll):
    # A ring of 2 and one task slot: a burst of long requests overflows them, and --on-full
    # drop has the runtime hand the rest back to the front end.
    server = serve("--app", echo_app(), "--preempt", "none", "--on-full", "drop", "--ring-capacity", "2",
                   "--task-slots", "1", "--dispatch", "jsq-msq", "--tcp-poll", tcp_poll,
                   listen=(f"{transport}://127.0.0.1:0",))
    burst = 30
    batch = [request(i, struct.pack("<Q", 3_000_000), class_index=1) for i in range(burst)]
    if transport == "udp":
        sock = udp_client(server)
        for datagram in batch:
            sock.send(datagram)
        replies = sorted((parse_reply(sock.recv(100)) for _ in range(burst)), key=lambda r: r["id"])
    else:
        sock = tcp_client(server)
        sock.sendall(b"".join(batch))
        replies = read_replies(sock, burst)
    assert [r["id"] for r in replies] == list(range(burst))  # TCP: in order, dropped ones too
    kinds = [r["kind"] for r in replies]
    assert kinds.count(OVERLOADED) > 0 and kinds.count(OK) + kinds.count(OVERLOADED) == burst
    report = server.stop()
    assert report["requests"]["dropped"] == kinds.count(OVERLOADED)
    assert report["requests"]["completed"] == kinds.count(OK)
    assert report["network"][transport]["overloaded"] == kinds.count(OVERLOADED)


@pytest.mark.parametrize("tcp_poll", TCP_POLLS)
def test_tcp_garbage_gets_bad_request_then_close_and_others_are_still_served(serve, tcp_poll):
    server = serve("--app", echo_app(), "--preempt", "none", "--tcp-poll", tcp_poll, listen=("tcp://127.0.0.1:0",))
    bystander = tcp_client(server)
    bad = tcp_client(server)
    bad.sendall(request(1, b"fine") + b"this is not a request header")
    replies = read_replies(bad, 2)
    assert [(r["kind"], r["id"]) for r in replies] == [(OK, 1), (BAD_REQUEST, 0)]
    assert closed_by_server(bad)
    too_large = tcp_client(server)
    too_large.sendall(REQUEST.pack(REQUEST_MAGIC, 0, 1 << 30, 5))
    assert [(r["kind"], r["id"]) for r in read_replies(too_large, 1)] == [(BAD_REQUEST, 5)]
    assert closed_by_server(too_large)
    bystander.sendall(request(2, b"ok"))
    assert read_replies(bystander, 1)[0]["response"] == b"ok"
    net = server.stop()["network"]["tcp"]
    assert net["bad_magic"] == 1 and net["bad_too_large"] == 1
    assert net["connections"] == 3


@pytest.mark.parametrize("tcp_poll", TCP_POLLS)
def test_tcp_client_that_stops_mid_request_is_counted(serve, tcp_poll):
    server = serve("--app", echo_app(), "--preempt", "none", "--tcp-poll", tcp_poll, listen=("tcp://127.0.0.1:0",))
    conn = tcp_client(server)
    conn.sendall(request(1, b"whole") + request(2, b"cut short")[:20])
    conn.shutdown(socket.SHUT_WR)
    replies = read_replies(conn, 1)
    assert (replies[0]["id"], replies[0]["response"]) == (1, b"whole")
    assert closed_by_server(conn)
    polite = tcp_client(server)
    polite.sendall(request(3, b"bye"))
    polite.shutdown(socket.SHUT_WR)
    assert read_replies(polite, 1)[0]["id"] == 3
    assert closed_by_server(polite)
    net = server.stop()["network"]["tcp"]
    assert net["closed_mid_request"] == 1
    assert net["closed_by_peer"] == 1


@pytest.mark.parametrize("tcp_poll", TCP_POLLS)
def test_tcp_client_that_never_reads_is_closed_and_others_are_served(serve, tcp_poll):
    server = serve("--app", echo_app(), "--preempt", "none", "--max-backlog-bytes", "65536", "--tcp-poll", tcp_poll,
                   listen=("tcp://127.0.0.1:0",))
    reader = tcp_client(server)
    silent = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    silent.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    silent.settimeout(30)
    silent.connect(server.address["tcp"])
    payload = b"x" * 1000
    try:
        for i in range(20000):  # 20 MB of replies: far past what the buffers and the backlog hold
            silent.sendall(request(i, payload))
    except (BrokenPipeError, ConnectionResetError):
        pass  # the server closed it, as it should
    reader.sendall(request(1, b"me too"))
    assert read_replies(reader, 1)[0]["response"] == b"me too"
    net = server.stop()["network"]["tcp"]
    assert net["closed_slow_reader"] == 1


@pytest.mark.parametrize("tcp_poll", TCP_POLLS)
def test_connections_over_the_limit_are_closed_and_counted(serve, tcp_poll):
    server = serve("--app", echo_app(), "--preempt", "none", "--max-connections", "2", "--tcp-poll", tcp_poll,
                   listen=("tcp://127.0.0.1:0",))
    first, second = tcp_client(server), tcp_client(server)
    for conn in (first, second):  # a round trip each: both are accepted before the third comes
        conn.sendall(request(1, b"hi"))
        assert read_replies(conn, 1)[0]["kind"] == OK
    third = tcp_client(server)
    assert closed_by_server(third)
    first.close()
    # A slot is free again once the server has seen the first one go; until then each new
    # connection is refused (a busy machine may take a while to get there: a deadline, not
    # a number of tries).
    deadline = time.monotonic() + 60
    while True:
        fourth = tcp_client(server)
        fourth.sendall(request(2, b"in"))
        try:
            if read_replies(fourth, 1)[0]["kind"] == OK:
                break
        except (AssertionError, ConnectionResetError):
            fourth.close()
            if time.monotonic() > deadline:
                raise AssertionError("no connection was accepted after one closed")
            time.sleep(0.01)
    second.sendall(request(3, b"still here"))
    assert read_replies(second, 1)[0]["response"] == b"still here"
    net = server.stop()["network"]["tcp"]
    assert net["refused_over_limit"] >= 1
    assert net["connections"] == 3


@pytest.mark.parametrize("sig, tcp_poll", [(signal.SIGTERM, "epoll"), (signal.SIGINT, "epoll"),
                                           (signal.SIGTERM, "io_uring")])
def test_graceful_stop_answers_every_acknowledged_request(serve, sig, tcp_poll):
    server = serve("--app", echo_app(), "--preempt", "none", "--max-in-flight-per-connection", "64",
                   "--tcp-poll", tcp_poll)
    tcp = tcp_client(server)
    count = 50
    # ~1 ms each: most are still queued when the signal comes.
    tcp.sendall(b"".join(request(i, struct.pack("<Q", 3_000_000), class_index=1) for i in range(count)))
    udp = udp_client(server)
    udp.send(request(99, struct.pack("<Q", 3_000_000), class_index=1))
    while True:  # until the server has taken all of them (its counters say so)
        net = server.snapshot()
        if net["tcp"]["requests"] == count and net["udp"]["requests"] == 1:
            break
    report = server.stop(sig)
    replies = read_replies(tcp, count)
    assert [r["id"] for r in replies] == list(range(count))
    assert all(r["kind"] == OK for r in replies)
    assert parse_reply(udp.recv(100))["id"] == 99
    assert report["requests"]["completed"] == count + 1
    assert report["network"]["tcp"]["replies_ok"] == count


@pytest.mark.parametrize("sender", ["worker", "dispatcher"])
def test_a_udp_reply_the_kernel_refuses_counts_as_a_send_error_not_a_reply(serve, sender):
    # echo_twice answers a 40,000-byte payload with 80,000 bytes: over the 65,507 a UDP
    # datagram can carry, so sendmsg/sendmmsg fails (EMSGSIZE). Replies are counted before
    # they are sent, so this one must be taken back, and the next one counted.
    server = serve("--app", echo_app(), "--preempt", "none", "--udp-replies", sender, "--max-payload-bytes", "65536",
                   "--max-response-bytes", "131072", listen=("udp://127.0.0.1:0",))
    sock = udp_client(server)
    sock.send(request(1, b"x" * 40_000, class_index=2))
    sock.send(request(2, b"small"))
    reply = parse_reply(sock.recv(65536))
    assert (reply["id"], reply["kind"], reply["response"]) == (2, OK, b"small")
    while server.snapshot()["udp"]["send_errors"] == 0:  # the refused reply may be sent after the small one
        pass
    net = server.stop()["network"]["udp"]
    assert (net["requests"], net["replies_ok"], net["send_errors"]) == (2, 1, 1)


@pytest.mark.parametrize("dispatch", DISPATCH_POLICIES)
def test_udp_replies_sent_by_the_dispatcher_through_every_dispatch_policy(serve, dispatch):
    server = serve("--app", echo_app(), "--preempt", "none", "--dispatch", dispatch, "--udp-replies", "dispatcher",
                   listen=("udp://127.0.0.1:0",))
    payloads = [os.urandom(i % 200) for i in range(300)]
    replies = udp_round_trips(udp_client(server), payloads, window=64)
    for i, payload in enumerate(payloads):
        assert (replies[i]["kind"], replies[i]["response"], replies[i]["value"]) == (OK, payload, len(payload))
    report = server.stop()
    assert report["config"]["udp_replies"] == "dispatcher"
    assert report["requests"]["completed"] == len(payloads)
    net = report["network"]["udp"]
    assert net["datagrams"] == net["requests"] == net["replies_ok"] == len(payloads)
    assert net["send_errors"] == 0
    # Every reply went out in some sendmmsg batch, and no batch was empty.
    assert 1 <= net["reply_batches"] <= len(payloads)


def test_worker_replies_are_the_default_and_use_no_batches(serve):
    server = serve("--app", echo_app(), "--preempt", "none", listen=("udp://127.0.0.1:0",))
    udp_round_trips(udp_client(server), [b"x"] * 20)
    report = server.stop()
    assert report["config"]["udp_replies"] == "worker"
    assert report["network"]["udp"]["replies_ok"] == 20
    assert report["network"]["udp"]["reply_batches"] == 0


def kvcache_app():
    path = BUILD_DIR / "lib" / "quanta" / "apps" / "kvcache-clock.so"
    if not path.exists():
        pytest.fail(f"{path} does not exist: build first")
    return str(path)


def memcached_get(frame_id, key_index):
    """A memcached UDP request: the 8-byte frame header (id, sequence 0 of 1), then a get."""
    return struct.pack(">HHHH", frame_id, 0, 1, 0) + b"get key:%010d\r\n" % key_index


def memcached_replies(sock, count):
    """Reads datagrams until `count` replies are whole; returns {frame id: reply bytes}."""
    pieces, expected = {}, {}
    while len(expected) < count or any(len(pieces[i]) < n for i, n in expected.items()):
        data = sock.recv(65536)
        frame_id, sequence, total, _ = struct.unpack_from(">HHHH", data)
        assert expected.setdefault(frame_id, total) == total
        assert sequence not in pieces.setdefault(frame_id, {})
        pieces[frame_id][sequence] = data[8:]
    return {i: b"".join(p[k] for k in range(expected[i])) for i, p in pieces.items()}


@pytest.mark.parametrize("udp_replies, receive", [("worker", "recvmmsg"), ("dispatcher", "recvmmsg"),
                                                   ("worker", "io_uring"), ("dispatcher", "io_uring")])
def test_memcached_framed_udp_through_kvcache(serve, udp_replies, receive):
    # 3000-byte values: every reply takes three datagrams of at most 1400 bytes.
    value_bytes = 3000
    server = serve("--app", kvcache_app(), "--preempt", "clock", "--app-config", f"keys=100,value_bytes={value_bytes}",
                   "--max-response-bytes", "8192", "--udp-replies", udp_replies, "--udp-receive", receive,
                   listen=("udp://127.0.0.1:0",))
    sock = udp_client(server)
    count = 40
    for i in range(count):
        sock.send(memcached_get(1000 + i, i % 100))
    replies = memcached_replies(sock, count)
    assert sorted(replies) == [1000 + i for i in range(count)]
    for i in range(count):
        reply = replies[1000 + i]
        assert reply.startswith(b"VALUE key:%010d 0 %d\r\n" % (i % 100, value_bytes)), reply[:40]
        assert reply.endswith(b"\r\nEND\r\n") and len(reply) > value_bytes
    report = server.stop()
    assert report["config"]["udp_replies"] == udp_replies
    assert report["config"]["udp_receive"] == receive
    net = report["network"]["udp"]
    assert net["datagrams"] == net["requests"] == net["replies_ok"] == count
    assert net["send_errors"] == 0 and net["bad_datagram_header"] == 0


def quiet_memcached_rounds(server, rounds):
    """Rounds of a memcached-framed UDP get and three TCP gets pipelined on an in-order
    connection (each reply lets the next be framed) against kvcache's keys=100, every reply
    checked, each round followed by a quiet spell in which idle threads go to sleep."""
    udp, tcp = udp_client(server), tcp_client(server)
    for i in range(rounds):
        udp.send(memcached_get(i, i % 100))
        assert memcached_replies(udp, 1)[i].startswith(b"VALUE key:%010d " % (i % 100))
        tcp.sendall(b"".join(b"get key:%010d\r\n" % ((i + k) % 100) for k in range(3)))
        got = b""
        while got.count(b"END\r\n") < 3:
            chunk = tcp.recv(65536)
            assert chunk, "the server closed the connection"
            got += chunk
        assert got.count(b"VALUE ") == 3
        time.sleep(0.002)  # quiet


@pytest.mark.parametrize("udp_replies, receive, preempt, tcp_poll", [("worker", "recvmmsg", "clock", "epoll"),
                                                                      ("dispatcher", "recvmmsg", "flag", "io_uring"),
                                                                      ("worker", "io_uring", "clock", "io_uring"),
                                                                      ("dispatcher", "io_uring", "signal", "epoll")])
def test_idle_block_sleeps_between_requests_and_misses_none(serve, udp_replies, receive, preempt, tcp_poll):
    # --idle block: between requests the dispatcher sleeps in epoll_wait and the worker on
    # its futex. Every request after a quiet spell wakes them: over UDP (either receive
    # method, either reply sender: dispatcher replies ring the dispatcher's bell), over TCP
    # with in-order pipelining (each completion rings it), and the stop wakes a sleeping
    # dispatcher.
    apps = kvcache_app() + "," + kvcache_app().replace("kvcache-clock", "kvcache-flag")
    server = serve("--app", apps, "--preempt", preempt, "--app-config", "keys=100", "--idle", "block",
                   "--udp-replies", udp_replies, "--udp-receive", receive, "--tcp-poll", tcp_poll)
    rounds = 30
    quiet_memcached_rounds(server, rounds)
    time.sleep(0.01)
    report = server.stop()
    assert report["config"]["idle"] == "block"
    sleeps = report["runtime"]["idle_sleeps"]
    assert sleeps["dispatcher"] > 0 and sleeps["workers"] > 0
    net = report["network"]
    assert net["udp"]["requests"] == net["udp"]["replies_ok"] == rounds
    assert net["tcp"]["replies_ok"] == 3 * rounds


@pytest.mark.parametrize("tcp_poll", TCP_POLLS)
@pytest.mark.parametrize("local, idle", [("ps", "spin"), ("fcfs", "block")])
def test_dispatcher_only_serves_udp_and_tcp_on_one_thread(serve, local, idle, tcp_poll):
    # No workers: the dispatcher runs every request itself, and answers each as a worker would.
    server = serve("--app", echo_app(), "--preempt", "none", "--dispatcher-only", "--local", local, "--idle", idle,
                   "--tcp-poll", tcp_poll)
    payloads = [os.urandom(i % 100) for i in range(200)]
    replies = udp_round_trips(udp_client(server), payloads)
    assert [replies[i]["response"] for i in range(len(payloads))] == payloads
    tcp = tcp_client(server)
    tcp.sendall(b"".join(request(i, p) for i, p in enumerate(payloads)))
    assert [r["response"] for r in read_replies(tcp, len(payloads))] == payloads
    report = server.stop()
    assert report["config"]["workers"] == 0 and report["config"]["dispatcher_only"] is True
    assert report["config"]["dispatch"] == "central"
    assert report["requests"]["completed"] == report["runtime"]["central"]["dispatcher_requests"] == 2 * len(payloads)


@pytest.mark.parametrize("tcp_poll", TCP_POLLS)
@pytest.mark.parametrize("idle", ["spin", "block"])
def test_one_thread_serves_pipelining_connections_and_wakes_after_a_quiet_spell(serve, idle, tcp_poll):
    # Four connections pipelining 150 requests each, sent in interleaved 1000-byte pieces:
    # reads find half requests, and connections stop at their in-flight limit of 8 (to be
    # read again from the runnable list, not from epoll) while others stay readable. Then
    # a quiet spell, and after it a request on an open connection and a new connection.
    server = serve("--app", echo_app(), "--preempt", "none", "--dispatcher-only", "--idle", idle,
                   "--max-in-flight-per-connection", "8", "--tcp-poll", tcp_poll, listen=("tcp://127.0.0.1:0",))
    connections = [tcp_client(server) for _ in range(4)]
    count = 150
    payloads = [[bytes([k]) * (i % 50) for i in range(count)] for k in range(len(connections))]
    streams = [b"".join(request(i, p) for i, p in enumerate(mine)) for mine in payloads]
    for offset in range(0, max(map(len, streams)), 1000):
        for conn, stream in zip(connections, streams):
            conn.sendall(stream[offset:offset + 1000])
    for conn, mine in zip(connections, payloads):
        replies = read_replies(conn, count)
        assert [r["id"] for r in replies] == list(range(count))
        assert [r["response"] for r in replies] == mine
    time.sleep(0.05)  # quiet: with --idle block the thread goes to sleep
    connections[0].sendall(request(1000, b"after the quiet spell"))
    assert read_replies(connections[0], 1)[0]["response"] == b"after the quiet spell"
    newcomer = tcp_client(server)
    newcomer.sendall(request(2000, b"new after the quiet spell"))
    assert read_replies(newcomer, 1)[0]["response"] == b"new after the quiet spell"
    report = server.stop()
    assert report["config"]["tcp_poll"] == tcp_poll
    net = report["network"]["tcp"]
    assert net["requests"] == net["replies_ok"] == len(connections) * count + 2
    assert net["connections"] == len(connections) + 1
    assert net["paused_at_in_flight_limit"] > 0
    assert net["poll_ring_errors"] == 0
    if tcp_poll == "io_uring":
        # epoll is asked only when the ring signals: at most once per arrival of bytes or
        # connection (each request here came in some arrival), plus once after each sleep;
        # a spinning thread polls far more often than that, and asks nothing in between.
        sleeps = report["runtime"]["idle_sleeps"]["dispatcher"]
        assert net["epoll_waits"] <= 2 * (net["requests"] + net["connections"]) + sleeps + 20


def test_tcp_poll_io_uring_where_io_uring_is_refused_is_a_clear_error(quanta_bin):
    # A seccomp filter makes io_uring_setup fail with EPERM in the server, as
    # kernel.io_uring_disabled or a container's filter would.
    import ctypes
    import platform
    if platform.machine() != "x86_64":
        pytest.skip("the filter below checks x86_64 system call numbers")
    io_uring_setup, eperm = 425, 1

    def refuse_io_uring():
        def insn(code, jt, jf, k):
            return struct.pack("<HBBI", code, jt, jf, k)
        program = b"".join([
            insn(0x20, 0, 0, 4),                         # A = seccomp_data.arch
            insn(0x15, 0, 3, 0xC000003E),                # not x86_64: allow
            insn(0x20, 0, 0, 0),                         # A = seccomp_data.nr
            insn(0x15, 0, 1, io_uring_setup),
            insn(0x06, 0, 0, 0x00050000 | eperm),        # SECCOMP_RET_ERRNO | EPERM
            insn(0x06, 0, 0, 0x7FFF0000),                # SECCOMP_RET_ALLOW
        ])
        filters = ctypes.create_string_buffer(program)
        fprog = struct.pack("<HxxxxxxQ", len(program) // 8, ctypes.addressof(filters))
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
        prog = ctypes.create_string_buffer(fprog)
        if libc.prctl(38, 1, None, 0, 0) != 0:                                 # PR_SET_NO_NEW_PRIVS
            os._exit(97)
        if libc.prctl(22, 2, ctypes.cast(prog, ctypes.c_void_p), 0, 0) != 0:   # PR_SET_SECCOMP, FILTER
            os._exit(98)

    command = [quanta_bin, "serve", "--listen", "tcp://127.0.0.1:0", "--duration-s", "0.1"]
    proc = subprocess.run(command + ["--tcp-poll", "io_uring"], capture_output=True, text=True, timeout=60,
                          preexec_fn=refuse_io_uring)
    assert proc.returncode == 2, proc.stderr
    assert "--tcp-poll io_uring" in proc.stderr and "Operation not permitted" in proc.stderr
    assert "--tcp-poll epoll" in proc.stderr  # what to use instead
    # Under the same filter the default needs no io_uring: the filter is what refused it.
    proc = subprocess.run(command, capture_output=True, text=True, timeout=60, preexec_fn=refuse_io_uring)
    assert proc.returncode == 0, proc.stderr


def test_dispatcher_only_shares_its_thread_so_gets_overtake_a_scan(serve):
    # A scan of 200000 items takes thousands of 2 us quanta; gets sent behind it are
    # answered before it, since the dispatcher puts its unfinished request back in the
    # queue after every quantum (ps).
    server = serve("--app", kvcache_app(), "--preempt", "clock", "--app-config", "keys=200000", "--dispatcher-only",
                   "--idle", "block", listen=("udp://127.0.0.1:0",))
    sock = udp_client(server)
    sock.send(b"\x00\x63\x00\x00\x00\x01\x00\x00scan key:0000000000 200000\r\n")
    for i in range(5):
        sock.send(memcached_get(i, i))
    order = []
    for _ in range(6):
        order.append(struct.unpack_from(">H", sock.recv(3000))[0])
    assert order[-1] == 0x63, order
    assert sorted(order[:-1]) == list(range(5))
    report = server.stop()
    assert report["runtime"]["central"]["requeued"] > 100


@pytest.mark.parametrize("udp_replies", ["worker", "dispatcher"])
def test_memcached_framed_udp_short_replies_are_one_datagram(serve, udp_replies):
    server = serve("--app", kvcache_app(), "--preempt", "clock", "--app-config", "keys=10",
                   "--udp-replies", udp_replies, listen=("udp://127.0.0.1:0",))
    sock = udp_client(server)
    sock.send(b"\x00\x07\x00\x00\x00\x01\x00\x00get key:0000000001\r\n")
    data = sock.recv(65536)
    assert struct.unpack_from(">HHHH", data) == (7, 0, 1, 0)
    assert data[8:].startswith(b"VALUE key:0000000001 ") and data.endswith(b"END\r\n")
    sock.send(b"\x00\x08\x00\x00\x00\x01\x00\x00get no-such-key\r\n")
    assert sock.recv(65536) == b"\x00\x08\x00\x00\x00\x01\x00\x00END\r\n"
    assert server.stop()["network"]["udp"]["replies_ok"] == 2


def test_graceful_stop_with_dispatcher_replies_answers_every_request_taken(serve):
    server = serve("--app", echo_app(), "--preempt", "none", "--udp-replies", "dispatcher",
                   listen=("udp://127.0.0.1:0",))
    udp = udp_client(server)
    count = 50
    # ~1 ms each: most are still queued when the signal comes.
    for i in range(count):
        udp.send(request(i, struct.pack("<Q", 3_000_000), class_index=1))
    while server.snapshot()["udp"]["requests"] != count:  # until the server has taken all of them
        pass
    report = server.stop()
    replies = [parse_reply(udp.recv(100)) for _ in range(count)]
    assert sorted(r["id"] for r in replies) == list(range(count))
    assert all(r["kind"] == OK for r in replies)
    assert report["requests"]["completed"] == count
    assert report["network"]["udp"]["replies_ok"] == count


def test_text_output_ends_with_the_network_counters(serve):
    server = serve("--app", echo_app(), "--preempt", "none", listen=("udp://127.0.0.1:0",), fmt="text")
    udp = udp_client(server)
    udp.send(b"")  # first: the replies to the others then say it was read (it gets none)
    udp_round_trips(udp, [b"a", b"b", b"c"])
    text = server.stop()
    assert "class echo" in text
    assert "\nnetwork\n" in text
    assert "  udp:  datagrams 4  dropped_empty 1  replies_ok 3  requests 3\n" in text
    assert "  tcp: nothing\n" in text


def test_a_second_signal_ends_a_stop_that_waits_on_an_endless_request(serve):
    server = serve(listen=("udp://127.0.0.1:0",))
    udp = udp_client(server)
    udp.send(request(1, struct.pack("<Q", 1 << 62)))  # the spin app: spin for ~50 years
    while server.snapshot()["udp"]["requests"] != 1:
        pass
    server.proc.send_signal(signal.SIGTERM)
    for line in iter(lambda: server.lines.get(timeout=60), None):  # the first one was taken
        if "finishing the requests in flight" in line:
            break
    server.proc.send_signal(signal.SIGTERM)
    assert server.proc.wait(timeout=60) == 1
    assert any("second signal" in line for line in server.stderr)


@pytest.mark.parametrize("tcp_poll", TCP_POLLS)
def test_a_stopping_server_refuses_new_connections(serve, tcp_poll):
    server = serve("--tcp-poll", tcp_poll, listen=("tcp://127.0.0.1:0",))
    conn = tcp_client(server)
    conn.sendall(request(1, struct.pack("<Q", 1 << 62)))  # keeps the stop waiting
    while server.snapshot()["tcp"]["requests"] != 1:
        pass
    server.proc.send_signal(signal.SIGTERM)
    for line in iter(lambda: server.lines.get(timeout=60), None):
        if "finishing the requests in flight" in line:
            break
    for _ in range(10000):  # until the dispatcher's next poll has closed the listening socket
        try:
            socket.create_connection(server.address["tcp"], timeout=30).close()
        except (ConnectionRefusedError, ConnectionResetError):
            # Refused, or reset: a connection the kernel had queued when the listening
            # socket closed is reset rather than refused.
            break
    else:
        raise AssertionError("the stopping server still accepts connections")
    server.proc.send_signal(signal.SIGTERM)
    assert server.proc.wait(timeout=60) == 1


def test_duration_ends_the_server_by_itself(quanta_bin, tmp_path):
    proc = subprocess.run([quanta_bin, "serve", "--duration-s", "0.3", "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["mode"] == "serve"
    assert report["config"]["listen"][0].startswith("udp://127.0.0.1:")
    assert report["network"]["udp"]["datagrams"] == 0


@pytest.mark.parametrize("args, option", [
    (["--listen", "http://127.0.0.1:80"], "--listen"),
    (["--listen", "udp://localhost:9000"], "--listen"),
    (["--listen", "tcp://127.0.0.1:65536"], "--listen"),
    (["--listen", "tcp://127.0.0.1"], "--listen"),
    (["--listen", "udp://[::1:9000"], "--listen"),
    (["--dispatch", "nope"], "--dispatch"),
    (["--local", "ps,fcfs"], "--local"),
    (["--max-connections", "0"], "--max-connections"),
    (["--udp-receive", "epoll"], "--udp-receive"),
    (["--tcp-poll", "kqueue"], "--tcp-poll"),
    (["--tcp-poll", "recvmmsg"], "--tcp-poll"),
    (["--idle", "nap"], "--idle"),
    (["--max-in-flight-per-connection", "0"], "--max-in-flight-per-connection"),
    (["--duration-s", "nan"], "--duration-s"),
    (["--max-payload-bytes", "4"], "--max-payload-bytes"),
    (["--workload", "nonsense"], "nonsense"),
    (["--udp-replies", "both"], "--udp-replies"),
    (["--dispatcher-only", "--workers", "1"], "--dispatcher-only"),
    (["--dispatcher-only", "--dispatch", "jsq"], "--dispatcher-only"),
    (["--dispatcher-only", "--preempt", "flag"], "--dispatcher-only"),
    (["--dispatcher-only", "--dispatcher-works"], "--dispatcher-only"),
    (["--idle-spin-us", "-3"], "--idle-spin-us"),
])
def test_bad_options_exit_2_naming_the_option(run_quanta, args, option):
    proc = run_quanta("serve", *args)
    assert proc.returncode == 2, proc.stderr
    assert option in proc.stderr


def test_workload_is_for_apps_without_classes(run_quanta):
    proc = run_quanta("serve", "--app", echo_app(), "--workload", "exp1", "--duration-s", "0.1")
    assert proc.returncode == 2 and "--workload" in proc.stderr


def test_a_port_in_use_is_a_clear_error(serve, run_quanta):
    server = serve("--app", echo_app(), "--preempt", "none", listen=("tcp://127.0.0.1:0",))
    host, port = server.address["tcp"]
    proc = run_quanta("serve", "--listen", f"tcp://{host}:{port}", "--duration-s", "0.1")
    assert proc.returncode == 1
    assert f"cannot listen on tcp://{host}:{port}" in proc.stderr


@pytest.mark.parametrize("transport, extra, tcp_poll", [("udp", [], "epoll"), ("tcp", ["--connections", "3"], "epoll"),
                                                        ("tcp", ["--connections", "3"], "io_uring"),
                                                        ("udp", ["--wait", "block"], "epoll"),
                                                        ("tcp", ["--connections", "2", "--wait", "block"], "io_uring")])
def test_quanta_load_against_quanta_serve_accounts_for_every_request(serve, run_quanta, transport, extra, tcp_poll):
    # The two ends of issue 19 together, with their defaults (the spin app, extreme-bimodal):
    # every request the client sent is answered or counted, none is refused as malformed,
    # and the server saw what the client sent. Counts only.
    server = serve("--tcp-poll", tcp_poll, listen=(f"{transport}://127.0.0.1:0",))
    host, port = server.address[transport]
    proc = run_quanta("load", "--target", f"{transport}://{host}:{port}", "--rate-rps", "5000",
                      "--duration-s", "0.4", "--format", "json", *extra)
    assert proc.returncode in (0, 3), proc.stderr
    client = json.loads(proc.stdout)["client"]
    assert client["sent"] == client["scheduled"] > 0
    assert client["sent"] == client["answered"] + client["dropped"] + client["overloaded"] + client["bad_request"]
    assert client["bad_request"] == 0 and client["malformed_replies"] == 0 and client["out_of_order_replies"] == 0
    report = server.stop()
    net = report["network"][transport]
    assert net["bad_class"] == 0
    if transport == "udp":
        assert net["datagrams"] + net["dropped_by_kernel"] == client["sent"]
    else:
        assert net["requests"] == client["sent"]
    assert client["answered"] <= net["replies_ok"]
