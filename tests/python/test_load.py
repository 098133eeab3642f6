"""`quanta load` as a user meets it: bad options exit 2 naming the option, and a short run
against a small responder on loopback (udp_responder.py) whose counts add up, in text and
JSON, with the CSV latency log (test_latency_log.py decodes the HdrHistogram one). Counts only, never timings."""
import socket
import struct
import threading

import pytest

from udp_responder import OK, reply_bytes

SHORT_RUN = ["--rate-rps", "2000", "--duration-s", "0.25", "--timeout-ms", "200", "--arrivals", "constant",
             "--no-progress"]


def test_help_lists_every_load_option(run_quanta):
    proc = run_quanta("load", "--help")
    assert proc.returncode == 0
    for option in ["--target", "--connections", "--rate-rps", "--load", "--duration-s", "--warmup-frac", "--seed",
                   "--workload", "--app", "--app-config", "--arrivals", "--timeout-ms", "--format", "--latency-log",
                   "--latency-log-format",
                   "--progress", "--cpu", "--arrivals-file", "--rate-profile"]:
        assert option in proc.stdout, option


@pytest.mark.parametrize(
    "args, named",
    [
        ([], "--target"),
        (["--target", "127.0.0.1:9000"], "--target"),
        (["--target", "http://127.0.0.1:80"], "--target"),
        (["--target", "udp://127.0.0.1:0"], "--target"),
        (["--target", "udp://127.0.0.1:99999"], "--target"),
        (["--target", "udp://no-such-host.invalid:9000"], "--target"),
        (["--target", "udp://127.0.0.1:9000", "--rate-rps", "0"], "--rate-rps"),
        (["--target", "udp://127.0.0.1:9000", "--rate-rps", "nan"], "--rate-rps"),
        (["--target", "udp://127.0.0.1:9000", "--load", "0.5", "--rate-rps", "100"], "--rate-rps"),
        (["--target", "udp://127.0.0.1:9000", "--load", "-1"], "--load"),
        (["--target", "udp://127.0.0.1:9000", "--duration-s", "abc"], "--duration-s"),
        (["--target", "udp://127.0.0.1:9000", "--warmup-frac", "1.5"], "--warmup-frac"),
        (["--target", "udp://127.0.0.1:9000", "--timeout-ms", "0"], "--timeout-ms"),
        (["--target", "udp://127.0.0.1:9000", "--seed", "18446744073709551616"], "--seed"),
        (["--target", "udp://127.0.0.1:9000", "--timeout-ms", "inf"], "--timeout-ms"),
        (["--target", "tcp://127.0.0.1:9000", "--connections", "0"], "--connections"),
        (["--target", "udp://127.0.0.1:9000", "--connections", "2"], "--connections"),
        (["--target", "udp://127.0.0.1:9000", "--arrivals", "bursty"], "--arrivals"),
        (["--target", "udp://127.0.0.1:9000", "--wait", "sleep"], "--wait"),
        (["--target", "udp://127.0.0.1:9000", "--format", "xml"], "--format"),
        (["--target", "udp://127.0.0.1:9000", "--workload", "nonsense"], "nonsense"),
        (["--target", "udp://127.0.0.1:9000", "--app", ""], "--app"),
        (["--target", "udp://127.0.0.1:9000", "--app", "/no/such/app.so"], "--app"),
        (["--target", "udp://127.0.0.1:9000", "--cpu", "100000"], "--cpu"),
        (["--target", "udp://127.0.0.1:9000", "--latency-log", ""], "--latency-log"),
        (["--target", "udp://127.0.0.1:9000", "--latency-log", "x", "--latency-log-format", "json"],
         "--latency-log-format"),
        (["--target", "udp://127.0.0.1:9000", "--bogus"], "--bogus"),
    ],
)
def test_bad_input_exits_2_naming_the_option(run_quanta, args, named):
    proc = run_quanta("load", *args)
    assert proc.returncode == 2, proc.stderr
    assert named in proc.stderr
    assert proc.stdout == ""


def test_no_server_over_tcp_is_an_error_not_a_hang(run_quanta):
    # Bind and close a socket: nothing listens on its port afterwards.
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    proc = run_quanta("load", "--target", f"tcp://127.0.0.1:{port}", *SHORT_RUN)
    assert proc.returncode == 1
    assert "cannot connect" in proc.stderr


def test_json_counts_add_up_against_a_responder(run_json, responder, tmp_path):
    r = responder(drop=lambda i: i % 10 == 9, overloaded=lambda i: i % 10 == 0)
    log = tmp_path / "latency.csv"
    report = run_json("load", "--target", f"udp://127.0.0.1:{r.port}", *SHORT_RUN, "--warmup-frac", "0",
                      "--latency-log", str(log), "--latency-log-format", "csv")
    assert report["mode"] == "load"
    assert report["config"]["latency_log"] == str(log)
    assert report["config"]["latency_log_format"] == "csv"
    client = report["client"]
    assert client["scheduled"] == 500
    assert client["sent"] == 500
    assert client["sent"] == client["answered"] + client["dropped"] + client["overloaded"] + client["bad_request"]
    assert client["dropped"] == 50
    assert client["overloaded"] == 50
    assert client["answered"] == 400
    assert sorted(r.ids) == list(range(500))  # each request once
    # Per class: the same keys as quanta run's, the counts adding up to the client's.
    assert sum(c["count"] for c in report["classes"].values()) == 400
    assert sum(c["dropped"] for c in report["classes"].values()) == 50
    assert report["overall"]["count"] == 400
    # 10% dropped: p50 is a number, p99 lies among the drops.
    assert isinstance(report["overall"]["sojourn_us"]["p50"], float)
    assert report["overall"]["sojourn_us"]["p99"] == "inf"
    assert float(report["overall"]["sojourn_us"]["p99"]) == float("inf")
    for key in ["late_sends", "worst_send_lag_us", "late_replies", "out_of_order_replies"]:
        assert key in client
    lines = [l for l in log.read_text().splitlines() if not l.startswith("#")]
    assert lines[0].startswith("interval_start_s,")
    rows = [l.split(",") for l in lines[1:]]
    assert sum(int(row[2]) for row in rows) == 500  # sent, over every interval
    assert sum(int(row[4]) for row in rows) == 50   # dropped


def test_text_output_and_a_silent_server(run_quanta, responder):
    r = responder(drop=lambda i: True)
    proc = run_quanta("load", "--target", f"udp://127.0.0.1:{r.port}", *SHORT_RUN)
    assert proc.returncode == 0, proc.stderr
    assert "dropped (timeout)" in proc.stdout
    assert "inf" in proc.stdout
    assert len(r.ids) == 500


def test_load_converts_with_the_workload_mean(run_json, responder):
    r = responder()
    report = run_json("load", "--target", f"udp://127.0.0.1:{r.port}", "--workload", "fixed:1000", "--load", "0.5",
                      "--duration-s", "0.2", "--no-progress")
    assert report["config"]["rate_rps"] == pytest.approx(500)
    assert report["config"]["load"] == pytest.approx(0.5)
    assert report["config"]["latency_log_format"] is None  # no log asked for
    assert report["client"]["sent"] == report["client"]["scheduled"]


def test_progress_prints_a_line_per_second_on_stderr(run_quanta, responder):
    r = responder()
    proc = run_quanta("load", "--target", f"udp://127.0.0.1:{r.port}", "--rate-rps", "1000", "--duration-s", "1.5",
                      "--progress")
    assert proc.returncode == 0, proc.stderr
    lines = [l for l in proc.stderr.splitlines() if l.startswith("quanta load:")]
    assert len(lines) >= 1
    assert "sent" in lines[0] and "answered" in lines[0]


def test_tcp_round_trip_through_a_responder_counts_every_request(run_json):
    """A pipelining TCP responder in this process: replies in order per connection."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    port = listener.getsockname()[1]
    seen = []

    def serve(conn):
        buf = b""
        while True:
            data = conn.recv(65536)
            if not data:
                return
            buf += data
            out = b""
            while len(buf) >= 16:
                magic, _cls, length, request_id = struct.unpack_from("<HHIQ", buf)
                if len(buf) < 16 + length:
                    break
                seen.append(request_id)
                out += reply_bytes(OK, request_id, buf[16:16 + length])
                buf = buf[16 + length:]
            conn.sendall(out)

    def accept():
        for _ in range(2):
            conn, _ = listener.accept()
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    report = run_json("load", "--target", f"tcp://127.0.0.1:{port}", "--connections", "2", *SHORT_RUN)
    listener.close()
    client = report["client"]
    assert client["sent"] == 500
    assert client["answered"] == 500
    assert client["out_of_order_replies"] == 0
    assert sorted(seen) == list(range(500))


# A trace for --arrivals-file: classes by label, key and index, one line drawing its class,
# comments and a blank line. extreme-bimodal: class 0 is "0.5" (short), class 1 "500" (long).
TRACE = """# send time (us)  class
0        short
100      long   # by label
200      500    # by key
300      1      # by index

400      0
2000            # drawn from the workload
"""


def test_arrivals_file_sends_one_request_per_line_in_its_class(run_json, responder, tmp_path):
    r = responder()
    trace = tmp_path / "sends.trace"
    trace.write_text(TRACE)
    report = run_json("load", "--target", f"udp://127.0.0.1:{r.port}", "--arrivals-file", str(trace),
                      "--warmup-frac", "0", "--timeout-ms", "500", "--no-progress")
    client = report["client"]
    assert client["scheduled"] == 6
    assert client["sent"] == 6
    assert client["answered"] == 6
    assert report["config"]["arrivals"] == f"file:{trace}"
    assert report["config"]["duration_s"] == pytest.approx(0.002)  # the last send time
    # Requests go out in trace order (ids count up), each in the class its line named.
    order = sorted(range(len(r.ids)), key=lambda k: r.ids[k])
    assert [r.classes[k] for k in order][:5] == [0, 1, 1, 1, 0]
    classes = report["classes"]
    drawn = r.classes[order[5]]
    assert classes["0.5"]["count"] == 2 + (drawn == 0)
    assert classes["500"]["count"] == 3 + (drawn == 1)


@pytest.mark.parametrize(
    "text, message",
    [
        ("0\nabc\n", ":2: 'abc' is not a send time"),
        ("0\n-5\n", ":2: send time -5 us is negative"),
        ("10\n# fine\n5\n", ":3: send time 5 us is before the previous line's"),
        ("0 medium\n", ":1: unknown class 'medium'"),
        ("0 7\n", ":1: class index 7 is out of range"),
        ("0 short extra\n", ":1: expected a send time in us and optionally a class"),
        ("# only a comment\n\n", ": no send times"),
    ],
)
def test_bad_arrivals_file_exits_2_naming_file_and_line(run_quanta, tmp_path, text, message):
    trace = tmp_path / "bad.trace"
    trace.write_text(text)
    proc = run_quanta("load", "--target", "udp://127.0.0.1:9", "--arrivals-file", str(trace), "--no-progress")
    assert proc.returncode == 2, proc.stderr
    assert f"{trace}{message}" in proc.stderr
    assert proc.stdout == ""


@pytest.mark.parametrize("other", [["--arrivals", "constant"], ["--rate-rps", "100"], ["--load", "0.5"],
                                   ["--duration-s", "1"]])
def test_arrivals_file_excludes_drawn_arrival_options(run_quanta, tmp_path, other):
    trace = tmp_path / "sends.trace"
    trace.write_text("0\n")
    proc = run_quanta("load", "--target", "udp://127.0.0.1:9", "--arrivals-file", str(trace), *other)
    assert proc.returncode == 2, proc.stderr
    assert "--arrivals-file" in proc.stderr and other[0] in proc.stderr


def test_missing_arrivals_file_exits_2(run_quanta, tmp_path):
    proc = run_quanta("load", "--target", "udp://127.0.0.1:9", "--arrivals-file", str(tmp_path / "none.trace"))
    assert proc.returncode == 2, proc.stderr
    assert "none.trace" in proc.stderr


def test_arrivals_file_against_quanta_serve_lands_each_class_on_the_server(quanta_bin, run_json, tmp_path):
    """The same trace through `quanta serve` (the spin app, extreme-bimodal's classes): the
    server counts each request in the class its line named."""
    from test_serve import Server

    server = Server(quanta_bin, tmp_path, listen=("udp://127.0.0.1:0",))
    try:
        host, port = server.address["udp"]
        trace = tmp_path / "sends.trace"
        trace.write_text("0 short\n100 long\n200 short\n300 1\n400 0\n500 0.5\n")
        report = run_json("load", "--target", f"udp://{host}:{port}", "--arrivals-file", str(trace),
                          "--warmup-frac", "0", "--timeout-ms", "2000", "--no-progress")
        assert report["client"]["sent"] == 6
        assert report["client"]["answered"] == 6
        assert report["classes"]["0.5"]["count"] == 4 and report["classes"]["500"]["count"] == 2
        served = server.stop()
    finally:
        server.kill()
    assert served["requests"]["completed"] == 6
    assert served["classes"]["0.5"]["count"] == 4
    assert served["classes"]["500"]["count"] == 2


def test_a_rate_profile_moves_the_sends(run_json, run_quanta, responder, tmp_path):
    # 2000 rps constant for 0.25 s is 500 sends; 3x from 0.125 s on makes 250 + 750.
    r = responder()
    report = run_json("load", "--target", f"udp://127.0.0.1:{r.port}", *SHORT_RUN, "--warmup-frac", "0",
                      "--rate-profile", "steps:1@0,3@0.125")
    assert report["config"]["rate_profile"] == "steps:1@0,3@0.125"
    assert abs(report["client"]["scheduled"] - 1000) <= 1  # the step lands on a send: rounding decides one
    assert report["client"]["sent"] == report["client"]["answered"] + report["client"]["dropped"]
    trace = tmp_path / "trace.txt"
    trace.write_text("0 0\n")
    proc = run_quanta("load", "--target", f"udp://127.0.0.1:{r.port}", "--arrivals-file", str(trace),
                      "--rate-profile", "bursts:2:1:0.5")
    assert proc.returncode == 2 and "--rate-profile" in proc.stderr, proc.stderr
