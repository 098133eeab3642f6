#!/usr/bin/env python3
"""GETs among 0.5% SCANs on the LevelDB key-value server (apps/kv): what microsecond
preemption buys a real service (issue 23; Tiny Quanta section 5.4, Concord section 5.3).

One database (--keys preloaded once), Tiny Quanta's mix (kv's mix=tq: 99.5% GET, 0.5% SCAN
of --scan-count items from a random key), and these servers of it:

  ps-clock-2, -5, -10   quanta, processor sharing, clock probes, quantum 2 / 5 / 10 us
  ps-flag-5             quanta, processor sharing, flag probes, quantum 5 us
  fcfs                  quanta, run to completion (the clock build; its probes never fire)
  linux                 the same app on a pool of kernel threads under SCHED_OTHER
  memcached             Debian's memcached, one thread, the same GETs only (network part)

Two parts, each its own layout of the 2 CPUs:

  network     `quanta serve` on one CPU, `quanta load` on the other, over UDP: the quanta
              servers in the one-thread layout (--dispatcher-only: the dispatcher receives
              and runs every request, one quantum at a time), the kernel-thread pool and
              memcached on the same CPU. Flag probes need a second thread to write the flag
              (the monitor), so ps-flag-5 is not in this part. A ladder of offered rates; per
              point the client's GET latency (from the intended send time) and the
              server's own GET sojourn, raw and over the requests no host stall touched.
  in-process  `quanta run`: the generator in the dispatcher, one worker on the other CPU,
              every server but memcached, a ladder of rates (--in-process-rates); per point
              the GET sojourn at the server, raw and untouched.

Per part and server: the largest offered rate that meets each objective (client GET p99 <=
--client-slo-us; server GET p99.9 <= --slo-us, raw and untouched), and its ratio to fcfs's
and to the kernel threads'. Rates rather than loads: kv declares no service times, and a
pilot's mean CPU per request moves with the few scans it draws.

    experiments/kv_get_scan.py                    # both parts (~15 min on a quiet machine)
    experiments/kv_get_scan.py --quick            # a smoke test of the script (~1 min)
Needs scripts/kv/build.sh's kv-clock.so and kv-flag.so. Writes
experiments/results/kv_get_scan.{json,csv,md,png} unless --out-dir says else. Run it on an
otherwise idle machine: every server spins its CPU.
"""
import argparse
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from memcached_vs_kvcache import cpu_seconds, free_port, preload_memcached, wait_for_tcp  # noqa: E402
from memcached_vs_kvcache import us as us_or_inf  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def us(value):
    # A latency in us, "inf" where drops reach the percentile, "-" where nothing was measured.
    return "-" if value is None else us_or_inf(value)

# name -> (kv build, quanta options). The one-thread layout's options are added per part.
SERVERS = {
    "ps-clock-2": ("clock", ["--local", "ps", "--preempt", "clock", "--quantum-us", "2"]),
    "ps-clock-5": ("clock", ["--local", "ps", "--preempt", "clock", "--quantum-us", "5"]),
    "ps-clock-10": ("clock", ["--local", "ps", "--preempt", "clock", "--quantum-us", "10"]),
    "ps-flag-5": ("flag", ["--local", "ps", "--preempt", "flag", "--quantum-us", "5"]),
    "fcfs": ("clock", ["--local", "fcfs", "--preempt", "clock"]),
    "linux": ("clock", ["--runtime", "linux", "--linux-policy", "other"]),
}
NETWORK_SERVERS = ["ps-clock-2", "ps-clock-5", "ps-clock-10", "fcfs", "linux", "memcached"]
IN_PROCESS_SERVERS = ["ps-clock-2", "ps-clock-5", "ps-clock-10", "ps-flag-5", "fcfs", "linux"]


def run(cmd, timeout_s):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
    if proc.returncode not in (0, 3):  # 3: --strict's warnings, not used here
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout)


def class_stat(report, cls, stat, untouched=False):
    """A class's sojourn percentile in us from a quanta report; None if absent or if no
    request of the class was measured (a percentile of nothing is not 0)."""
    block = report.get("untouched", {}) if untouched else report
    try:
        entry = block["classes"][cls]
        return entry["sojourn_us"][stat] if entry["count"] > 0 else None
    except (KeyError, TypeError):
        return None


def preload(quanta, app, db, args):
    """Writes the keys once: a server started with keys=N and stopped at once."""
    port = free_port()
    proc = subprocess.Popen([quanta, "serve", "--app", app, "--app-config",
                             f"db={db},keys={args.keys},value_bytes={args.value_bytes}",
                             "--listen", f"tcp://127.0.0.1:{port}", "--format", "json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_tcp(port, timeout_s=120)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    if proc.returncode != 0:
        sys.exit(f"preloading {db} failed: {err.strip()}")


def kv_config(db, args, preload_keys=False):
    return (f"db={db}," if db else "") + (f"keys={args.keys},preload={int(preload_keys)},value_bytes={args.value_bytes},"
                                          f"mix=tq,scan_count={args.scan_count}")


# ---- network ----

def network_part(quanta, apps, db, args, rates):
    server_cpu = str(max(os.sched_getaffinity(0)))
    client_cpu = str(min(os.sched_getaffinity(0)))
    memcached = shutil.which("memcached")
    if memcached is None:
        sys.exit("memcached is not installed (scripts/setup.sh installs it)")
    mc_port = free_port()
    mc_cmd = ["taskset", "-c", server_cpu, memcached, "-t", "1", "-l", "127.0.0.1", "-p", str(mc_port),
              "-U", str(mc_port), "-m", "1024"]
    if os.geteuid() == 0:
        mc_cmd += ["-u", "root"]
    points = []

    def server_command(name, port):
        build, options = SERVERS[name]
        layout = ["--idle", "block"]
        if name != "linux":
            layout += ["--dispatcher-only"]
        else:
            layout += ["--workers", "1", "--threads-per-core", str(args.linux_threads)]
        return ["taskset", "-c", server_cpu, quanta, "serve", "--app", apps[build], "--app-config",
                kv_config(db, args), "--listen", f"udp://127.0.0.1:{port}", "--format", "json",
                *options, *layout]

    def load_command(name, port, rate):
        config = kv_config(None, args) if name != "memcached" else f"keys={args.keys},value_bytes={args.value_bytes},get=1"
        return [quanta, "load", "--app", apps["clock"], "--app-config", config, "--target", f"udp://127.0.0.1:{port}",
                "--rate-rps", str(rate), "--duration-s", str(args.duration_s), "--timeout-ms", "1000",
                "--cpu", client_cpu, "--seed", str(args.seed), "--format", "json", "--no-progress"]

    mc_proc = subprocess.Popen(mc_cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_tcp(mc_port)
        preload_memcached(mc_port, args.keys, args.value_bytes)
        for rate in rates:
            for name in args.network_servers:
                point = {"part": "network", "server": name, "rate_rps": rate}
                if name == "memcached":
                    before, start = cpu_seconds(mc_proc.pid), time.monotonic()
                    cmd = load_command(name, mc_port, rate)
                    client = run(cmd, args.duration_s * 4 + 60)
                    point["server_cpu_s"] = cpu_seconds(mc_proc.pid) - before
                    point["elapsed_s"] = time.monotonic() - start
                else:
                    port = free_port()
                    server_cmd = server_command(name, port)
                    server = subprocess.Popen(server_cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                    log = ServerLog(server)
                    try:
                        log.wait_listening(server)
                        cmd = load_command(name, port, rate)
                        client = run(cmd, args.duration_s * 4 + 60)
                    finally:
                        server.send_signal(signal.SIGTERM)
                        out = server.stdout.read()
                        server.wait(timeout=120)
                    if server.returncode != 0:
                        sys.exit(f"{' '.join(server_cmd)} exited {server.returncode}: {log.text().strip()[-2000:]}")
                    served = json.loads(out)
                    point["server_command"] = server_cmd
                    for stat in ("p50", "p99", "p99.9"):
                        point[f"server_get_{stat}_us"] = class_stat(served, "get", stat)
                        point[f"server_get_untouched_{stat}_us"] = class_stat(served, "get", stat, untouched=True)
                    point["server_scan_p50_us"] = class_stat(served, "scan", "p50")
                    point["server_stall_touched"] = served.get("requests", {}).get("stall_touched")
                point["client_command"] = cmd
                c = client["client"]
                point.update({"sent": c["sent"], "answered": c["answered"], "dropped": c["dropped"],
                              "overloaded": c["overloaded"],
                              "answered_share": c["answered"] / c["sent"] if c["sent"] else 0.0})
                for stat in ("p50", "p99", "p99.9"):
                    point[f"client_get_{stat}_us"] = class_stat(client, "get", stat)
                points.append(point)
                print(f"network {rate:>7} rps {name:>12}: answered {point['answered_share']:.3f}  client GET p99 "
                      f"{us(point['client_get_p99_us'])} us  server GET p99.9 "
                      f"{us(point.get('server_get_p99.9_us', '-'))} (untouched "
                      f"{us(point.get('server_get_untouched_p99.9_us', '-'))}) us", file=sys.stderr)
    finally:
        mc_proc.terminate()
        mc_proc.wait(timeout=30)
    return points


class ServerLog:
    """Reads a quanta serve's stderr in a thread: its 'listening on' line says the sockets are
    bound and the database open (a UDP port cannot be probed like a TCP one)."""

    def __init__(self, proc):
        self.lines = []
        self.listening = threading.Event()
        self.thread = threading.Thread(target=self._read, args=(proc,), daemon=True)
        self.thread.start()

    def _read(self, proc):
        for line in proc.stderr:
            self.lines.append(line)
            if "listening on" in line:
                self.listening.set()

    def wait_listening(self, proc, timeout_s=120.0):
        deadline = time.monotonic() + timeout_s
        while not self.listening.wait(0.05):
            if proc.poll() is not None or time.monotonic() > deadline:
                self.thread.join(timeout=5)
                sys.exit(f"quanta serve did not start listening: {''.join(self.lines)[-2000:]}")

    def text(self):
        self.thread.join(timeout=30)
        return "".join(self.lines)


def largest_rate(points, name, key, slo_us, min_answered=0.99):
    ok = [p["rate_rps"] for p in points
          if p["server"] == name and p["answered_share"] >= min_answered and p["overloaded"] == 0
          and isinstance(p.get(key), (int, float)) and p[key] <= slo_us]
    return max(ok) if ok else 0


# ---- in process ----

def in_process_part(quanta, apps, db, args, rates):
    """The same rate ladder through `quanta run`: the generator in the dispatcher, one worker."""
    points = []
    for rate in rates:
        for name in args.in_process_servers:
            build, options = SERVERS[name]
            cmd = [quanta, "run", "--app", apps[build], "--app-config", kv_config(db, args), *options,
                   "--workers", "1", "--rate-rps", str(rate), "--duration-s", str(args.duration_s),
                   "--seed", str(args.seed), "--format", "json"]
            report = run(cmd, args.duration_s * 20 + 120)
            requests = report.get("requests", {})
            point = {"part": "in-process", "server": name, "rate_rps": rate, "command": cmd,
                     "sent": requests.get("generated"), "answered": requests.get("completed"),
                     "dropped": requests.get("dropped", 0), "overloaded": 0,
                     "server_stall_touched": requests.get("stall_touched"),
                     "elapsed_s": report.get("runtime", {}).get("elapsed_s", 0.0),
                     "mean_service_us": report.get("config", {}).get("mean_service_us")}
            point["answered_share"] = point["answered"] / point["sent"] if point["sent"] else 0.0
            for stat in ("p50", "p99", "p99.9"):
                point[f"server_get_{stat}_us"] = class_stat(report, "get", stat)
                point[f"server_get_untouched_{stat}_us"] = class_stat(report, "get", stat, untouched=True)
            point["server_scan_p50_us"] = class_stat(report, "scan", "p50")
            points.append(point)
            print(f"in-process {rate:>7} rps {name:>12}: GET p99.9 {us(point['server_get_p99.9_us'])} us "
                  f"(untouched {us(point['server_get_untouched_p99.9_us'])})  scan p50 "
                  f"{us(point['server_scan_p50_us'])} us  ran {point['elapsed_s']:.2f} s", file=sys.stderr)
    return points


# ---- output ----

CSV_KEYS = ["part", "server", "rate_rps", "sent", "answered", "dropped", "overloaded", "client_get_p50_us",
            "client_get_p99_us", "client_get_p99.9_us", "server_get_p50_us", "server_get_p99_us",
            "server_get_p99.9_us", "server_get_untouched_p99_us", "server_get_untouched_p99.9_us",
            "server_scan_p50_us", "server_stall_touched"]


def write_csv(points, path):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_KEYS, extrasaction="ignore")
        w.writeheader()
        for p in points:
            w.writerow({k: p.get(k, "") for k in CSV_KEYS})


def objectives(args, part):
    """(name, point key, limit): what 'meets the objective' means, client side and server side.
    Over the network the server's GET sojourn includes its receive batches and the scans'
    quanta on its one thread, so its objective is its own (--network-slo-us)."""
    slo = args["network_slo_us"] if part == "network" else args["slo_us"]
    return [(f"client GET p99 <= {args['client_slo_us']:g} us", "client_get_p99_us", args["client_slo_us"]),
            (f"server GET p99.9 <= {slo:g} us, untouched", "server_get_untouched_p99.9_us", slo),
            (f"server GET p99.9 <= {slo:g} us, raw", "server_get_p99.9_us", slo)]


def summarise(points, servers, args, part):
    return {name: {key: largest_rate(points, name, key, limit) for _, key, limit in objectives(args, part)}
            for name in servers}


def ratio(a, b):
    return f"{a / b:.1f}x" if a and b else "-"


def part_markdown(title, note, points, servers, summary, args, part):
    lines = [f"## {title}", "", note, "",
             "| rate (rps) | " + " | ".join(servers) + " |", "|---|" + "---|" * len(servers)]
    for rate in sorted({p["rate_rps"] for p in points}):
        cells = []
        for name in servers:
            p = next((p for p in points if p["server"] == name and p["rate_rps"] == rate), None)
            if p is None:
                cells.append("")
                continue
            drop = "" if p["answered_share"] >= 0.99 else f" ({p['answered_share']:.0%} answered)"
            client = us(p["client_get_p99_us"]) + " / " if "client_get_p99_us" in p else ""
            server = us(p["server_get_untouched_p99.9_us"]) if "server_get_untouched_p99.9_us" in p else "-"
            cells.append(f"{client}{server}{drop}")
        lines.append(f"| {rate} | " + " | ".join(cells) + " |")
    objs = [o for o in objectives(args, part) if any(o[1] in p for p in points)]
    lines += ["", "Largest offered rate (rps, >= 99% answered) meeting each objective, and its ratio to fcfs's "
              "and to the kernel threads' (linux):", "",
              "| server | " + " | ".join(o[0] for o in objs) + " |", "|---|" + "---|" * len(objs)]
    for name in servers:
        cells = []
        for _, key, _ in objs:
            mine = summary[name][key]
            if name == "memcached" and key.startswith("server"):
                cells.append("-")
                continue
            vs = [f"{ratio(mine, summary[ref][key])} {ref}" for ref in ("fcfs", "linux")
                  if ref in summary and ref != name and summary[ref][key]]
            cells.append(f"{mine}" + (f" ({', '.join(vs)})" if vs and mine else ""))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def scan_p50_at_lowest(result):
    points = [p for p in result["in_process_points"] + result["network_points"]
              if p["server"] == "ps-clock-5" and p.get("server_scan_p50_us") is not None]
    return min(points, key=lambda p: (p["part"] != "in-process", p["rate_rps"]))["server_scan_p50_us"] if points else None


def markdown(result):
    a = result["args"]
    lines = [f"# kv: GETs among 0.5% SCANs ({a['scan_count']} items), {a['keys']} keys of {a['value_bytes']} bytes",
             "", f"`experiments/kv_get_scan.py`, {result['cpus']} CPUs, seed {a['seed']}, {a['duration_s']} s a point. "
             "'Untouched': over the requests no host stall touched (docs/runtime.md, Host stalls).",
             "", f"SCAN sojourn p50 at the lowest rate (ps-clock-5, in process): "
             f"{us(scan_p50_at_lowest(result))} us.", ""]
    if result["network_points"]:
        lines += part_markdown("Network (UDP): server on one CPU, `quanta load` on the other",
                               "Each cell: client GET p99 (from the intended send time) / server GET p99.9 sojourn, "
                               "untouched (us); memcached keeps no server-side statistics.",
                               result["network_points"], a["network_servers"], result["network_summary"], a,
                               "network")
    if result["in_process_points"]:
        lines += [""] + part_markdown("In process: generator in the dispatcher, one worker",
                                      "Each cell: GET p99.9 sojourn, untouched (us).",
                                      result["in_process_points"], a["in_process_servers"],
                                      result["in_process_summary"], a, "in-process")
    return "\n".join(lines) + "\n"


def plot(result, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"kv_get_scan.py: no matplotlib here, so no {path}", file=sys.stderr)
        return
    panels = []
    if result["network_points"]:
        panels.append(("network: client GET p99 (us, from intended send)", result["network_points"],
                       result["args"]["network_servers"], "client_get_p99_us"))
        panels.append(("network: server GET p99.9 sojourn, untouched (us)", result["network_points"],
                       result["args"]["network_servers"], "server_get_untouched_p99.9_us"))
    if result["in_process_points"]:
        panels.append(("in process: GET p99.9 sojourn, untouched (us)", result["in_process_points"],
                       result["args"]["in_process_servers"], "server_get_untouched_p99.9_us"))
    if not panels:
        return
    fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 4.5), squeeze=False)
    styles = ("o-", "s-", "^-", "v-", "d-", "x-", "*-")
    for ax, (title, points, servers, key) in zip(axes[0], panels):
        for name in servers:
            i = list(SERVERS).index(name) if name in SERVERS else len(SERVERS)  # one style a server, every panel
            xy = sorted((p["rate_rps"], p[key]) for p in points
                        if p["server"] == name and isinstance(p.get(key), (int, float)))
            if xy:
                ax.plot(*zip(*xy), styles[i % len(styles)], label=name)
        slo = ("client_slo_us" if key.startswith("client") else
               "network_slo_us" if points is result["network_points"] else "slo_us")
        ax.axhline(result["args"][slo], color="grey", lw=0.8)
        ax.set_yscale("log")
        ax.set_xlabel("offered requests per second (0.5% SCAN)")
        ax.set_title(title, fontsize=10)
        ax.legend(fontsize=8)
    fig.suptitle("kv (LevelDB): GET latency among 0.5% SCANs")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--parts", default="network,in-process", help="network, in-process or both (comma list)")
    ap.add_argument("--replot", metavar="JSON", help="write the table, CSV and plot again from a result; runs nothing")
    ap.add_argument("--keys", type=int, default=100000)
    ap.add_argument("--value-bytes", type=int, default=64)
    ap.add_argument("--scan-count", type=int, default=700,
                    help="items a SCAN walks (700: about 0.5 ms here, the papers' SCAN length)")
    ap.add_argument("--rates", default="10000,20000,30000,40000,50000,60000,70000,80000",
                    help="network: offered rates (rps)")
    ap.add_argument("--in-process-rates", default="20000,40000,60000,80000,100000,120000,140000,160000",
                    help="in-process: offered rates (rps)")
    ap.add_argument("--duration-s", type=float, default=3.0, help="network: seconds a point")
    ap.add_argument("--slo-us", type=float, default=200.0, help="in process: GET p99.9 sojourn objective (us)")
    ap.add_argument("--network-slo-us", type=float, default=1000.0,
                    help="network: GET p99.9 sojourn objective at the server (us)")
    ap.add_argument("--client-slo-us", type=float, default=500.0, help="GET p99 objective at the client (us)")
    ap.add_argument("--linux-threads", type=int, default=4, help="kernel threads on the server's CPU")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--network-servers", default=",".join(NETWORK_SERVERS))
    ap.add_argument("--in-process-servers", default=",".join(IN_PROCESS_SERVERS))
    ap.add_argument("--quick", action="store_true", help="two low rates, small database, short runs")
    ap.add_argument("--out-dir", default=str(ROOT / "experiments" / "results"))
    args = ap.parse_args()
    if args.replot:
        result = json.loads(Path(args.replot).read_text())
        stem = Path(args.replot).with_suffix("")
        write_csv(result["network_points"] + result["in_process_points"], f"{stem}.csv")
        Path(f"{stem}.md").write_text(markdown(result))
        plot(result, f"{stem}.png")
        print(Path(f"{stem}.md").read_text())
        return
    parts = args.parts.split(",")
    if not parts or any(p not in ("network", "in-process") for p in parts):
        ap.error(f"--parts: '{args.parts}' (expected network, in-process or both)")
    args.network_servers = args.network_servers.split(",")
    args.in_process_servers = args.in_process_servers.split(",")
    for name in args.network_servers:
        if name not in NETWORK_SERVERS:
            ap.error(f"--network-servers: '{name}' is not one of {', '.join(NETWORK_SERVERS)}")
    for name in args.in_process_servers:
        if name not in IN_PROCESS_SERVERS:
            ap.error(f"--in-process-servers: '{name}' is not one of {', '.join(IN_PROCESS_SERVERS)}")
    if args.quick:
        args.rates, args.in_process_rates, args.duration_s, args.keys = "2000,4000", "2000,4000", 0.5, 5000

    def rate_list(option, text):
        try:
            rates = [int(r) for r in text.split(",")]
            if rates and all(r > 0 for r in rates):
                return rates
        except ValueError:
            pass
        ap.error(f"{option}: '{text}' is not a comma list of positive integers")
    rates = rate_list("--rates", args.rates)
    in_process_rates = rate_list("--in-process-rates", args.in_process_rates)
    for what, v in (("--keys", args.keys), ("--scan-count", args.scan_count), ("--linux-threads", args.linux_threads)):
        if v <= 0:
            ap.error(f"{what} must be positive")

    quanta = str(Path(args.build) / "bin" / "quanta")
    apps = {m: str(Path(args.build) / "lib" / "quanta" / "apps" / f"kv-{m}.so") for m in ("clock", "flag")}
    for m, path in apps.items():
        if not Path(path).exists():
            sys.exit(f"{path} is missing: run scripts/leveldb/build.sh {m} and scripts/kv/build.sh")

    with tempfile.TemporaryDirectory(prefix="kv_get_scan_") as tmp:
        db = Path(tmp) / "db"
        preload(quanta, apps["clock"], db, args)
        network_points = network_part(quanta, apps, db, args, rates) if "network" in parts else []
        in_process = in_process_part(quanta, apps, db, args, in_process_rates) if "in-process" in parts else []

    result = {"what": "kv GETs among 0.5% SCANs: quanta's policies, kernel threads, memcached (GETs only)",
              "args": vars(args), "cpus": os.cpu_count(),
              "network_summary": summarise(network_points, args.network_servers, vars(args), "network"),
              "in_process_summary": summarise(in_process, args.in_process_servers, vars(args), "in-process"),
              "network_points": network_points, "in_process_points": in_process}
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / ("kv_get_scan" + ("_quick" if args.quick else ""))
    Path(f"{stem}.json").write_text(json.dumps(result, indent=2) + "\n")
    write_csv(network_points + in_process, f"{stem}.csv")
    Path(f"{stem}.md").write_text(markdown(result))
    plot(result, f"{stem}.png")
    print(Path(f"{stem}.md").read_text())


if __name__ == "__main__":
    main()
