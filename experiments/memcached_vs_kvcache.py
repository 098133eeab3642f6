#!/usr/bin/env python3
"""Real memcached (Debian's, one worker thread) against quanta serving the kvcache app, on
the same GETs from the same `quanta load`, side by side in one run.

Both servers hold the same keys and values (kvcache preloads them itself; memcached is
loaded over its own protocol first). For each transport and each offered rate, the client
runs once against memcached and once against quanta, one right after the other, so that
the host's noise of that moment hits both. Per run it records what the client saw
(answered share, p50/p99/p99.9 latency from the intended send time) and the CPU time each
server process used (from /proc), from which requests per CPU-second follow: "per core"
in the honest sense, since quanta's dispatcher and worker spin whether or not requests come
(--idle spin and yield) and memcached sleeps in epoll when idle, as quanta does with
--idle block.

On a 2-CPU machine the client shares a CPU with the servers (docs/load.md): latencies are
the sharing's as much as the servers'. The comparison is still fair in that both servers
face the same client on the same CPUs (quanta runs only during its own runs, since it
may spin), but the absolute figures are not the servers' alone.

One ladder says little on a noisy host, so --repeat N runs the whole ladder N times (the
servers' order at each rate reversed on odd repeats) and the summary takes medians over
the repeats. The verdict pairs each quanta server with memcached repeat by repeat: the
target is met in a repeat when quanta sustained at least memcached's rate of that repeat
at no higher p99 at memcached's sustained rate. Beside it, the same question asked alike of
both: the rate each server sustained under each p99 bound of --p99-bounds-ms, repeat by
repeat (experiments/memcached_compare_summary.py).

    experiments/memcached_vs_kvcache.py                       # default ladder, 3 s a run
    experiments/memcached_vs_kvcache.py --repeat 5            # the ladder five times
    experiments/memcached_vs_kvcache.py --quick               # tiny, for a smoke test
Writes experiments/results/memcached_vs_kvcache.{json,md,png} unless --out-dir says else.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from memcached_compare_summary import (  # noqa: E402
    bound_ms_text, latency_us, p99_by_rate, ratio_text, repeat_of, server_order, summarise_repeats)

ROOT = Path(__file__).resolve().parent.parent


# The quanta servers compared, by name: a dispatcher and a worker thread (the default
# layout) idling three ways, and one thread doing everything (docs/runtime.md) on the last
# CPU, since the client takes the first (quanta load's default, the dispatcher's CPU in the
# two-thread layouts).
QUANTA_LAYOUTS = {
    "spin": ["--idle", "spin"],
    "yield": ["--idle", "yield"],
    "block": ["--idle", "block"],
    "one-thread": ["--dispatcher-only", "--idle", "block"],
}
LAST_CPU_LAYOUTS = {"one-thread"}
# The p99 bounds (ms) under which the rates each server sustained are compared.
DEFAULT_P99_BOUNDS_MS = [1.0, 2.0, 5.0, 10.0]


def positive_ms(values, error):
    """The values as positive, finite milliseconds; ValueError(error) otherwise."""
    try:
        bounds = [float(b) for b in values]
    except (TypeError, ValueError):
        bounds = None
    if bounds is None or any(not b > 0 or b == float("inf") for b in bounds):
        raise ValueError(error)
    return bounds


def us(value):
    # Latencies are numbers, or "inf" where dropped requests reach the percentile.
    return f"{value:.0f}" if isinstance(value, (int, float)) else str(value)


def value_of(index, length):
    # kvcache's value_of(): a key's value is a function of its index.
    return bytes(ord("a") + (index + i) % 26 for i in range(length))


def free_port():
    # One port free for both TCP and UDP.
    for _ in range(100):
        with socket.socket() as t, socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
            t.bind(("127.0.0.1", 0))
            port = t.getsockname()[1]
            try:
                u.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no port free for both TCP and UDP")


def wait_for_tcp(port, timeout_s=10.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port}")


def preload_memcached(port, keys, value_bytes):
    with socket.create_connection(("127.0.0.1", port)) as s:
        batch = []
        for i in range(keys):
            batch.append(b"set key:%010d 0 0 %d noreply\r\n%s\r\n" % (i, value_bytes, value_of(i, value_bytes)))
            if len(batch) == 1000:
                s.sendall(b"".join(batch))
                batch = []
        s.sendall(b"".join(batch) + b"version\r\n")
        reply = b""
        while not reply.endswith(b"\r\n"):
            reply += s.recv(4096)
        if not reply.startswith(b"VERSION"):
            raise RuntimeError(f"memcached answered the preload with {reply[:80]!r}")
        # A spot check that the values are kvcache's.
        s.sendall(b"get key:%010d\r\n" % (keys - 1))
        got = b""
        while not got.endswith(b"END\r\n"):
            got += s.recv(4096)
        if value_of(keys - 1, value_bytes) not in got:
            raise RuntimeError("memcached does not hold the preloaded values")


def cpu_seconds(pid):
    # utime + stime of every thread of the process, in clock ticks.
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_load(quanta, app, keys, target, rate, duration_s):
    cmd = [quanta, "load", "--app", app, "--app-config", f"keys={keys},get=1", "--target", target,
           "--rate-rps", str(rate), "--duration-s", str(duration_s), "--timeout-ms", "1000",
           "--wait", "block", "--format", "json", "--no-progress"]
    if target.startswith("tcp://"):
        # A client pool, as memcached clients keep: both servers run one connection's
        # commands one at a time (kvcache asks quanta for in-order connections).
        cmd += ["--connections", "4"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=duration_s * 4 + 60)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {proc.stderr.strip()}")
    return cmd, json.loads(proc.stdout)


def summarise(report, cpu_s, elapsed_s):
    client = report["client"]
    overall = report["overall"]["sojourn_us"]
    answered = client["answered"]
    return {
        "sent": client["sent"],
        "answered": answered,
        "answered_share": answered / client["sent"] if client["sent"] else 0.0,
        "dropped": client["dropped"],
        "overloaded": client["overloaded"],
        "late_sends": client["late_sends"],
        "p50_us": overall["p50"],
        "p99_us": overall["p99"],
        "p99.9_us": overall["p99.9"],
        "server_cpu_s": cpu_s,
        "server_cores_busy": cpu_s / elapsed_s if elapsed_s > 0 else 0.0,
        "requests_per_cpu_s": answered / cpu_s if cpu_s > 0 else None,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--keys", type=int, default=10000)
    ap.add_argument("--value-bytes", type=int, default=64)
    ap.add_argument("--rates", default="10000,20000,40000,60000,80000,100000,130000")
    ap.add_argument("--transports", default="tcp,udp")
    ap.add_argument("--duration-s", type=float, default=3.0)
    ap.add_argument("--max-p99-ms", type=float, default=10.0,
                    help="a rate is sustained only with p99 at most this (default 10 ms)")
    ap.add_argument("--p99-bounds-ms",
                    help="compare the rates both servers sustained under each of these p99 bounds (default "
                         f"{','.join(f'{b:g}' for b in DEFAULT_P99_BOUNDS_MS)}; with --replot, the bounds the "
                         "result was made with)")
    ap.add_argument("--repeat", default="1",
                    help="run the whole rate ladder this many times; the summary takes medians over them (default 1)")
    ap.add_argument("--udp-receive", choices=["recvmmsg", "io_uring"], default="recvmmsg",
                    help="quanta serve --udp-receive")
    ap.add_argument("--tcp-poll", choices=["epoll", "io_uring"], default="epoll",
                    help="quanta serve --tcp-poll")
    ap.add_argument("--quanta", default=",".join(QUANTA_LAYOUTS),
                    help="the quanta servers to run, a comma list of " + ", ".join(QUANTA_LAYOUTS) +
                         " (each its own server: see QUANTA_LAYOUTS)")
    ap.add_argument("--idle-spin-us", type=float, default=20.0,
                    help="quanta serve --idle-spin-us (yield and block: spin this long before giving up the CPU)")
    ap.add_argument("--replot", metavar="JSON",
                    help="write the table and the plot again from a result this script wrote; runs nothing")
    ap.add_argument("--quick", action="store_true", help="two low rates, 0.5 s each: checks the script works")
    ap.add_argument("--out-dir", default=str(ROOT / "experiments" / "results"))
    args = ap.parse_args()
    bounds_ms = None
    if args.p99_bounds_ms is not None:
        try:
            bounds_ms = positive_ms(args.p99_bounds_ms.split(","), f"--p99-bounds-ms: '{args.p99_bounds_ms}' is not "
                                    "a comma list of positive numbers of milliseconds")
        except ValueError as e:
            ap.error(str(e))
    if args.replot:
        try:
            result = json.loads(Path(args.replot).read_text())
            # The bounds the result was made with, unless others are asked for (a result
            # written before --p99-bounds-ms has none: the default ones).
            if bounds_ms is None:
                recorded = result.get("p99_bounds_ms") or DEFAULT_P99_BOUNDS_MS
                bounds_ms = positive_ms(recorded, f"its p99_bounds_ms {recorded} are not positive milliseconds")
            result["p99_bounds_ms"] = bounds_ms
            bounds_us = [b * 1000 for b in bounds_ms]
            names, rates = result["servers"], sorted({p["rate_rps"] for p in result["points"]})
            transports = sorted({p["transport"] for p in result["points"]}, key=["tcp", "udp"].index)
            # Recomputed from the points, so that a result written before --repeat (its points
            # have no "repeat": one ladder, repeat 0) gets the medians and the verdict too.
            result["summary"] = summarise_repeats(result["points"], names, transports, result["max_p99_ms"] * 1000,
                                                  bounds_us)
        except (OSError, ValueError, KeyError, TypeError) as e:
            ap.error(f"--replot: cannot read '{args.replot}' as this script's result: {e}")
        stem = Path(args.replot).with_suffix("")
        Path(f"{stem}.md").write_text(markdown(result, names, transports, rates))
        plot(result, names, transports, f"{stem}.png")
        return
    if bounds_ms is None:
        bounds_ms = DEFAULT_P99_BOUNDS_MS
    bounds_us = [b * 1000 for b in bounds_ms]
    if args.quick:
        args.rates, args.duration_s, args.keys = "2000,4000", 0.5, 1000
    try:
        rates = [int(r) for r in args.rates.split(",")]
        if any(r <= 0 for r in rates):
            raise ValueError
    except ValueError:
        ap.error(f"--rates: '{args.rates}' is not a comma list of positive integers")
    try:
        repeats = int(args.repeat)
        if repeats <= 0:
            raise ValueError
    except ValueError:
        ap.error(f"--repeat: '{args.repeat}' is not a positive integer")
    transports = args.transports.split(",")
    if any(t not in ("tcp", "udp") for t in transports):
        ap.error(f"--transports: '{args.transports}' (expected tcp, udp or tcp,udp)")
    memcached = shutil.which("memcached")
    if memcached is None:
        sys.exit("memcached is not installed (scripts/setup.sh installs it)")
    quanta = str(Path(args.build) / "bin" / "quanta")
    server_app = str(Path(args.build) / "lib" / "quanta" / "apps" / "kvcache-clock.so")
    client_app = str(Path(args.build) / "lib" / "quanta" / "apps" / "kvcache-plain.so")

    mc_port, q_port = free_port(), free_port()
    # memcached runs on the last CPU, as quanta's one thread does: the client keeps the first
    # (unpinned, memcached's threads could also take turns on the client's CPU).
    last_cpu = str(max(os.sched_getaffinity(0)))
    mc_cmd = ["taskset", "-c", last_cpu, memcached, "-t", "1", "-l", "127.0.0.1", "-p", str(mc_port), "-U", str(mc_port), "-m", "256"]
    if os.geteuid() == 0:
        mc_cmd += ["-u", "root"]
    layouts = args.quanta.split(",")
    if not layouts or any(l not in QUANTA_LAYOUTS for l in layouts):
        ap.error(f"--quanta: '{args.quanta}' (expected a comma list of {', '.join(QUANTA_LAYOUTS)})")
    names = ["memcached"] + [f"quanta-{l}" for l in layouts]

    def quanta_command(layout):
        pin = ["taskset", "-c", last_cpu] if layout in LAST_CPU_LAYOUTS else []
        return pin + [quanta, "serve", "--app", server_app, "--app-config", f"keys={args.keys},value_bytes={args.value_bytes}",
                "--listen", f"tcp://127.0.0.1:{q_port}", "--listen", f"udp://127.0.0.1:{q_port}", "--format", "json",
                "--idle-spin-us", str(args.idle_spin_us), "--udp-receive", args.udp_receive, "--tcp-poll", args.tcp_poll,
                *QUANTA_LAYOUTS[layout]]
    points = []
    quanta_reports = []

    def run_once(memcached_proc, repeat, transport, rate, name):
        # One server's run at one rate: the client's point, and quanta's own counters.
        quanta_run = name != "memcached"
        server = memcached_proc
        if quanta_run:
            server = subprocess.Popen(quanta_command(name.split("-", 1)[1]), stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True)
            wait_for_tcp(q_port)
        port = q_port if quanta_run else mc_port
        try:
            before, start = cpu_seconds(server.pid), time.monotonic()
            cmd, report = run_load(quanta, client_app, args.keys, f"{transport}://127.0.0.1:{port}",
                                   rate, args.duration_s)
            cpu_s, elapsed_s = cpu_seconds(server.pid) - before, time.monotonic() - start
        finally:
            if quanta_run:
                server.send_signal(signal.SIGTERM)
                q_out, q_err = server.communicate(timeout=60)
        if quanta_run:
            if server.returncode != 0:
                sys.exit(f"quanta serve exited {server.returncode}: {q_err.strip()}")
            quanta_reports.append({"server": name, "transport": transport, "rate_rps": rate,
                                   "repeat": repeat, "network": json.loads(q_out)["network"]})
        point = {"server": name, "transport": transport, "rate_rps": rate, "repeat": repeat, "command": cmd}
        point.update(summarise(report, cpu_s, elapsed_s))
        points.append(point)
        print(f"repeat {repeat} {transport} {rate:>7} rps {name:>9}: answered {point['answered_share']:.3f}  "
              f"p50 {us(point['p50_us'])} us  p99 {us(point['p99_us'])} us  "
              f"server cores {point['server_cores_busy']:.2f}", file=sys.stderr)

    # memcached stays up (it sleeps in epoll when idle, costing the others nothing); quanta's
    # dispatcher and worker spin, so it is started for its own runs only, lest it take the
    # CPUs from memcached's.
    memcached_proc = subprocess.Popen(mc_cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_tcp(mc_port)
        preload_memcached(mc_port, args.keys, args.value_bytes)
        for repeat in range(repeats):
            for transport in transports:
                for rate in rates:
                    for name in server_order(names, repeat):
                        run_once(memcached_proc, repeat, transport, rate, name)
    finally:
        memcached_proc.terminate()
        memcached_proc.wait(timeout=30)

    summary = summarise_repeats(points, names, transports, args.max_p99_ms * 1000, bounds_us)
    result = {
        "what": "memcached (1 thread) vs quanta serve + kvcache, same GETs, same quanta load, interleaved",
        "keys": args.keys, "value_bytes": args.value_bytes, "duration_s": args.duration_s, "repeats": repeats,
        "max_p99_ms": args.max_p99_ms, "p99_bounds_ms": bounds_ms, "udp_receive": args.udp_receive, "tcp_poll": args.tcp_poll,
        "idle_spin_us": args.idle_spin_us,
        "cpus": os.cpu_count(), "servers": names, "memcached_command": mc_cmd,
        "quanta_commands": {f"quanta-{l}": quanta_command(l) for l in layouts},
        "quanta_network_counters": quanta_reports,
        "summary": summary, "points": points,
    }
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / ("memcached_vs_kvcache" + ("_quick" if args.quick else "") +
                  ("_io_uring" if args.udp_receive == "io_uring" else "") +
                  ("_tcp_io_uring" if args.tcp_poll == "io_uring" else ""))
    Path(f"{stem}.json").write_text(json.dumps(result, indent=2) + "\n")
    Path(f"{stem}.md").write_text(markdown(result, names, transports, rates))
    plot(result, names, transports, f"{stem}.png")
    for key, s in summary["servers"].items():
        print(f"{key}: sustained {whole(s['sustained_rps'])} rps (median of {repeats}), "
              f"requests per CPU-second there {whole(s['requests_per_cpu_s_at_sustained'])}")
    for v in summary["verdict"].values():
        print(v["text"])
        print(v["under_p99_bounds_text"])


def whole(value):
    # A median or count for a table: "-" where there is none, "inf" where it is infinite.
    return "-" if value is None else us(value)


def markdown(result, names, transports, rates):
    summary, points = result["summary"], result["points"]
    n = summary["repeats"]
    lines = [f"# memcached vs quanta + kvcache, GETs of {result['value_bytes']}-byte values",
             "",
             f"`experiments/memcached_vs_kvcache.py`, {result['duration_s']} s a run, the rate ladder run {n} "
             f"time{'s' if n > 1 else ''}, {result['cpus']} CPUs, the client sharing a CPU with the servers. A rate is "
             f"sustained with >= 99% answered and p99 <= {result['max_p99_ms']:g} ms, checked in each repeat.",
             "",
             "The target, per repeat: quanta sustained at least memcached's rate of that repeat, and its p99 at "
             "memcached's sustained rate was no higher than memcached's there. Ratios are quanta / memcached, "
             "paired by repeat (the p99s at memcached's sustained rate; requests per CPU-second, each server at its "
             "own sustained rate), then the median.",
             "",
             "| quanta server, transport | target met | p99 ratio at memcached's ceiling | requests per CPU-second ratio |",
             "|---|---|---|---|"]
    for key, v in summary["verdict"].items():
        name, transport = key.rsplit("_", 1)
        met = f"{v['met_repeats']} of {v['repeats']}" + (f" ({v['no_verdict_repeats']} without a verdict)"
                                                         if v["no_verdict_repeats"] else "")
        lines.append(f"| {name}, {transport} | {met} | {ratio_text(v['p99_ratio_at_memcached_sustained_median'])} "
                     f"| {ratio_text(v['requests_per_cpu_s_ratio_median'])} |")
    lines += ["", "The same question asked alike of both servers: the rate each sustained under a p99 bound (the rule "
              "above with the bound in place of the p99 limit), repeat by repeat. Median over the repeats, and in how "
              "many quanta's was at least memcached's (a repeat in which neither sustained a rate under the bound is "
              "counted apart).", "",
              "| quanta server, transport | p99 bound | memcached, median rps | quanta, median rps | quanta's at least memcached's |",
              "|---|---|---|---|---|"]
    for key, v in summary["verdict"].items():
        name, transport = key.rsplit("_", 1)
        for row in v["under_p99_bounds"]:
            neither = f" ({row['neither_repeats']} with neither)" if row["neither_repeats"] else ""
            lines.append(f"| {name}, {transport} | {bound_ms_text(row['p99_bound_us'])} | "
                         f"{whole(row['memcached_rps_median'])} | {whole(row['quanta_rps_median'])} | "
                         f"{row['quanta_at_least_repeats']} of {row['repeats']}{neither} |")
    lines += ["", "Medians over the repeats, each server at its own sustained rate:", "",
              "| server, transport | sustained rps, median (each repeat) | p99 there (us) | requests per CPU-second there |",
              "|---|---|---|---|"]
    for key, s in summary["servers"].items():
        name, transport = key.rsplit("_", 1)
        each = ", ".join(str(r["sustained_rps"]) for r in s["per_repeat"])
        lines.append(f"| {name}, {transport} | {whole(s['sustained_rps'])} ({each}) | {whole(s['p99_us_at_sustained'])} "
                     f"| {whole(s['requests_per_cpu_s_at_sustained'])} |")
    lines += ["", "p99 (us) at each rate, median over the repeats" + (" (min–max)" if n > 1 else "") + ":", "",
              "| transport | rate (rps) | " + " | ".join(names) + " |",
              "|---|---|" + "---|" * len(names)]
    for transport in transports:
        by_server = {name: {row[0]: row[1:] for row in p99_by_rate(points, name, transport)} for name in names}
        for rate in rates:
            cells = []
            for name in names:
                mid, low, high = by_server[name].get(rate, (None, None, None))
                cells.append(whole(mid) + (f" ({whole(low)}–{whole(high)})" if n > 1 and mid is not None else ""))
            lines.append(f"| {transport} | {rate} | " + " | ".join(cells) + " |")
    lines += ["", "Every run: share answered / p99 latency (us) / server CPU-seconds per second of run.", "",
              "| transport | rate (rps) | repeat | " + " | ".join(names) + " |",
              "|---|---|---|" + "---|" * len(names)]
    for transport in transports:
        for rate in rates:
            for repeat in sorted({repeat_of(p) for p in points}):
                cells = []
                for name in names:
                    p = next((p for p in points if p["server"] == name and p["transport"] == transport
                              and p["rate_rps"] == rate and repeat_of(p) == repeat), None)
                    cells.append("-" if p is None else
                                 f"{p['answered_share']:.3f} / {us(p['p99_us'])} / {p['server_cores_busy']:.2f}")
                lines.append(f"| {transport} | {rate} | {repeat} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot(result, names, transports, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"memcached_vs_kvcache.py: no matplotlib here, so no {path} (the venv of scripts/setup.sh has it)",
              file=sys.stderr)
        return
    n = result["summary"]["repeats"]
    fig, axes = plt.subplots(1, len(transports), figsize=(6 * len(transports), 4), squeeze=False)
    for ax, transport in zip(axes[0], transports):
        for i, name in enumerate(names):
            style = ("o-", "s-", "^-", "v-", "d-", "x-")[i % 6]
            # The line joins the finite medians, a bar spans the finite p99s of the repeats,
            # and a hollow "^" at the highest finite one marks a rate where some repeat's p99
            # was infinite (dropped requests; with two repeats that makes the median infinite).
            rows, clipped = [], []
            for rate, mid, _, high in p99_by_rate(result["points"], name, transport):
                finite = [latency_us(p["p99_us"]) for p in result["points"] if p["server"] == name
                          and p["transport"] == transport and p["rate_rps"] == rate
                          and latency_us(p["p99_us"]) != float("inf")]
                if mid != float("inf"):
                    rows.append((rate, mid, min(finite), max(finite)))
                if high == float("inf") and finite:
                    clipped.append((rate, max(finite)))
            label = f"{name} p99" + (f", median of {n} (bars: min–max)" if n > 1 else "")
            line = ax.errorbar([r[0] for r in rows], [r[1] for r in rows], fmt=style, capsize=3, label=label,
                               yerr=[[r[1] - r[2] for r in rows], [r[3] - r[1] for r in rows]] if n > 1 else None)
            if clipped:
                marked = any(h.get_label().startswith("hollow") for h in ax.get_lines())
                ax.plot([c[0] for c in clipped], [c[1] for c in clipped], "^", mfc="none", ms=9,
                        color=line[0].get_color(),
                        label="_" if marked else "hollow ^: some repeat's p99 infinite (dropped)")
        ax.set_yscale("log")
        ax.set_xlabel("offered GETs per second")
        ax.set_ylabel("p99 latency (us, from intended send)")
        ax.set_title(f"{transport.upper()}: client sharing the servers' 2 CPUs")
        ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
