"""Latency-critical and best-effort work on one core: LibPreemptible's co-location experiment
(its §IV-C, Figs. 13-14) and Microquanta's comparison with the kernel's classes.

LC = GETs of a hash table (~1 us), BE = zlib compression of a 25 KB block of text (Debian's
zlib built by quanta's wrappers, so deflate carries probes); 98% of requests are GETs, 2%
COMPRESS (apps/colocation, scripts/colocation/build.sh). Open-loop Poisson arrivals at a
constant rate and at a spiky one (the rate times PEAK for the first FOR_S of every second:
the shape of the paper's 40 -> 110 kRPS spikes), one worker, `quanta run` in process.

Per configuration and load: the GETs' p99 sojourn (all requests, and those no host stall
touched), the compressions' p50 sojourn and their throughput (completions per second of the
run, drain included, so a BE class held back shows up), and the CPU share BE got.
Configurations: no preemption (fcfs: the paper's baseline), processor sharing with fixed
quanta 5/10/30/50 us, the adaptive controller (adaptive:5:50), LC before BE with and without
a BE bandwidth (--class-schedule), and the same pair as kernel threads, a pool per class, under
CFS (nice 0 / 19), SCHED_FIFO and SCHED_FIFO + SCHED_DEADLINE (--runtime linux --class-sched).

Writes experiments/results/colocation.{json,csv,md,png}.
  .venv/bin/python experiments/colocation.py [--quick] [--configs a,b] [--rates R1,R2]
"""
import argparse
import csv
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# name -> (app build, quanta run options)
CONFIGS = {
    "fcfs (no preemption)": ("clock", ["--local", "fcfs"]),
    "ps q=5": ("clock", ["--local", "ps", "--quantum-us", "5"]),
    "ps q=10": ("clock", ["--local", "ps", "--quantum-us", "10"]),
    "ps q=30": ("clock", ["--local", "ps", "--quantum-us", "30"]),
    "ps q=50": ("clock", ["--local", "ps", "--quantum-us", "50"]),
    "ps adaptive:5:50": ("clock", ["--local", "ps", "--quantum-us", "adaptive:5:50"]),
    "LC before BE q=5": ("clock", ["--local", "ps", "--quantum-us", "5", "--class-schedule", "lc,be"]),
    "LC + BE 300/1000 q=5": ("clock", ["--local", "ps", "--quantum-us", "5", "--class-schedule", "lc,be:300/1000"]),
    # Kernel threads, a pool per class (--class-sched), two threads each: Microquanta's
    # comparison. SCHED_DEADLINE's reservation is per thread, so 150/1000 on each of two BE
    # threads is the 300/1000 per core the quanta classes above give BE.
    "linux CFS nice 0/19": ("clock", ["--runtime", "linux", "--threads-per-core", "2",
                                      "--class-sched", "other:0,other:19"]),
    "linux FIFO 50/10": ("clock", ["--runtime", "linux", "--threads-per-core", "2", "--class-sched", "fifo:50,fifo:10"]),
    "linux FIFO 50/DEADLINE 150/1000": ("clock", ["--runtime", "linux", "--threads-per-core", "2",
                                                  "--class-sched", "fifo:50,deadline:150/1000"]),
}
DEFAULT_CONFIGS = list(CONFIGS)


def run(cmd, timeout_s):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
    if proc.returncode not in (0, 3):
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout)


def stat(report, cls, key, untouched=False):
    block = report.get("untouched", {}) if untouched else report
    entry = block.get("classes", {}).get(cls)
    if not entry or entry.get("count", 0) == 0:
        return None
    return entry["sojourn_us"][key]


def point(quanta, app, name, options, rate, profile, args):
    cmd = [quanta, "run", "--app", app, "--app-config", f"be_share={args.be_share}", "--rate-rps", str(rate),
           "--rate-profile", profile, "--duration-s", str(args.duration_s), "--seed", str(args.seed),
           "--workers", "1", "--format", "json"] + options
    report = run(cmd, timeout_s=max(120, 30 * args.duration_s))
    be = report["classes"].get("compress", {})
    window_s = report["runtime"]["elapsed_s"] - report["config"]["warmup_frac"] * args.duration_s
    be_cpu_s = be.get("count", 0) * be.get("cpu_us", {}).get("mean", 0) / 1e6
    return {"config": name, "rate_rps": rate, "profile": profile,
            "lc_p99_us": stat(report, "get", "p99"), "lc_p99_untouched_us": stat(report, "get", "p99", True),
            "lc_p50_us": stat(report, "get", "p50"),
            "be_p50_us": stat(report, "compress", "p50"),
            "be_per_s": be.get("count", 0) / window_s if window_s > 0 else None,
            "be_cpu_share": be_cpu_s / window_s if window_s > 0 else None,
            "be_cpu_us_p50": be.get("cpu_us", {}).get("p50"),
            "warnings": len(report.get("warnings", [])), "command": " ".join(map(str, cmd))}


def fmt(v, digits=1):
    return "-" if v is None else f"{v:.{digits}f}"


def markdown(result):
    lines = ["# LC GETs and BE zlib compression on one core", "",
             f"`{result['command']}`", "",
             f"{result['be_share']}% of requests compress a 25 KB block (p50 CPU {fmt(result['be_cpu_us'], 0)} us "
             "at the lowest rate without preemption), the rest are GETs; one worker; "
             f"{result['duration_s']} s a point.", ""]
    for profile in result["profiles"]:
        lines += [f"## rate profile `{profile}`", "",
                  "| config | rate (rps) | LC p99 (us) | LC p99 untouched (us) | BE p50 (us) | BE/s | BE CPU share |",
                  "|---|---|---|---|---|---|---|"]
        for p in result["points"]:
            if p["profile"] != profile:
                continue
            lines.append(f"| {p['config']} | {p['rate_rps']} | {fmt(p['lc_p99_us'])} | {fmt(p['lc_p99_untouched_us'])} | "
                         f"{fmt(p['be_p50_us'], 0)} | {fmt(p['be_per_s'], 0)} | {fmt(p['be_cpu_share'], 2)} |")
        lines.append("")
    return "\n".join(lines)


def plot(result, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    profiles = result["profiles"]
    fig, axes = plt.subplots(2, len(profiles), figsize=(6 * len(profiles), 7), squeeze=False)
    for col, profile in enumerate(profiles):
        for name in result["configs"]:
            pts = [p for p in result["points"] if p["profile"] == profile and p["config"] == name]
            xs = [p["rate_rps"] / 1000 for p in pts]
            axes[0][col].plot(xs, [p["lc_p99_us"] for p in pts], marker="o", label=name)
            axes[1][col].plot(xs, [p["be_per_s"] for p in pts], marker="o", label=name)
        axes[0][col].set_title(f"LC GET p99, {profile}")
        axes[0][col].set_yscale("log")
        axes[0][col].set_ylabel("us")
        axes[1][col].set_title("BE compressions per second")
        axes[1][col].set_xlabel("offered kRPS")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=str(ROOT / "build"))
    ap.add_argument("--configs", default=",".join(DEFAULT_CONFIGS), help="comma list of: " + ", ".join(CONFIGS))
    ap.add_argument("--rates", default="5000,10000,20000", help="offered base rates (rps)")
    ap.add_argument("--profiles", default="constant;bursts:2.75:1:0.25",
                    help="--rate-profile of each series, separated by ';' (a steps spec has commas of its own)")
    ap.add_argument("--be-share", type=float, default=2.0, help="percent of requests that compress")
    ap.add_argument("--duration-s", type=float, default=3.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="one low rate, short runs, three configurations")
    ap.add_argument("--out-dir", default=str(ROOT / "experiments" / "results"))
    ap.add_argument("--replot", metavar="JSON", help="write the table and plot again from a result")
    args = ap.parse_args()
    if args.replot:
        result = json.loads(Path(args.replot).read_text())
        stem = Path(args.replot).with_suffix("")
        Path(f"{stem}.md").write_text(markdown(result))
        plot(result, f"{stem}.png")
        return
    configs = args.configs.split(",")
    for c in configs:
        if c not in CONFIGS:
            ap.error(f"--configs: '{c}' is not one of: {', '.join(CONFIGS)}")
    try:
        rates = [int(r) for r in args.rates.split(",")]
        assert rates and all(r > 0 for r in rates)
    except (ValueError, AssertionError):
        ap.error(f"--rates: '{args.rates}' is not a comma list of positive integers")
    profiles = [p for p in args.profiles.split(";") if p]
    if not profiles:
        ap.error("--profiles: no rate profile given")
    if not 0 <= args.be_share <= 100:
        ap.error("--be-share must be within 0..100")
    if args.duration_s <= 0:
        ap.error("--duration-s must be positive")
    if args.quick:
        configs = [c for c in configs if c in ("fcfs (no preemption)", "ps q=5", "LC before BE q=5")] or configs[:1]
        rates, args.duration_s, profiles = rates[:1], 0.5, profiles[:1]
    quanta = str(Path(args.build) / "bin" / "quanta")
    apps = {m: str(Path(args.build) / "lib" / "quanta" / "apps" / f"colocation-{m}.so") for m in ("clock", "flag", "none")}
    for name in configs:
        if not Path(apps[CONFIGS[name][0]]).exists():
            sys.exit(f"colocation.py: missing {apps[CONFIGS[name][0]]} (run scripts/colocation/build.sh)")
    points = []
    for profile in profiles:
        for rate in rates:
            for name in configs:  # configurations side by side at each point
                build, options = CONFIGS[name]
                p = point(quanta, apps[build], name, options, rate, profile, args)
                print(f"{profile:24} {rate:7} {name:24} LC p99 {fmt(p['lc_p99_us']):>9} us  BE/s {fmt(p['be_per_s'], 0):>6}",
                      flush=True)
                points.append(p)
    base = [p for p in points if p["config"] == "fcfs (no preemption)"]
    result = {"what": "LC GETs and BE zlib compression on one core", "command": " ".join(sys.argv),
              "configs": configs, "profiles": profiles, "rates": rates, "be_share": args.be_share,
              "duration_s": args.duration_s, "be_cpu_us": base[0]["be_cpu_us_p50"] if base else None,
              "points": points}
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / ("colocation_quick" if args.quick else "colocation")
    Path(f"{stem}.json").write_text(json.dumps(result, indent=1) + "\n")
    with open(f"{stem}.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=[k for k in points[0] if k != "command"], extrasaction="ignore")
        w.writeheader()
        w.writerows(points)
    Path(f"{stem}.md").write_text(markdown(result))
    plot(result, f"{stem}.png")
    print(Path(f"{stem}.md").read_text())


if __name__ == "__main__":
    main()
