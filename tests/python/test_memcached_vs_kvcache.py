"""experiments/memcached_vs_kvcache.py --quick runs memcached and quanta + kvcache side by
side and writes its JSON, table and plot.

Counts only: the rates and latencies depend on the machine and what else runs on it.
"""
import json
import subprocess
import sys

from conftest import BUILD_DIR, ROOT

SCRIPT = ROOT / "experiments" / "memcached_vs_kvcache.py"


def test_quick_run_covers_every_server_transport_and_rate(tmp_path):
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--build", str(BUILD_DIR), "--out-dir",
                           str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    result = json.loads((tmp_path / "memcached_vs_kvcache_quick.json").read_text())
    assert result["servers"] == ["memcached", "quanta-spin", "quanta-yield", "quanta-block", "quanta-one-thread"]
    points = result["points"]
    assert {(p["server"], p["transport"], p["rate_rps"]) for p in points} == {
        (server, transport, rate) for server in result["servers"] for transport in ("tcp", "udp")
        for rate in (2000, 4000)}
    for p in points:
        assert p["sent"] > 0 and p["answered"] > 0, p
        assert p["answered"] + p["dropped"] + p["overloaded"] <= p["sent"]
    # quanta's own count agrees with its client's: every request it took was answered.
    for counters in result["quanta_network_counters"]:
        net = counters["network"][counters["transport"]]
        assert net["requests"] == net["replies_ok"] > 0
    assert set(result["summary"]) == {f"{s}_{t}" for s in result["servers"] for t in ("tcp", "udp")}
    assert (tmp_path / "memcached_vs_kvcache_quick.md").read_text().startswith("# memcached vs quanta")
    assert (tmp_path / "memcached_vs_kvcache_quick.png").stat().st_size > 0


def test_replot_writes_the_table_and_plot_again_from_a_result(tmp_path):
    # A small result of the script's own shape: two servers, one transport, two rates.
    points = [{"server": s, "transport": "udp", "rate_rps": r, "answered_share": 1.0, "p99_us": 100.0 + r / 100,
               "server_cores_busy": 0.5} for s in ("memcached", "quanta-one-thread") for r in (1000, 2000)]
    summary = {f"{s}_udp": {"sustained_rps": 2000, "p99_us_at_sustained": 120.0, "requests_per_cpu_s_at_sustained": 4000.0}
               for s in ("memcached", "quanta-one-thread")}
    result = {"value_bytes": 64, "duration_s": 1.0, "cpus": 2, "max_p99_ms": 10.0,
              "servers": ["memcached", "quanta-one-thread"], "points": points, "summary": summary}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(result))
    proc = subprocess.run([sys.executable, str(SCRIPT), "--replot", str(path)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    table = (tmp_path / "r.md").read_text()
    assert "| udp | 2000 | 1.000 / 120 / 0.50 | 1.000 / 120 / 0.50 |" in table
    assert (tmp_path / "r.png").stat().st_size > 0
    bad = subprocess.run([sys.executable, str(SCRIPT), "--replot", str(tmp_path / "missing.json")],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "--replot" in bad.stderr


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
