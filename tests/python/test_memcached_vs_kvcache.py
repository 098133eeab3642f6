"""experiments/memcached_vs_kvcache.py --quick runs memcached and quanta + kvcache side by
side and writes its JSON, table and plot; its summary and verdict over repeats
(experiments/memcached_compare_summary.py) are checked on points made up here.

Counts only: the rates and latencies depend on the machine and what else runs on it.
"""
import json
import subprocess
import sys

import pytest

from conftest import BUILD_DIR, ROOT

SCRIPT = ROOT / "experiments" / "memcached_vs_kvcache.py"
sys.path.insert(0, str(ROOT / "experiments"))
import memcached_compare_summary as summary_of  # noqa: E402

MAX_P99_US = 10_000.0


def point(server, repeat, rate, p99_us, answered_share=1.0, overloaded=0, per_cpu_s=100_000.0, transport="tcp"):
    # A point as the script records it, with only what the summary reads.
    return {"server": server, "transport": transport, "rate_rps": rate, "repeat": repeat, "p99_us": p99_us,
            "answered_share": answered_share, "overloaded": overloaded, "requests_per_cpu_s": per_cpu_s,
            "server_cores_busy": 0.5}


def test_server_order_is_reversed_on_odd_repeats():
    names = ["memcached", "quanta-block", "quanta-one-thread"]
    assert summary_of.server_order(names, 0) == names
    assert summary_of.server_order(names, 1) == ["quanta-one-thread", "quanta-block", "memcached"]
    assert summary_of.server_order(names, 2) == names
    assert names == ["memcached", "quanta-block", "quanta-one-thread"]  # not reversed in place


def test_sustained_rate_is_checked_in_each_repeat_and_the_summary_takes_medians():
    points = [
        point("memcached", 0, 1000, 100.0), point("memcached", 0, 2000, 200.0), point("memcached", 0, 4000, 400.0),
        # Repeat 1: 4000 over the p99 bound, 2000 short of 99% answered: 1000 is its ceiling,
        # though repeat 0 sustained both.
        point("memcached", 1, 1000, 300.0), point("memcached", 1, 2000, 500.0, answered_share=0.985),
        point("memcached", 1, 4000, 20_000.0),
        # Repeat 2: 4000 answered all, but overloaded some; 2000 has an infinite p99.
        point("memcached", 2, 1000, 200.0), point("memcached", 2, 2000, "inf"),
        point("memcached", 2, 4000, 900.0, overloaded=3),
    ]
    assert [summary_of.sustained_rps(points, "memcached", "tcp", r, MAX_P99_US) for r in (0, 1, 2)] == [4000, 1000, 1000]
    s = summary_of.server_summary(points, "memcached", "tcp", MAX_P99_US)
    assert s["sustained_rps"] == 1000
    assert [r["sustained_rps"] for r in s["per_repeat"]] == [4000, 1000, 1000]
    assert s["p99_us_at_sustained"] == 300.0  # median of 400, 300, 200
    by_rate = {row["rate_rps"]: row for row in s["p99_us_by_rate"]}
    assert by_rate[1000] == {"rate_rps": 1000, "median": 200.0, "min": 100.0, "max": 300.0}
    assert by_rate[2000]["median"] == 500.0 and by_rate[2000]["max"] == "inf"
    assert summary_of.sustained_rps(points, "memcached", "udp", 0, MAX_P99_US) == 0


def ladder_of_three_repeats():
    # Per repeat, what memcached and quanta did; the verdict of each repeat depends on which
    # repeat's memcached ceiling it is paired with.
    mc, q = "memcached", "quanta-one-thread"
    return [
        # Repeat 0: memcached sustains 4000 (p99 500); quanta too, at 400: met. At 2000
        # (repeat 1's ceiling) quanta's p99 is the higher one, so pairing repeat 0 with
        # repeat 1's ceiling would say not met.
        point(mc, 0, 2000, 100.0, per_cpu_s=50_000.0), point(mc, 0, 4000, 500.0, per_cpu_s=100_000.0),
        point(q, 0, 2000, 900.0, per_cpu_s=40_000.0), point(q, 0, 4000, 400.0, per_cpu_s=90_000.0),
        # Repeat 1: memcached sustains 2000 only (p99 300); quanta 2000 at 200: met. Paired
        # with repeat 0's ceiling (4000), quanta would fall short.
        point(mc, 1, 2000, 300.0, per_cpu_s=100_000.0), point(mc, 1, 4000, 20_000.0),
        point(q, 1, 2000, 200.0, per_cpu_s=80_000.0), point(q, 1, 4000, 30_000.0),
        # Repeat 2: quanta sustains more (4000) but its p99 at memcached's ceiling (2000) is
        # higher: not met.
        point(mc, 2, 2000, 300.0, per_cpu_s=100_000.0), point(mc, 2, 4000, "inf", answered_share=0.5),
        point(q, 2, 2000, 350.0, per_cpu_s=60_000.0), point(q, 2, 4000, 1000.0, per_cpu_s=120_000.0),
    ]


def test_verdict_pairs_each_repeat_with_memcached_of_the_same_repeat():
    v = summary_of.verdict(ladder_of_three_repeats(), "quanta-one-thread", "tcp", MAX_P99_US)
    assert [r["met"] for r in v["per_repeat"]] == [True, True, False]
    assert (v["met_repeats"], v["repeats"], v["no_verdict_repeats"]) == (2, 3, 0)
    assert [r["memcached_sustained_rps"] for r in v["per_repeat"]] == [4000, 2000, 2000]
    assert [r["quanta_sustained_rps"] for r in v["per_repeat"]] == [4000, 2000, 4000]
    assert [r["quanta_p99_us_at_memcached_sustained"] for r in v["per_repeat"]] == [400.0, 200.0, 350.0]
    # p99 ratios 0.8, 0.67, 1.17; requests per CPU-second, each at its own ceiling: 0.9, 0.8, 1.2.
    assert v["p99_ratio_at_memcached_sustained_median"] == pytest.approx(0.8)
    assert v["requests_per_cpu_s_ratio_median"] == pytest.approx(0.9)
    assert summary_of.verdict_text("quanta-one-thread", "tcp", v).startswith(
        "quanta-one-thread, tcp: target met in 2 of 3 repeats; p99 at memcached's ceiling, quanta / memcached: "
        "median 0.80; requests per CPU-second, quanta / memcached: median 0.90")


def test_one_repeat_gives_k_of_1_and_a_repeat_without_memcached_ceiling_gives_no_verdict():
    one = [p for p in ladder_of_three_repeats() if p["repeat"] == 2]
    v = summary_of.verdict(one, "quanta-one-thread", "tcp", MAX_P99_US)
    assert (v["met_repeats"], v["repeats"], v["no_verdict_repeats"]) == (0, 1, 0)
    assert "target met in 0 of 1 repeats" in summary_of.verdict_text("quanta-one-thread", "tcp", v)
    # memcached's p99 over the bound at every rate: no ceiling to compare quanta at.
    none = [point("memcached", 0, 2000, 20_000.0), point("quanta-one-thread", 0, 2000, 100.0)]
    v = summary_of.verdict(none, "quanta-one-thread", "tcp", MAX_P99_US)
    assert (v["met_repeats"], v["repeats"], v["no_verdict_repeats"]) == (0, 1, 1)
    assert v["per_repeat"][0]["met"] is None and v["p99_ratio_at_memcached_sustained_median"] is None
    assert "1 without a verdict" in summary_of.verdict_text("quanta-one-thread", "tcp", v)


def test_rates_under_p99_bounds_apply_one_rule_to_both_servers():
    rows = summary_of.under_bounds(ladder_of_three_repeats(), "quanta-one-thread", "tcp", [50.0, 350.0, 1000.0])
    assert [r["p99_bound_us"] for r in rows] == [50.0, 350.0, 1000.0]
    by_bound = {r["p99_bound_us"]: r for r in rows}
    # Under 50 us neither server sustained any rate in any repeat: nothing to compare.
    assert (by_bound[50.0]["quanta_at_least_repeats"], by_bound[50.0]["neither_repeats"]) == (0, 3)
    # Under 350 us: repeat 0's quanta sustained nothing (900 and 400 us), memcached 2000 (100
    # us); in repeat 2 quanta's 350 us at 2000 is at the bound, which counts as under it.
    assert [(r["memcached_rps"], r["quanta_rps"]) for r in by_bound[350.0]["per_repeat"]] == [
        (2000, 0), (2000, 2000), (2000, 2000)]
    assert (by_bound[350.0]["quanta_at_least_repeats"], by_bound[350.0]["neither_repeats"]) == (2, 0)
    # Under 1 ms: memcached's repeat 2 at 4000 answered half (inf), quanta's took 4000 at 1 ms.
    assert [(r["memcached_rps"], r["quanta_rps"]) for r in by_bound[1000.0]["per_repeat"]] == [
        (4000, 4000), (2000, 2000), (2000, 4000)]
    assert (by_bound[1000.0]["memcached_rps_median"], by_bound[1000.0]["quanta_rps_median"]) == (2000, 4000)
    assert by_bound[1000.0]["quanta_at_least_repeats"] == 3
    assert summary_of.under_bounds_text("quanta-one-thread", "tcp", rows) == (
        "quanta-one-thread, tcp: rate sustained under a p99 bound, quanta / memcached, median over repeats: "
        "0.05 ms 0k / 0k (at least in 0 of 3, 3 with neither); 0.35 ms 2k / 2k (at least in 2 of 3); "
        "1 ms 4k / 2k (at least in 3 of 3)")


def test_summary_is_plain_json_and_points_without_repeat_are_repeat_0():
    points = ladder_of_three_repeats()
    points.append(point("memcached", 0, 8000, "inf", answered_share=0.2))
    s = summary_of.summarise_repeats(points, ["memcached", "quanta-one-thread"], ["tcp"], MAX_P99_US, [1000.0])
    assert s["repeats"] == 3
    assert s["verdict"]["quanta-one-thread_tcp"]["under_p99_bounds"][0]["quanta_at_least_repeats"] == 3
    assert set(s["servers"]) == {"memcached_tcp", "quanta-one-thread_tcp"}
    assert set(s["verdict"]) == {"quanta-one-thread_tcp"}
    assert s["verdict"]["quanta-one-thread_tcp"]["text"].startswith("quanta-one-thread, tcp: target met in 2 of 3")
    by_rate = {row["rate_rps"]: row for row in s["servers"]["memcached_tcp"]["p99_us_by_rate"]}
    assert by_rate[8000]["median"] == "inf"
    json.dumps(s, allow_nan=False)  # no bare Infinity
    old = [{k: v for k, v in p.items() if k != "repeat"} for p in points if p["repeat"] == 1]
    s = summary_of.summarise_repeats(old, ["memcached", "quanta-one-thread"], ["tcp"], MAX_P99_US)
    assert s["repeats"] == 1 and s["verdict"]["quanta-one-thread_tcp"]["met_repeats"] == 1


@pytest.mark.parametrize("value", ["0", "-1", "1.5", "two"])
def test_repeat_must_be_a_positive_integer(value):
    proc = subprocess.run([sys.executable, str(SCRIPT), "--repeat", value, "--build", str(BUILD_DIR)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert f"--repeat: '{value}' is not a positive integer" in proc.stderr


@pytest.mark.parametrize("value", ["0", "-1", "1,,2", "two", "nan", "inf"])
def test_p99_bounds_must_be_positive_milliseconds(value):
    proc = subprocess.run([sys.executable, str(SCRIPT), "--p99-bounds-ms", value, "--build", str(BUILD_DIR)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert f"--p99-bounds-ms: '{value}' is not a comma list of positive numbers of milliseconds" in proc.stderr


def test_quick_run_covers_every_server_transport_rate_and_repeat(tmp_path):
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--repeat", "2", "--build", str(BUILD_DIR),
                           "--out-dir", str(tmp_path)], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    result = json.loads((tmp_path / "memcached_vs_kvcache_quick.json").read_text())
    assert result["servers"] == ["memcached", "quanta-spin", "quanta-yield", "quanta-block", "quanta-one-thread"]
    assert result["repeats"] == 2
    points = result["points"]
    assert len(points) == 2 * 2 * 2 * 5
    assert {(p["server"], p["transport"], p["rate_rps"], p["repeat"]) for p in points} == {
        (server, transport, rate, repeat) for server in result["servers"] for transport in ("tcp", "udp")
        for rate in (2000, 4000) for repeat in (0, 1)}
    # The points are in the order they ran: at each rate, the servers as named in repeat 0
    # and the other way round in repeat 1; all of repeat 0 before repeat 1.
    assert [p["repeat"] for p in points] == [0] * 20 + [1] * 20
    for i in range(0, len(points), 5):
        group = points[i:i + 5]
        assert len({(p["repeat"], p["transport"], p["rate_rps"]) for p in group}) == 1
        expected = result["servers"] if group[0]["repeat"] == 0 else result["servers"][::-1]
        assert [p["server"] for p in group] == expected
    for p in points:
        assert p["sent"] > 0 and p["answered"] > 0, p
        assert p["answered"] + p["dropped"] + p["overloaded"] <= p["sent"]
    # quanta's own count agrees with its client's: every request it took was answered.
    assert len(result["quanta_network_counters"]) == 2 * 2 * 2 * 4
    assert {c["repeat"] for c in result["quanta_network_counters"]} == {0, 1}
    for counters in result["quanta_network_counters"]:
        net = counters["network"][counters["transport"]]
        assert net["requests"] == net["replies_ok"] > 0
    summary = result["summary"]
    assert summary["repeats"] == 2
    assert set(summary["servers"]) == {f"{s}_{t}" for s in result["servers"] for t in ("tcp", "udp")}
    for s in summary["servers"].values():
        assert [r["repeat"] for r in s["per_repeat"]] == [0, 1]
        assert [row["rate_rps"] for row in s["p99_us_by_rate"]] == [2000, 4000]
    assert set(summary["verdict"]) == {f"{s}_{t}" for s in result["servers"][1:] for t in ("tcp", "udp")}
    for key, v in summary["verdict"].items():
        assert v["repeats"] == 2 and 0 <= v["met_repeats"] + v["no_verdict_repeats"] <= 2
        assert v["text"].startswith(f"{key.rsplit('_', 1)[0]}, {key.rsplit('_', 1)[1]}: target met in ")
        assert v["text"] in proc.stdout
    # The verdicts, each followed by its rates under the p99 bounds, are the last lines printed.
    assert proc.stdout.strip().splitlines()[-16:] == [
        line for v in summary["verdict"].values() for line in (v["text"], v["under_p99_bounds_text"])]
    assert result["p99_bounds_ms"] == [1, 2, 5, 10]
    for v in summary["verdict"].values():
        assert [r["p99_bound_us"] for r in v["under_p99_bounds"]] == [1000, 2000, 5000, 10000]
        assert all(r["repeats"] == 2 for r in v["under_p99_bounds"])
    table = (tmp_path / "memcached_vs_kvcache_quick.md").read_text()
    assert table.startswith("# memcached vs quanta")
    assert "| quanta server, transport | target met |" in table and " of 2 |" in table
    assert (tmp_path / "memcached_vs_kvcache_quick.png").stat().st_size > 0


def test_replot_writes_the_table_and_plot_again_from_a_result(tmp_path):
    # A result of the shape written before --repeat (no "repeat" in its points, a flat
    # summary): two servers, one transport, two rates; replotted as one repeat.
    points = [{"server": s, "transport": "udp", "rate_rps": r, "answered_share": 1.0, "overloaded": 0,
               "p99_us": 100.0 + r / 100, "server_cores_busy": 0.5, "requests_per_cpu_s": 4000.0}
              for s in ("memcached", "quanta-one-thread") for r in (1000, 2000)]
    summary = {f"{s}_udp": {"sustained_rps": 2000, "p99_us_at_sustained": 120.0, "requests_per_cpu_s_at_sustained": 4000.0}
               for s in ("memcached", "quanta-one-thread")}
    result = {"value_bytes": 64, "duration_s": 1.0, "cpus": 2, "max_p99_ms": 10.0,
              "servers": ["memcached", "quanta-one-thread"], "points": points, "summary": summary}
    path = tmp_path / "r.json"

    def replot(result, *options):
        # Writes the result, replots it, and gives the table made from it.
        path.write_text(json.dumps(result))
        proc = subprocess.run([sys.executable, str(SCRIPT), "--replot", str(path), *options], capture_output=True,
                              text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        return (tmp_path / "r.md").read_text()

    table = replot(result)
    assert "| udp | 2000 | 0 | 1.000 / 120 / 0.50 | 1.000 / 120 / 0.50 |" in table
    assert "| quanta-one-thread, udp | 1 of 1 | 1.00 | 1.00 |" in table
    assert "| quanta-one-thread, udp | 1 ms | 2000 | 2000 | 1 of 1 |" in table
    assert (tmp_path / "r.png").stat().st_size > 0
    # The same with two repeats, the second's quanta p99 over memcached's: met in 1 of 2.
    again = [dict(p, repeat=1, p99_us=p["p99_us"] * (2 if p["server"] != "memcached" else 1)) for p in points]
    table = replot(dict(result, points=[dict(p, repeat=0) for p in points] + again))
    assert "| quanta-one-thread, udp | 1 of 2 | 1.50 | 1.00 |" in table
    assert "| udp | 2000 | 120 (120–120) | 180 (120–240) |" in table
    # A result made with other bounds is replotted with its own, unless others are given.
    # (p99s: 110 us at 1000 rps, 120 at 2000)
    table = replot(dict(result, p99_bounds_ms=[0.1, 0.115]))
    assert "| quanta-one-thread, udp | 0.1 ms | 0 | 0 | 0 of 1 (1 with neither) |" in table
    assert "| quanta-one-thread, udp | 0.115 ms | 1000 | 1000 | 1 of 1 |" in table
    assert " 1 ms |" not in table
    table = replot(dict(result, p99_bounds_ms=[0.1, 0.115]), "--p99-bounds-ms", "5")
    assert "| quanta-one-thread, udp | 5 ms | 2000 | 2000 | 1 of 1 |" in table and "0.1 ms" not in table
    assert json.loads(path.read_text())["p99_bounds_ms"] == [0.1, 0.115]  # the result file itself is left as it was
    bad = subprocess.run([sys.executable, str(SCRIPT), "--replot", str(tmp_path / "missing.json")],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "--replot" in bad.stderr
    path.write_text(json.dumps(dict(result, p99_bounds_ms=[0])))
    bad = subprocess.run([sys.executable, str(SCRIPT), "--replot", str(path)], capture_output=True, text=True,
                         timeout=120)
    assert bad.returncode == 2 and "p99_bounds_ms" in bad.stderr


def test_tcp_poll_is_passed_to_quanta_serve(tmp_path):
    # --tcp-poll io_uring reaches the quanta server's command line and names the result files;
    # the one-thread server still answers every request it took.
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--transports", "tcp", "--quanta", "one-thread",
                           "--tcp-poll", "io_uring", "--build", str(BUILD_DIR), "--out-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    result = json.loads((tmp_path / "memcached_vs_kvcache_quick_tcp_io_uring.json").read_text())
    assert result["tcp_poll"] == "io_uring"
    command = result["quanta_commands"]["quanta-one-thread"]
    assert command[command.index("--tcp-poll") + 1] == "io_uring"
    for counters in result["quanta_network_counters"]:
        net = counters["network"]["tcp"]
        assert net["requests"] == net["replies_ok"] > 0
        assert net["poll_ring_errors"] == 0
