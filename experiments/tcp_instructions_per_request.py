#!/usr/bin/env python3
"""User-space instructions per request of quanta's one-thread TCP server, by function,
counted by callgrind: a count, not a time, so it holds on a busy machine and compares
builds directly.

Each build given with --build (repeatable; the first build's `quanta load` drives all of
them) runs `quanta serve --dispatcher-only --idle block` with kvcache-clock.so under
`valgrind --tool=callgrind` (binaries stripped of debug information first: valgrind 3.19
cannot read all of clang 19's DWARF 5), while `quanta load` sends GETs of 64-byte values
over 4 TCP connections. Counted is what runs inside the dispatcher's loop
(CentralDispatcher::run: receiving, framing, running, replying, idling), not the set-up or
the statistics written at the end, divided by the requests the server took (`tcp.requests`
of its final statistics). With --repeat N the builds take turns N times.

Under valgrind the server runs ~50 times slower, so the rate is low (default 1,000 rps) and
the idle loop behaves unlike a native run's (its spin before sleeping is timed by the clock,
not by instructions): --idle-spin-us defaults to 0 here, so that each idle spell costs one
sleep, and the count is the requests' own path. Kernel work is not counted (see
experiments/tcp_cpu_per_request.py for system calls and CPU time per request).

    experiments/tcp_instructions_per_request.py --build /tmp/base-build --build build --repeat 2
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
APP = "kvcache-clock.so"
# Counted: everything the one thread's dispatch loop runs (inclusive), not the set-up before
# it or the statistics written after it.
LOOP = "quanta::CentralDispatcher::run(*"


def usage_error(message):
    print(f"tcp_instructions_per_request.py: {message}", file=sys.stderr)
    sys.exit(2)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port, proc, seconds=120):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"quanta serve exited early ({proc.returncode})")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("quanta serve did not listen in time")


def stripped_copy(build, into):
    """The build's quanta and app, without debug information, under `into`."""
    (into / "bin").mkdir(parents=True)
    (into / "apps").mkdir()
    quanta, app = into / "bin" / "quanta", into / "apps" / APP
    subprocess.run(["objcopy", "--strip-debug", str(build / "bin" / "quanta"), str(quanta)], check=True)
    subprocess.run(["objcopy", "--strip-debug", str(build / "lib" / "quanta" / "apps" / APP), str(app)], check=True)
    return quanta, app


def self_costs(cg_file):
    """function -> self instructions, from callgrind_annotate."""
    out = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100", str(cg_file)],
                         capture_output=True, text=True, check=True).stdout
    costs, total = {}, None
    for line in out.splitlines():
        m = re.match(r"^\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(.*)$", line)
        if not m:
            continue
        value, name = int(m.group(1).replace(",", "")), m.group(2).strip()
        if name.startswith("PROGRAM TOTALS"):
            total = value
            continue
        # "file:function [object]": keep the function and its object.
        name = re.sub(r"^.*?:(?=[^:/]*(?:\(|\s\[|$))", "", name, count=1) if ":" in name.split(" [")[0] else name
        costs[name] = costs.get(name, 0) + value
    return total, costs


def run_one(args, build, load_bin, load_app, work):
    quanta, app = stripped_copy(build, work)
    port = free_port()
    cg = work / "callgrind.out"
    serve = subprocess.Popen(
        ["valgrind", "--tool=callgrind", "--collect-atstart=no", f"--toggle-collect={LOOP}",
         f"--callgrind-out-file={cg}", str(quanta), "serve",
         "--app", str(app), "--app-config", f"keys={args.keys},value_bytes=64", "--listen", f"tcp://127.0.0.1:{port}",
         "--dispatcher-only", "--idle", "block", "--idle-spin-us", str(args.idle_spin_us), "--format", "json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_listening(port, serve)
        load = subprocess.run(
            [str(load_bin), "load", "--app", str(load_app), "--app-config", f"keys={args.keys},get=1",
             "--target", f"tcp://127.0.0.1:{port}", "--rate-rps", str(args.rate_rps), "--duration-s",
             str(args.duration_s), "--connections", "4", "--timeout-ms", "5000", "--format", "json", "--no-progress"],
            capture_output=True, text=True)
        if load.returncode != 0:
            raise RuntimeError(f"quanta load failed: {load.stderr.strip()}")
        serve.send_signal(signal.SIGINT)
        out, _ = serve.communicate(timeout=300)
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.wait()
    report = json.loads(out[out.index("{"):])
    requests = report["network"]["tcp"]["requests"]
    total, costs = self_costs(cg)
    client = json.loads(load.stdout)["client"]
    return {"build": str(build), "requests": requests, "answered": client["answered"],
            "instructions": total, "instructions_per_request": total / requests if requests else None,
            "functions_per_request": {k: v / requests for k, v in sorted(costs.items(), key=lambda kv: -kv[1])}}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", type=pathlib.Path, action="append", help="a build directory (repeatable; default build/)")
    ap.add_argument("--rate-rps", type=int, default=1000)
    ap.add_argument("--duration-s", type=float, default=3.0)
    ap.add_argument("--keys", type=int, default=10000)
    ap.add_argument("--idle-spin-us", type=float, default=0.0)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--top", type=int, default=25, help="functions shown per build")
    ap.add_argument("--out", type=pathlib.Path, help="also write the JSON here")
    args = ap.parse_args()
    builds = args.build or [ROOT / "build"]
    if args.rate_rps <= 0:
        usage_error(f"--rate-rps must be > 0, got {args.rate_rps}")
    if args.duration_s <= 0:
        usage_error(f"--duration-s must be > 0, got {args.duration_s}")
    if args.repeat < 1:
        usage_error(f"--repeat must be >= 1, got {args.repeat}")
    if args.idle_spin_us < 0:
        usage_error(f"--idle-spin-us must be >= 0, got {args.idle_spin_us}")
    for b in builds:
        for f in (b / "bin" / "quanta", b / "lib" / "quanta" / "apps" / APP):
            if not f.exists():
                usage_error(f"--build {b}: {f} is missing")
    for tool in ("valgrind", "callgrind_annotate", "objcopy"):
        if shutil.which(tool) is None:
            sys.exit(f"tcp_instructions_per_request.py: {tool} is not installed")
    load_bin = builds[0] / "bin" / "quanta"
    load_app = builds[0] / "lib" / "quanta" / "apps" / "kvcache-plain.so"
    runs = []
    for turn in range(args.repeat):
        for b in builds:
            with tempfile.TemporaryDirectory(prefix="quanta-cg-") as tmp:
                r = run_one(args, b.resolve(), load_bin, load_app, pathlib.Path(tmp))
            r["turn"] = turn
            runs.append(r)
            print(f"{b}: turn {turn}: {r['requests']} requests, {r['instructions_per_request']:.0f} instructions each",
                  file=sys.stderr)
    for r in runs:
        print(f"== {r['build']} (turn {r['turn']}): {r['instructions_per_request']:.0f} user instructions per request"
              f" ({r['requests']} requests)")
        for name, v in list(r["functions_per_request"].items())[:args.top]:
            print(f"{v:9.1f}  {name}")
    result = {"config": {"rate_rps": args.rate_rps, "duration_s": args.duration_s, "keys": args.keys,
                         "idle_spin_us": args.idle_spin_us, "app": APP, "connections": 4}, "runs": runs}
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
