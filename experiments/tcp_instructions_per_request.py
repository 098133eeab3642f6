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

With --memcached PATH (Debian's /usr/bin/memcached) each turn also runs real memcached with
one worker thread (`-t 1`) under callgrind (--separate-threads=yes), preloaded with the same
keys and values as kvcache, and driven by the same load: its counters are zeroed after the
preload, and instructions are divided by the GETs it counted (`stats` cmd_get, before and
after). Debian's binary has no symbols, so it is counted per thread, not per function: the
thread that ran the most (the worker) and all threads together (the worker, the listener,
the LRU maintainer and crawler, the clock).
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


def run_load(load_bin, load_app, port, args):
    """The same GETs for either server: `quanta load`, open loop, 4 connections."""
    load = subprocess.run(
        [str(load_bin), "load", "--app", str(load_app), "--app-config", f"keys={args.keys},get=1",
         "--target", f"tcp://127.0.0.1:{port}", "--rate-rps", str(args.rate_rps), "--duration-s",
         str(args.duration_s), "--connections", "4", "--timeout-ms", "5000", "--format", "json", "--no-progress"],
        capture_output=True, text=True)
    if load.returncode != 0:
        raise RuntimeError(f"quanta load failed: {load.stderr.strip()}")
    return load


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
         "--dispatcher-only", "--idle", "block", "--idle-spin-us", str(args.idle_spin_us), "--format", "json",
         *(["--quantum-us", str(args.quantum_us)] if args.quantum_us is not None else [])],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_listening(port, serve)
        load = run_load(load_bin, load_app, port, args)
        serve.send_signal(signal.SIGINT)
        out, _ = serve.communicate(timeout=300)
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.wait()
    report = json.loads(out[out.index("{"):])
    requests = report["network"]["tcp"]["requests"]
    quanta = report["runtime"]["quanta"]
    total, costs = self_costs(cg)
    client = json.loads(load.stdout)["client"]
    return {"build": str(build), "requests": requests, "answered": client["answered"],
            "instructions": total, "instructions_per_request": total / requests if requests else None,
            # Under valgrind a request runs ~50 times slower against a real-time clock, so the
            # probes end its quantum far more often than natively: each extra quantum is a
            # switch out and back counted in the instructions.
            "quanta_per_request": quanta / requests if requests else None,
            "functions_per_request": {k: v / requests for k, v in sorted(costs.items(), key=lambda kv: -kv[1])}}


def memcached_stat(port, name):
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(b"stats\r\n")
        got = b""
        while not got.endswith(b"END\r\n"):
            chunk = s.recv(65536)
            if not chunk:
                raise RuntimeError("memcached closed the stats connection")
            got += chunk
    for line in got.decode().splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == name:
            return int(parts[2])
    raise RuntimeError(f"memcached's stats have no {name}")


def thread_totals(prefix):
    """callgrind's per-thread files (prefix-01, -02 ...): instructions of each."""
    totals = []
    for f in sorted(prefix.parent.glob(prefix.name + "-*")):
        out = subprocess.run(["callgrind_annotate", "--threshold=100", str(f)], capture_output=True, text=True,
                             check=True).stdout
        m = re.search(r"^\s*([\d,]+)\s+(?:\([^)]*\)\s+)?PROGRAM TOTALS", out, re.M)
        totals.append(int(m.group(1).replace(",", "")) if m else 0)
    return totals


def run_memcached(args, load_bin, load_app, work):
    sys.path.insert(0, str(ROOT / "experiments"))
    from memcached_vs_kvcache import preload_memcached  # the same keys and values as kvcache's
    port = free_port()
    prefix = work / "callgrind.mc"
    # memcached sets its descriptor limit, soft and hard, to its connection limit (-c), and
    # valgrind refuses any hard limit but its own (the real one less the descriptors it
    # keeps): ask valgrind what that is, and let memcached take exactly it.
    probe = subprocess.run(["valgrind", "--tool=none", "-q", "/bin/sh", "-c", "ulimit -Hn"], capture_output=True,
                           text=True, check=True)
    cmd = ["valgrind", "--tool=callgrind", "--separate-threads=yes", f"--callgrind-out-file={prefix}",
           str(args.memcached), "-t", "1", "-l", "127.0.0.1", "-p", str(port), "-U", "0", "-m", "256",
           "-c", probe.stdout.strip()]
    if os.geteuid() == 0:
        cmd += ["-u", "root"]  # memcached will not run as root without saying so
    mc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_listening(port, mc)
        preload_memcached(port, args.keys, 64)
        subprocess.run(["callgrind_control", "--zero", str(mc.pid)], check=True, capture_output=True, timeout=120)
        gets_before = memcached_stat(port, "cmd_get")
        load = run_load(load_bin, load_app, port, args)
        requests = memcached_stat(port, "cmd_get") - gets_before
        mc.send_signal(signal.SIGTERM)
        mc.communicate(timeout=300)
    finally:
        if mc.poll() is None:
            mc.kill()
            mc.wait()
    threads = thread_totals(prefix)
    client = json.loads(load.stdout)["client"]
    # The two stats commands are counted too (a few thousand instructions in all).
    return {"build": "memcached", "requests": requests, "answered": client["answered"],
            "instructions": sum(threads), "instructions_per_request": sum(threads) / requests if requests else None,
            "worker_thread_instructions_per_request": max(threads) / requests if requests else None,
            "thread_instructions": threads, "functions_per_request": {}}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", type=pathlib.Path, action="append", help="a build directory (repeatable; default build/)")
    ap.add_argument("--rate-rps", type=int, default=1000)
    ap.add_argument("--duration-s", type=float, default=3.0)
    ap.add_argument("--keys", type=int, default=10000)
    ap.add_argument("--idle-spin-us", type=float, default=0.0)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--quantum-us", type=float, help="the server's --quantum-us (default: its own default)")
    ap.add_argument("--top", type=int, default=25, help="functions shown per build")
    ap.add_argument("--out", type=pathlib.Path, help="also write the JSON here")
    ap.add_argument("--memcached", type=pathlib.Path, help="also count this memcached binary (one worker thread)")
    args = ap.parse_args()
    builds = args.build or [ROOT / "build"]
    if args.rate_rps <= 0:
        usage_error(f"--rate-rps must be > 0, got {args.rate_rps}")
    if args.duration_s <= 0:
        usage_error(f"--duration-s must be > 0, got {args.duration_s}")
    if args.repeat < 1:
        usage_error(f"--repeat must be >= 1, got {args.repeat}")
    if args.quantum_us is not None and args.quantum_us <= 0:
        usage_error(f"--quantum-us must be > 0, got {args.quantum_us}")
    if args.idle_spin_us < 0:
        usage_error(f"--idle-spin-us must be >= 0, got {args.idle_spin_us}")
    if args.memcached is not None and not os.access(args.memcached, os.X_OK):
        usage_error(f"--memcached {args.memcached}: not an executable file")
    for b in builds:
        for f in (b / "bin" / "quanta", b / "lib" / "quanta" / "apps" / APP):
            if not f.exists():
                usage_error(f"--build {b}: {f} is missing")
    for tool in ("valgrind", "callgrind_annotate", "callgrind_control", "objcopy"):
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
            print(f"{b}: turn {turn}: {r['requests']} requests, {r['instructions_per_request']:.0f} instructions each,"
                  f" {r['quanta_per_request']:.2f} quanta each", file=sys.stderr)
        if args.memcached is not None:
            with tempfile.TemporaryDirectory(prefix="quanta-cg-mc-") as tmp:
                r = run_memcached(args, load_bin, load_app, pathlib.Path(tmp))
            r["turn"] = turn
            runs.append(r)
            print(f"memcached: turn {turn}: {r['requests']} GETs, {r['instructions_per_request']:.0f} instructions each"
                  f" ({r['worker_thread_instructions_per_request']:.0f} on its worker thread)", file=sys.stderr)
    for r in runs:
        print(f"== {r['build']} (turn {r['turn']}): {r['instructions_per_request']:.0f} user instructions per request"
              f" ({r['requests']} requests)")
        for name, v in list(r["functions_per_request"].items())[:args.top]:
            print(f"{v:9.1f}  {name}")
    result = {"config": {"rate_rps": args.rate_rps, "duration_s": args.duration_s, "keys": args.keys,
                         "idle_spin_us": args.idle_spin_us, "quantum_us": args.quantum_us, "app": APP, "connections": 4,
                         "memcached": str(args.memcached) if args.memcached else None}, "runs": runs}
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
