#!/usr/bin/env python3
"""Where each TCP server spends its work per request: memcached (Debian's, one worker thread)
against quanta's one-thread server (`quanta serve --dispatcher-only --idle block` with the
kvcache app), at one fixed offered rate, the same `quanta load` against each.

Both servers run on the last CPU (taskset), the client on the first (`quanta load --cpu`),
4 connections, GETs of 64-byte values (the layout of experiments/memcached_vs_kvcache.py).
While the client runs, `perf stat --per-thread -p PID` counts on the server, and every
figure is divided by the requests the server itself says it took meanwhile (memcached's
`stats` cmd_get, quanta's `tcp.requests` read with SIGUSR1, before and after):

- system calls, in all and by call (`syscalls:sys_enter_*`), per request;
- context switches (`context-switches`) and CPU migrations, per request and per thread, and
  the kernel's voluntary / involuntary switch counts from /proc/PID/task/TID/status;
- the CPU time each thread used (`task-clock`), and its user / kernel split from
  /proc/PID/task/TID/stat (clock ticks), per request: a time, so it moves with whatever
  else runs on the machine;
- instructions and cycles in user and kernel space (`instructions:u` ... `cycles:k`) where
  the CPU exposes a PMU; on a VM without one perf says `<not supported>` and the JSON
  carries null there, with the reason.

It prints one JSON object (and writes it with --out). System calls and context switches
per request are counts, but how many requests one call serves depends on how they arrive
(a client that falls behind sends them in bursts, and one read then takes several): read
them beside the client's `late_sends` and the load average, which the JSON records.

    experiments/tcp_cpu_per_request.py                          # 40k rps, 5 s
    experiments/tcp_cpu_per_request.py --rate-rps 20000 --out experiments/results/tcp_cpu_per_request.json
"""
import argparse
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "experiments"))
# kvcache's values, waiting for a server, loading memcached: as in the side-by-side comparison.
from memcached_vs_kvcache import preload_memcached, wait_for_tcp  # noqa: E402
SERVERS = ["memcached", "quanta"]
HW_EVENTS = ["instructions:u", "instructions:k", "cycles:u", "cycles:k"]
SW_EVENTS = ["task-clock", "context-switches", "cpu-migrations", "raw_syscalls:sys_enter"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def memcached_gets(port):
    """memcached's own count of GET commands (its `stats`)."""
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(b"stats\r\n")
        text = b""
        while not text.endswith(b"END\r\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            text += chunk
    for line in text.decode().splitlines():
        if line.startswith("STAT cmd_get "):
            return int(line.split()[2])
    raise RuntimeError("memcached's stats have no cmd_get")


class QuantaSnapshots:
    """quanta serve's network counters, read with SIGUSR1 (a JSON line on its stderr)."""

    def __init__(self, proc):
        self.proc = proc
        self.lines = []
        self.cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stderr:
            if line.startswith('{"network"'):
                with self.cond:
                    self.lines.append(json.loads(line))
                    self.cond.notify_all()

    def requests(self):
        with self.cond:
            seen = len(self.lines)
            self.proc.send_signal(signal.SIGUSR1)
            if not self.cond.wait_for(lambda: len(self.lines) > seen, timeout=30):
                raise RuntimeError("quanta serve printed no counters on SIGUSR1")
            return self.lines[-1]["network"]["tcp"]


def threads_of(pid):
    """tid -> (name, utime ticks, stime ticks, voluntary, involuntary switches)."""
    out = {}
    for task in pathlib.Path(f"/proc/{pid}/task").iterdir():
        try:
            stat = (task / "stat").read_text().rsplit(")", 1)[1].split()
            status = dict(line.split(":\t", 1) for line in (task / "status").read_text().splitlines() if ":\t" in line)
            out[int(task.name)] = {
                "name": (task / "comm").read_text().strip(),
                "utime": int(stat[11]), "stime": int(stat[12]),
                "voluntary": int(status["voluntary_ctxt_switches"]),
                "involuntary": int(status["nonvoluntary_ctxt_switches"]),
            }
        except (OSError, KeyError, IndexError):
            continue  # the thread ended meanwhile
    return out


def parse_perf(path, per_thread):
    """perf stat -x, output -> {thread or "all": {event: value or None}}."""
    counts = {}
    for line in pathlib.Path(path).read_text().splitlines():
        fields = line.split(",")
        if line.startswith("#") or len(fields) < 4:
            continue
        if per_thread:
            thread, value, event = fields[0], fields[1], fields[3]
        else:
            thread, value, event = "all", fields[0], fields[2]
        event = event.strip()
        try:
            number = float(value)
        except ValueError:
            number = None  # <not supported> / <not counted>
        counts.setdefault(thread.strip(), {})[event] = number
    return counts


def start_memcached(args, port, cpu):
    memcached = shutil.which("memcached")
    if memcached is None:
        sys.exit("memcached is not installed (scripts/setup.sh installs it)")
    cmd = ["taskset", "-c", str(cpu), memcached, "-t", "1", "-l", "127.0.0.1", "-p", str(port), "-U", "0", "-m", "256"]
    if os.geteuid() == 0:
        cmd += ["-u", "root"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_for_tcp(port)
    preload_memcached(port, args.keys, args.value_bytes)
    return proc, cmd


def start_quanta(args, port, cpu):
    app = str(args.build / "lib" / "quanta" / "apps" / "kvcache-clock.so")
    cmd = ["taskset", "-c", str(cpu), str(args.build / "bin" / "quanta"), "serve", "--app", app,
           "--app-config", f"keys={args.keys},value_bytes={args.value_bytes}", "--listen", f"tcp://127.0.0.1:{port}",
           "--format", "json", "--dispatcher-only", "--idle", "block", "--tcp-poll", args.tcp_poll,
           "--idle-spin-us", str(args.idle_spin_us)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_tcp(port)
    return proc, cmd


def measure(args, name, cpus):
    port = free_port()
    proc, serve_cmd = (start_memcached if name == "memcached" else start_quanta)(args, port, cpus["server"])
    tmp = tempfile.mkdtemp(prefix="tcp_cpu_")
    try:
        events = ",".join(HW_EVENTS + SW_EVENTS)
        perf_threads = subprocess.Popen(["perf", "stat", "--per-thread", "-e", events, "-x", ",", "-o",
                                         f"{tmp}/threads", "-p", str(proc.pid)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        perf_calls = subprocess.Popen(["perf", "stat", "-e", "syscalls:sys_enter_*", "-x", ",", "-o",
                                       f"{tmp}/calls", "-p", str(proc.pid)],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)  # perf attaches to every event before the load starts
        snapshots = QuantaSnapshots(proc) if name == "quanta" else None
        served_before = snapshots.requests() if snapshots else {"requests": memcached_gets(port)}
        before = threads_of(proc.pid)
        client_app = str(args.build / "lib" / "quanta" / "apps" / "kvcache-plain.so")
        load = [str(args.build / "bin" / "quanta"), "load", "--app", client_app, "--app-config",
                f"keys={args.keys},get=1", "--target", f"tcp://127.0.0.1:{port}", "--rate-rps", str(args.rate_rps),
                "--duration-s", str(args.duration_s), "--connections", str(args.connections), "--timeout-ms", "1000",
                "--wait", "block", "--cpu", str(cpus["client"]), "--format", "json", "--no-progress"]
        run = subprocess.run(load, capture_output=True, text=True, timeout=args.duration_s * 4 + 60)
        after = threads_of(proc.pid)
        for p in (perf_threads, perf_calls):
            p.send_signal(signal.SIGINT)
            p.wait(timeout=60)
        served_after = snapshots.requests() if snapshots else {"requests": memcached_gets(port)}
        if run.returncode not in (0, 3):
            sys.exit(f"{' '.join(load)} exited {run.returncode}: {run.stderr.strip()}")
        report = json.loads(run.stdout)
        per_thread = parse_perf(f"{tmp}/threads", per_thread=True)
        calls = parse_perf(f"{tmp}/calls", per_thread=False).get("all", {})
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    if name == "quanta" and proc.returncode != 0:
        sys.exit(f"quanta serve exited {proc.returncode}")

    # Per request the server took while perf counted (its own count, read just before the
    # load and just after perf stopped): a server that fell behind has not yet taken every
    # request the client sent, and requests the client gave up on were still served.
    served = served_after["requests"] - served_before["requests"]
    if served <= 0:
        sys.exit(f"{name}: the server took no request during the run")
    answered = served
    tick_ms = 1000.0 / os.sysconf("SC_CLK_TCK")

    def per_request(value, scale=1.0):
        return None if value is None else round(value * scale / answered, 4)

    threads = {}
    totals = {}
    for key, counts in per_thread.items():
        tid = int(key.rsplit("-", 1)[1])
        b, a = before.get(tid), after.get(tid)
        if not any(v for v in counts.values()) and not (b and a and a["utime"] + a["stime"] > b["utime"] + b["stime"]):
            continue  # a thread that did nothing during the run
        entry = {"name": a["name"] if a else key.rsplit("-", 1)[0]}
        for event in HW_EVENTS:
            entry[f"{event}_per_request"] = per_request(counts.get(event))
        entry["cpu_us_per_request"] = per_request(counts.get("task-clock"), 1000.0)  # task-clock is in ms
        entry["syscalls_per_request"] = per_request(counts.get("raw_syscalls:sys_enter"))
        entry["context_switches_per_request"] = per_request(counts.get("context-switches"))
        entry["cpu_migrations"] = counts.get("cpu-migrations")
        if b and a:
            user_ms, kernel_ms = (a["utime"] - b["utime"]) * tick_ms, (a["stime"] - b["stime"]) * tick_ms
            entry["user_share_of_cpu"] = round(user_ms / (user_ms + kernel_ms), 3) if user_ms + kernel_ms > 0 else None
            entry["voluntary_switches_per_request"] = per_request(a["voluntary"] - b["voluntary"])
            entry["involuntary_switches_per_request"] = per_request(a["involuntary"] - b["involuntary"])
        threads[f"{entry['name']}-{tid}"] = entry
        for event, value in counts.items():
            if value is not None:
                totals[event] = totals.get(event, 0.0) + value
    hw_supported = any(c.get(e) is not None for c in per_thread.values() for e in HW_EVENTS)
    syscall_total = sum(v for v in calls.values() if v)
    by_call = {k.removeprefix("syscalls:sys_enter_"): round(v / answered, 4)
               for k, v in sorted(calls.items(), key=lambda kv: -(kv[1] or 0)) if v and v / answered >= 0.005}
    overall = report["overall"]["sojourn_us"]
    extra = {}
    if snapshots:
        extra = {"server_tcp_counters_per_request": {
            k: round((served_after[k] - served_before[k]) / served, 4)
            for k in ("reads", "epoll_waits", "paused_at_in_flight_limit") if k in served_after}}
    return {
        "requests_served": served,
        **extra,
        "client": {k: report["client"][k] for k in ("sent", "answered", "dropped", "late_sends", "worst_send_lag_us")},
        "p50_us": overall["p50"], "p99_us": overall["p99"],
        "cpu_us_per_request": per_request(totals.get("task-clock"), 1000.0),
        "syscalls_per_request": round(syscall_total / answered, 4),
        "syscalls_per_request_by_call": by_call,
        "context_switches_per_request": per_request(totals.get("context-switches")),
        "instructions_and_cycles": ({e: per_request(totals.get(e)) for e in HW_EVENTS} if hw_supported else
                                    {"unavailable": "perf stat says <not supported>: this CPU exposes no PMU "
                                                    "(a VM without one; dmesg: 'no PMU driver, software events only')"}),
        "threads": threads,
        "commands": {"serve": serve_cmd, "load": load},
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", type=pathlib.Path, default=ROOT / "build")
    ap.add_argument("--rate-rps", type=int, default=40000)
    ap.add_argument("--duration-s", type=float, default=5.0)
    ap.add_argument("--connections", type=int, default=4)
    ap.add_argument("--keys", type=int, default=10000)
    ap.add_argument("--value-bytes", type=int, default=64)
    ap.add_argument("--tcp-poll", choices=["epoll", "io_uring"], default="epoll", help="quanta serve --tcp-poll")
    ap.add_argument("--idle-spin-us", type=float, default=20.0,
                    help="quanta serve --idle-spin-us (0: sleep as soon as idle, so CPU time per request leaves out the spin)")
    ap.add_argument("--servers", default=",".join(SERVERS), help="a comma list of memcached, quanta")
    ap.add_argument("--out", type=pathlib.Path, help="also write the JSON here")
    args = ap.parse_args()
    if args.idle_spin_us < 0:
        ap.error(f"--idle-spin-us must be >= 0, got {args.idle_spin_us}")
    if args.rate_rps <= 0 or args.duration_s <= 0 or args.connections <= 0 or args.keys <= 0 or args.value_bytes <= 0:
        ap.error("--rate-rps, --duration-s, --connections, --keys and --value-bytes must be above 0")
    servers = args.servers.split(",")
    if not servers or any(s not in SERVERS for s in servers):
        ap.error(f"--servers: '{args.servers}' (expected a comma list of {', '.join(SERVERS)})")
    if not (args.build / "bin" / "quanta").exists():
        ap.error(f"--build: no bin/quanta under '{args.build}'")
    if shutil.which("perf") is None:
        sys.exit("perf is not installed")
    allowed = sorted(os.sched_getaffinity(0))
    cpus = {"client": allowed[0], "server": allowed[-1]}
    result = {"what": "per-request work of memcached (1 thread) and quanta's one-thread TCP server, same quanta load",
              "rate_rps": args.rate_rps, "duration_s": args.duration_s, "connections": args.connections,
              "keys": args.keys, "value_bytes": args.value_bytes, "tcp_poll": args.tcp_poll,
              "idle_spin_us": args.idle_spin_us, "cpus": cpus,
              "load_average_before": os.getloadavg(), "servers": {}}
    for name in servers:
        print(f"tcp_cpu_per_request: {name}", file=sys.stderr, flush=True)
        result["servers"][name] = measure(args, name, cpus)
    result["load_average_after"] = os.getloadavg()
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
