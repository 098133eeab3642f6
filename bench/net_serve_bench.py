#!/usr/bin/env python3
"""Who should send UDP replies, the worker or the dispatcher: `quanta serve` against
`quanta load` over loopback, per transport and UDP reply mode (issue 19).

For each configuration (udp with --udp-replies worker, udp with --udp-replies dispatcher,
tcp, whose replies the dispatcher always writes) it starts one `quanta serve` with the echo
test app (a no-op handler: what is measured is the network path) and
  (a) searches for the highest rate the server sustains: a run passes when at least 99% of
      the requests sent are answered and none is answered OVERLOADED. The search doubles
      the rate from --start-rps until a run fails, then bisects between the last pass and
      the first failure (--refine-steps times); each step is one `quanta load` run of
      --duration-s seconds;
  (b) runs once at half that rate and records the client's p50 and p99 (µs).
It prints one JSON object (and writes it to --out FILE if given): per configuration the
sustained rate, the half-rate latencies, every step of the search, the server's network
counters (totals over all runs of the configuration), the CPU each process was pinned to
and the command lines.

  bench/net_serve_bench.py [--build-dir build] [--duration-s 2] [--out FILE] [--quick]

CPU layout: the server's dispatcher takes the first CPU this process may use, its worker
the next one; the client (`quanta load --cpu`) goes on the dispatcher's CPU with
--wait block, the layout docs/load.md recommends on a 2-CPU machine (it keeps the worker's
CPU to itself). On such a machine client and server share CPUs, so the figures measure the
sharing too: compare configurations against each other, on a quiet machine, and read the
client's late_sends beside them (docs/network.md).
"""
import argparse
import json
import os
import pathlib
import signal
import subprocess
import sys
import threading

ROOT = pathlib.Path(__file__).resolve().parents[1]
# The share of sent requests that must be answered for a rate to count as sustained.
ANSWERED_FRACTION = 0.99
CONFIGURATIONS = [("udp", "worker"), ("udp", "dispatcher"), ("tcp", None)]


class Server:
    """One `quanta serve` for a configuration; its bound port is read from stderr."""

    def __init__(self, command):
        self.command = command
        self.proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.stderr = []
        self.address = None
        bound = threading.Event()

        def read_stderr():
            for line in self.proc.stderr:
                self.stderr.append(line)
                if "listening on " in line:
                    self.address = line.strip().split("listening on ")[1]
                    bound.set()
            bound.set()

        threading.Thread(target=read_stderr, daemon=True).start()
        if not bound.wait(timeout=60) or self.address is None:
            self.proc.kill()
            raise RuntimeError(f"quanta serve did not start: {''.join(self.stderr)}")

    def stop(self):
        """Stops it gracefully and returns its JSON report."""
        self.proc.send_signal(signal.SIGTERM)
        out, _ = self.proc.communicate(timeout=120)
        if self.proc.returncode != 0:
            raise RuntimeError(f"quanta serve exited {self.proc.returncode}: {''.join(self.stderr)}")
        return json.loads(out)


def load_run(quanta, target, app, rate_rps, duration_s, cpu, max_p99_us):
    """One `quanta load` run; returns (command, summary)."""
    command = [quanta, "load", "--target", target, "--app", app, "--rate-rps", str(round(rate_rps)),
               "--duration-s", str(duration_s), "--format", "json", "--wait", "block", "--cpu", str(cpu),
               "--no-progress"]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=duration_s + 120)
    if proc.returncode not in (0, 3):  # 3: the figures came with warnings (late sends, drops)
        raise RuntimeError(f"{' '.join(command)} exited {proc.returncode}: {proc.stderr}")
    report = json.loads(proc.stdout)
    client = report["client"]
    sojourn = report["overall"]["sojourn_us"]
    summary = {
        "rate_rps": round(rate_rps),
        "sent": client["sent"],
        "answered": client["answered"],
        "dropped": client["dropped"],
        "overloaded": client["overloaded"],
        "late_sends": client["late_sends"],
        "achieved_rps": report["rates"]["achieved_rps"],
        "p50_us": sojourn["p50"],
        "p99_us": sojourn["p99"],
    }
    # Answering everything is not enough: over TCP nothing is dropped, and a server that
    # falls behind only queues (the client's socket buffers, then its send queue), so a
    # rate also passes only while the p99 stays bounded.
    summary["passed"] = (client["sent"] > 0 and client["overloaded"] == 0
                         and client["answered"] >= ANSWERED_FRACTION * client["sent"]
                         and sojourn["p99"] <= max_p99_us)
    return command, summary


def highest_sustained_rate(run, start_rps, max_rps, refine_steps):
    """Doubles from start_rps until a run fails, then bisects between the last pass and
    that failure. Returns (rate, steps): the highest rate that passed (max_rps or below
    when none failed; 0 when even start_rps failed)."""
    steps = []
    passed, failed = 0.0, None
    rate = start_rps
    while rate <= max_rps:
        step = run(rate)
        steps.append(step)
        if not step["passed"]:
            failed = rate
            break
        passed = rate
        rate *= 2
    if failed is not None:
        low, high = passed, failed
        for _ in range(refine_steps):
            mid = (low + high) / 2 if low > 0 else high / 2
            step = run(mid)
            steps.append(step)
            if step["passed"]:
                low = mid
            else:
                high = mid
        passed = low
    return passed, steps


def bench_configuration(args, transport, udp_replies, cpus):
    quanta = str(args.build_dir / "bin" / "quanta")
    app = str(args.build_dir / "tests" / "apps" / "echo.so")
    if args.dispatcher_only:
        # One thread on the CPU the client does not use (docs/load.md's one-thread layout).
        serve_command = ["taskset", "-c", str(cpus["server_dispatcher"]), quanta, "serve", "--dispatcher-only"]
    else:
        serve_command = [quanta, "serve", "--workers", "1"]
    serve_command += ["--app", app, "--preempt", "none", "--format", "json",
                      "--listen", f"{transport}://127.0.0.1:0", "--idle", args.server_idle]
    if transport == "udp":
        serve_command += ["--udp-receive", args.udp_receive]
    else:
        serve_command += ["--tcp-poll", args.tcp_poll]
    if udp_replies is not None:
        serve_command += ["--udp-replies", udp_replies]
    server = Server(serve_command)
    load_commands = []

    def run(rate):
        command, summary = load_run(quanta, server.address, app, rate, args.duration_s, cpus["client"],
                                    args.max_p99_ms * 1000)
        load_commands.append(command)
        return summary

    try:
        sustained, steps = highest_sustained_rate(run, args.start_rps, args.max_rps, args.refine_steps)
        half = run(sustained / 2) if sustained > 0 else None
    except BaseException:
        server.proc.kill()
        raise
    report = server.stop()
    return {
        "transport": transport,
        "udp_replies": udp_replies if udp_replies is not None else "n/a (tcp: the dispatcher writes)",
        "sustained_rps": round(sustained),
        "half_rate": half,
        "search": steps,
        # Totals over every run against this server (the search and the half-rate run).
        "server_network": report["network"][transport],
        "server_config_udp_replies": report["config"].get("udp_replies"),
        "commands": {"serve": serve_command, "load": load_commands},
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", type=pathlib.Path, default=ROOT / "build")
    parser.add_argument("--duration-s", type=float, default=2.0, help="seconds of each load run (default 2)")
    parser.add_argument("--start-rps", type=float, default=10000, help="the search's first rate")
    parser.add_argument("--max-rps", type=float, default=4_000_000, help="the search stops doubling past this")
    parser.add_argument("--refine-steps", type=int, default=5, help="bisection steps after the first failure")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke test: short runs, low rates, one refinement step (figures mean nothing)")
    parser.add_argument("--out", type=pathlib.Path, help="also write the JSON here")
    parser.add_argument("--max-p99-ms", type=float, default=10.0,
                        help="a rate passes only with p99 latency at most this (default 10 ms: above what the "
                             "CPU sharing on a 2-CPU machine costs at low load)")
    parser.add_argument("--udp-receive", choices=["recvmmsg", "io_uring"], default="recvmmsg",
                        help="quanta serve --udp-receive for the UDP configurations")
    parser.add_argument("--tcp-poll", choices=["epoll", "io_uring"], default="epoll",
                        help="quanta serve --tcp-poll for the TCP configuration")
    parser.add_argument("--server-idle", choices=["spin", "yield", "block"], default="spin",
                        help="quanta serve --idle: yield gives the CPU the client shares back when idle, "
                             "block sleeps until a request comes")
    parser.add_argument("--dispatcher-only", action="store_true",
                        help="serve with quanta serve --dispatcher-only (no workers: one thread receives, runs and "
                             "replies) on the last allowed CPU, the client keeping the first")
    args = parser.parse_args()
    if args.quick:
        args.duration_s, args.start_rps, args.max_rps, args.refine_steps = 0.2, 500, 1000, 1
    if (args.duration_s <= 0 or args.start_rps <= 0 or args.max_rps < args.start_rps or args.refine_steps < 0
            or args.max_p99_ms <= 0):
        parser.error("--duration-s, --start-rps and --max-p99-ms must be above 0, --max-rps at least --start-rps, "
                     "--refine-steps at least 0")
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        parser.error("needs at least 2 CPUs: one for the server's dispatcher, one for its worker")
    # As the runtime pins them (src/runtime/runtime.cc): dispatcher on the first allowed
    # CPU, workers on the next; the client shares the dispatcher's (docs/load.md).
    cpus = {"server_dispatcher": allowed[0], "server_workers": [allowed[1]], "client": allowed[0]}
    if args.dispatcher_only:
        cpus = {"server_dispatcher": allowed[-1], "server_workers": [], "client": allowed[0]}

    results = {}
    for transport, udp_replies in CONFIGURATIONS:
        name = transport if udp_replies is None else f"{transport}-{udp_replies}"
        print(f"net_serve_bench: {name}", file=sys.stderr, flush=True)
        results[name] = bench_configuration(args, transport, udp_replies, cpus)
    out = {
        "bench": "net_serve",
        "config": {
            "duration_s": args.duration_s,
            "start_rps": args.start_rps,
            "max_rps": args.max_rps,
            "refine_steps": args.refine_steps,
            "quick": args.quick,
            "answered_fraction": ANSWERED_FRACTION,
            "max_p99_ms": args.max_p99_ms,
            "app": "echo (tests/apps/echo_app.c: no-op handler)",
            "client_wait": "block",
            "server_idle": args.server_idle,
            "dispatcher_only": args.dispatcher_only,
            "udp_receive": args.udp_receive,
            "tcp_poll": args.tcp_poll,
        },
        "cpus": {**cpus, "allowed": allowed,
                 "note": ("the client and the server's one thread each have a CPU" if args.dispatcher_only else
                          "client and server share CPUs: figures include the sharing (docs/load.md)")},
        "configurations": results,
    }
    text = json.dumps(out, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
