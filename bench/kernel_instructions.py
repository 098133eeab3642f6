#!/usr/bin/env python3
"""Instructions each kernel build executes in kernel_run, counted by callgrind.

Timing on a shared VM moves by several percent from one process to the next; an
instruction count does not move at all. It is not the overhead (a probe's load and branch
can hide behind a loop's latency chain, or not), but it shows exactly what a placement
change adds or removes, on every kernel, in one run. Counts cover the warm-up run and one
timed run (`--runs 1`) of kernel_run and everything it calls (the same memset in every build
of a kernel, say), not the harness or the kernel's setup.

Prints JSON: per kernel, per build, the count and its excess over the plain build.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

KERNELS = ["matmul", "lu", "cholesky", "fft", "radix_sort", "kmeans", "pca", "histogram",
           "string_match", "word_count", "linear_regression", "hash_lookup", "pointer_chase", "nbody"]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    p.add_argument("--kernel-dir", default=os.path.join(here, "..", "build", "lib", "quanta-kernels"),
                   help="directory holding <kernel>-<build> binaries (default: build/lib/quanta-kernels)")
    p.add_argument("--kernels", default=",".join(KERNELS), help="comma-separated kernel names (default: all 14)")
    p.add_argument("--modes", default="flag,clock",
                   help="comma-separated builds to compare with plain (default: flag,clock)")
    return p.parse_args()


def kernel_run_instructions(binary, scratch):
    """Callgrind's instruction count of kernel_run, callees included."""
    # valgrind 3.19 cannot read clang 19's DWARF 5: count on a copy without debug info.
    stripped = os.path.join(scratch, os.path.basename(binary))
    subprocess.run(["objcopy", "--strip-debug", binary, stripped], check=True)
    out = os.path.join(scratch, "callgrind.out")
    subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
                    "--compress-strings=no", stripped, "--runs", "1", "--no-pin"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # Cost lines follow `fn=kernel_run` until the next fn= line: its own instructions, and
    # after each `calls=` line the inclusive cost of that call.
    total, in_fn = 0, False
    with open(out) as f:
        for line in f:
            if line.startswith("fn="):
                in_fn = line.strip() == "fn=kernel_run"
                continue
            m = re.match(r"^[+\-*0-9]\S*\s+(\d+)", line) if in_fn else None
            if m:
                total += int(m.group(1))
    if total == 0:
        raise RuntimeError(f"no instructions attributed to kernel_run in {binary}")
    return total


def main():
    args = parse_args()
    for tool in ("valgrind", "objcopy"):
        if not shutil.which(tool):
            sys.exit(f"kernel_instructions: '{tool}' not found (scripts/setup.sh installs it)")
    kernels = [k for k in args.kernels.split(",") if k]
    unknown = [k for k in kernels if k not in KERNELS]
    if unknown:
        sys.exit(f"kernel_instructions: unknown kernel(s) {', '.join(unknown)}; known: {', '.join(KERNELS)}")
    modes = [m for m in args.modes.split(",") if m]
    bad = [m for m in modes if m not in ("flag", "clock", "counter")]
    if bad:
        sys.exit(f"kernel_instructions: unknown build(s) {', '.join(bad)}; use flag, clock or counter")
    result = {"kernels": [], "summary": {}}
    with tempfile.TemporaryDirectory() as scratch:
        for k in kernels:
            row = {"kernel": k}
            for build in ["plain"] + modes:
                binary = os.path.join(args.kernel_dir, f"{k}-{build}")
                if not os.path.exists(binary):
                    sys.exit(f"kernel_instructions: no binary {binary} (build the project first)")
                row[build] = {"instructions": kernel_run_instructions(binary, scratch)}
            for m in modes:
                row[m]["excess_pct"] = 100.0 * (row[m]["instructions"] / row["plain"]["instructions"] - 1)
            result["kernels"].append(row)
    for m in modes:
        excess = [r[m]["excess_pct"] for r in result["kernels"]]
        result["summary"][m] = {"mean_excess_pct": sum(excess) / len(excess), "max_excess_pct": max(excess)}
    json.dump(result, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
