#!/usr/bin/env python3
"""System calls per request of the one-thread TCP server, with each `--tcp-poll`.

For each poll method it starts `quanta serve --dispatcher-only` on the last CPU (the echo
test app, a no-op handler, unless --app says else), listening on TCP only, drives it with
`quanta load` on the first CPU (--connections, --rate-rps, --duration-s) and counts the
server's system calls during the load run with `perf stat -e 'syscalls:sys_enter_*' -p PID`
(perf attaches after the server is up and stops when the client is done, so start-up and
shutdown are not counted). It prints one JSON object: per method the requests the client
had answered, the system calls per request in all and per call (those above 0.01 per
request), and the server's network counters (tcp.epoll_waits: the front end's own count).

    experiments/tcp_poll_syscalls.py                       # 50k rps, 3 s, --idle block
    experiments/tcp_poll_syscalls.py --rate-rps 100000 --idle spin --out result.json

Counts, not times: what a busy machine changes is how many idle polls fall between
requests (more when the server waits for the CPU less), so read the counts beside the
load average it prints, and compare methods within one run of this script.
"""
import argparse
import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
METHODS = ["epoll", "io_uring"]


def start_server(command):
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    bound = threading.Event()
    state = {"address": None, "stderr": []}

    def read_stderr():
        for line in proc.stderr:
            state["stderr"].append(line)
            if "listening on " in line:
                state["address"] = line.strip().split("listening on ")[1]
                bound.set()
        bound.set()

    threading.Thread(target=read_stderr, daemon=True).start()
    if not bound.wait(timeout=60) or state["address"] is None:
        proc.kill()
        sys.exit(f"quanta serve did not start: {''.join(state['stderr'])}")
    return proc, state


def read_perf_counts(path):
    """perf stat -x, output: value,unit,event,..."""
    counts = {}
    for line in pathlib.Path(path).read_text().splitlines():
        fields = line.split(",")
        if len(fields) < 3 or not fields[0].strip().isdigit():
            continue
        name = fields[2].strip()
        counts[name.removeprefix("syscalls:sys_enter_")] = int(fields[0])
    return counts


def measure(args, method, cpus):
    quanta = str(args.build / "bin" / "quanta")
    serve = ["taskset", "-c", str(cpus["server"]), quanta, "serve", "--dispatcher-only", "--app", args.app,
             "--preempt", "none", "--idle", args.idle, "--listen", "tcp://127.0.0.1:0", "--tcp-poll", method,
             "--format", "json"]
    proc, state = start_server(serve)
    with tempfile.NamedTemporaryFile(suffix=".perf", delete=False) as f:
        perf_out = f.name
    perf = subprocess.Popen(["perf", "stat", "-e", "syscalls:sys_enter_*", "-x", ",", "-o", perf_out,
                             "-p", str(proc.pid)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(0.5)  # perf attaches to every event before the load starts
    load = [quanta, "load", "--target", state["address"], "--app", args.app, "--connections",
            str(args.connections), "--rate-rps", str(args.rate_rps), "--duration-s", str(args.duration_s),
            "--format", "json", "--wait", "block", "--cpu", str(cpus["client"]), "--no-progress"]
    run = subprocess.run(load, capture_output=True, text=True, timeout=args.duration_s + 120)
    perf.send_signal(signal.SIGINT)
    perf.wait(timeout=60)
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=60)
    if run.returncode not in (0, 3):
        sys.exit(f"{' '.join(load)} exited {run.returncode}: {run.stderr}")
    if proc.returncode != 0:
        sys.exit(f"quanta serve exited {proc.returncode}: {''.join(state['stderr'])}")
    counts = read_perf_counts(perf_out)
    os.unlink(perf_out)
    if not counts:
        sys.exit(f"perf stat counted nothing: {perf.stderr.read() if perf.stderr else ''}")
    client = json.loads(run.stdout)["client"]
    answered = client["answered"]
    total = sum(counts.values())
    per_request = {name: round(n / answered, 3) for name, n in sorted(counts.items(), key=lambda kv: -kv[1])
                   if answered and n / answered >= 0.01}
    return {
        "answered": answered,
        "sent": client["sent"],
        "syscalls": total,
        "syscalls_per_request": round(total / answered, 3) if answered else None,
        "per_request_by_call": per_request,
        "server_network_tcp": json.loads(out)["network"]["tcp"],
        "commands": {"serve": serve, "load": load},
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", type=pathlib.Path, default=ROOT / "build")
    ap.add_argument("--app", help="the app served and asked (default: the echo test app)")
    ap.add_argument("--rate-rps", type=int, default=50000)
    ap.add_argument("--duration-s", type=float, default=3.0)
    ap.add_argument("--connections", type=int, default=4)
    ap.add_argument("--idle", choices=["spin", "yield", "block"], default="block", help="quanta serve --idle")
    ap.add_argument("--methods", default=",".join(METHODS), help="the --tcp-poll values, a comma list")
    ap.add_argument("--out", type=pathlib.Path, help="also write the JSON here")
    args = ap.parse_args()
    if args.rate_rps <= 0 or args.duration_s <= 0 or args.connections <= 0:
        ap.error("--rate-rps, --duration-s and --connections must be above 0")
    methods = args.methods.split(",")
    if any(m not in METHODS for m in methods):
        ap.error(f"--methods: '{args.methods}' (expected a comma list of {', '.join(METHODS)})")
    if args.app is None:
        args.app = str(args.build / "tests" / "apps" / "echo.so")
    allowed = sorted(os.sched_getaffinity(0))
    cpus = {"client": allowed[0], "server": allowed[-1]}
    result = {"what": "system calls per request, one-thread TCP server, per --tcp-poll",
              "rate_rps": args.rate_rps, "duration_s": args.duration_s, "connections": args.connections,
              "idle": args.idle, "app": args.app, "cpus": cpus, "load_average_before": os.getloadavg(),
              "methods": {}}
    for method in methods:
        print(f"tcp_poll_syscalls: --tcp-poll {method}", file=sys.stderr, flush=True)
        result["methods"][method] = measure(args, method, cpus)
    result["load_average_after"] = os.getloadavg()
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
