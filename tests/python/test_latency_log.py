"""`quanta load --latency-log` read back with the `hdrh` package (HdrHistogram's Python
port, tests/python/requirements.txt), as a user plotting it would: every interval decodes,
the counts are the report's, and the percentiles agree with the report's to HdrHistogram's
precision. Counts and bucket bounds only, never timings."""
import math

from hdrh.histogram import HdrHistogram
from hdrh.log import HistogramLogReader

HOUR_NS = 3600 * 10**9
# 3000 requests over two 1-s intervals (constant gaps: 2000 in the first, 1000 in the second).
RUN = ["--rate-rps", "2000", "--duration-s", "1.5", "--timeout-ms", "200", "--arrivals", "constant", "--no-progress"]


def read_log(path):
    """The interval lines' (start_s, length_s) and each interval's decoded histogram."""
    lines = path.read_text().splitlines()
    header = [l for l in lines if l.startswith("#")]
    legend = lines.index('"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"')
    assert all(lines.index(h) < legend for h in header), "comments after the legend"
    times = [tuple(float(f) for f in l.split(",")[:2]) for l in lines[legend + 1:]]
    reader = HistogramLogReader(str(path), HdrHistogram(1, HOUR_NS, 3))
    histograms = []
    while (h := reader.get_next_interval_histogram()) is not None:
        histograms.append(h)
    assert len(histograms) == len(times), "an interval line did not decode"
    return header, times, histograms, reader


def merged(histograms):
    total = HdrHistogram(1, HOUR_NS, 3)
    for h in histograms:
        total.add(h)
    return total


def report_rank(p, n):
    """The rank load_stats.cc's percentile_with_drops (no drops) and stats/histogram.cc
    reach for percentile p of n values, step by step in the same double arithmetic."""
    rank = math.ceil(p / 100.0 * n)
    answered_percentile = min(100.0, 100.0 * rank / n)
    return max(1, math.ceil(answered_percentile / 100.0 * n))


def test_hdr_log_decodes_and_matches_the_report(run_json, responder, tmp_path):
    r = responder()
    log = tmp_path / "latency.hlog"
    report = run_json("load", "--target", f"udp://127.0.0.1:{r.port}", *RUN, "--warmup-frac", "0",
                      "--latency-log", str(log))
    assert report["config"]["latency_log_format"] == "hdr"
    header, times, histograms, reader = read_log(log)
    assert any("nanoseconds" in h for h in header)
    assert any("dropped" in h.lower() for h in header)
    assert reader.start_time_sec > 0 and reader.base_time_sec == reader.start_time_sec
    assert times == [(0.0, 1.0), (1.0, 1.0)]
    for h in histograms:
        assert (h.lowest_trackable_value, h.highest_trackable_value, h.significant_figures) == (1, HOUR_NS, 3)
    # No warm-up, nothing dropped: the log holds exactly the report's measured requests.
    assert report["client"]["answered"] == 3000
    assert [h.get_total_count() for h in histograms] == [2000, 1000]
    assert sum(h.get_total_count() for h in histograms) == report["overall"]["count"] == 3000

    total = merged(histograms)
    n = total.get_total_count()
    for p in ["p50", "p99"]:
        rank = report_rank(float(p[1:]), n)
        # hdrh rounds p / 100 * n to its rank; this percentile makes that exactly `rank`.
        hdr_ns = total.get_value_at_percentile(100.0 * rank / n)
        report_ns = report["overall"]["sojourn_us"][p] * 1000
        # The report gives the middle of the value's bucket (clipped to the min and max),
        # hdrh the top of the same bucket: within it, and so within 0.1% (+ 1 ns).
        assert total.get_lowest_equivalent_value(hdr_ns) - 1e-6 <= report_ns <= hdr_ns + 1e-6, (p, report_ns, hdr_ns)
        assert abs(report_ns - hdr_ns) <= 0.001 * hdr_ns + 1, (p, report_ns, hdr_ns)


def test_hdr_log_holds_answered_requests_warm_up_included(run_json, responder, tmp_path):
    # Every 10th request dropped, every 10th (another) overloaded; half the run is warm-up.
    r = responder(drop=lambda i: i % 10 == 9, overloaded=lambda i: i % 10 == 0)
    log = tmp_path / "latency.hlog"
    report = run_json("load", "--target", f"udp://127.0.0.1:{r.port}", *RUN, "--warmup-frac", "0.5",
                      "--latency-log", str(log))
    client = report["client"]
    assert (client["answered"], client["dropped"], client["overloaded"]) == (2400, 300, 300)
    _, times, histograms, _ = read_log(log)
    assert times == [(0.0, 1.0), (1.0, 1.0)]
    # Answered only (drops and OVERLOADED replies have no latency), warm-up included: 8 in
    # 10 of each second's requests, more than the report's measured (post-warm-up) count.
    assert [h.get_total_count() for h in histograms] == [1600, 800]
    assert sum(h.get_total_count() for h in histograms) == client["answered"]
    assert report["overall"]["count"] == 1200


def test_csv_stays_available(run_quanta, responder, tmp_path):
    r = responder()
    log = tmp_path / "latency.csv"
    proc = run_quanta("load", "--target", f"udp://127.0.0.1:{r.port}", *RUN, "--latency-log", str(log),
                      "--latency-log-format", "csv")
    assert proc.returncode == 0, proc.stderr
    rows = [l.split(",") for l in log.read_text().splitlines() if not l.startswith("#")][1:]
    assert [int(row[2]) for row in rows] == [2000, 1000]
