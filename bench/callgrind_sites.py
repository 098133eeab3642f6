#!/usr/bin/env python3
"""How often the instructions matching a pattern ran, by function, from a callgrind profile.

Finds where a program's probes run: the clock reads (`rdtsc`) or flag loads (`%fs:`) of a
build made by scripts/realbench/build.sh. Make the profile with per-instruction counts, on a
binary without debug information (valgrind 3.19 gives up on some of clang 19's DWARF 5):

    objcopy --strip-debug third_party_src/realbench/out/sqlite3-clock sq
    valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file=cg.out ./sq :memory: < bench.sql
    bench/callgrind_sites.py sq cg.out rdtsc

Prints the total and the functions with the most executions (--top N, default 20), and with
--sites the busiest single instructions. The input files of docs/pass-results.md are those
bench/real_programs.py writes for --quick (make_inputs()).
"""
import argparse
import collections
import re
import subprocess
import sys

POSITION = re.compile(r"^(0x[0-9a-f]+|[+-]\d+|\*)$")


def self_counts(path):
    """Self cost of every instruction address in a callgrind file made with --dump-instr=yes,
    and the function callgrind names at each address."""
    counts = collections.Counter()
    fn_at = {}
    names = {}
    addr, skip, fn = 0, False, None
    with open(path) as f:
        for line in f:
            if line.startswith("fn="):
                # "fn=(7) name" the first time, "fn=(7)" after: callgrind's name compression.
                m = re.match(r"fn=(?:\((\d+)\))?\s*(.*)", line.rstrip("\n"))
                if m.group(1) and m.group(2):
                    names[m.group(1)] = m.group(2)
                fn = names.get(m.group(1), m.group(2)) if m.group(1) else m.group(2)
                continue
            if line.startswith("calls="):
                skip = True  # the next cost line is the call's inclusive cost
                continue
            t = line.split()
            if len(t) < 3 or not POSITION.match(t[0]):
                continue
            tok = t[0]
            addr = int(tok, 16) if tok.startswith("0x") else addr + int(tok) if tok[0] in "+-" else addr
            if skip:
                skip = False
                continue
            counts[addr] += int(t[2])
            fn_at[addr] = fn
    return counts, fn_at


def load_base(sites, counts, fn_at):
    """Where callgrind saw the binary's code: a position-independent binary runs at its load
    base (0x108000 under valgrind here), a fixed one at 0. The base is the one under which
    callgrind names the same functions as objdump at the matching instructions; executions
    alone can mislead (another base may land on a hotter instruction of some other code)."""
    def agreement(base):
        return sum(1 for addr, fn, _ in sites if fn_at.get(base + addr) == fn)
    return max((0, 0x108000, 0x400000),
               key=lambda b: (agreement(b), sum(counts.get(b + s[0], 0) for s in sites)))


def matching_instructions(binary, pattern):
    """(address, function, text) of every instruction whose text matches `pattern`."""
    out = subprocess.run(["objdump", "-d", "-C", "--no-show-raw-insn", binary], check=True,
                         stdout=subprocess.PIPE).stdout.decode()
    found, fn = [], None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.*)>:", line)
        if m:
            fn = m.group(1)
            continue
        m = re.match(r"\s*([0-9a-f]+):\s+(.*)", line)
        if m and pattern.search(m.group(2)):
            found.append((int(m.group(1), 16), fn, m.group(2).strip()))
    return found


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary", help="the binary callgrind ran")
    ap.add_argument("profile", help="callgrind's output, made with --dump-instr=yes")
    ap.add_argument("pattern", help="a regular expression over objdump's instruction text, e.g. rdtsc")
    ap.add_argument("--top", type=int, default=20, help="functions to list (default 20)")
    ap.add_argument("--sites", type=int, default=0, help="also list this many busiest instructions")
    a = ap.parse_args(argv)
    if a.top < 1 or a.sites < 0:
        ap.error("--top must be at least 1 and --sites at least 0")
    try:
        pattern = re.compile(a.pattern)
    except re.error as e:
        ap.error(f"pattern '{a.pattern}': {e}")
    try:
        counts, fn_at = self_counts(a.profile)
        sites = matching_instructions(a.binary, pattern)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"callgrind_sites.py: {e}", file=sys.stderr)
        return 1
    if not counts:
        print(f"callgrind_sites.py: {a.profile} has no per-instruction counts (--dump-instr=yes)", file=sys.stderr)
        return 1
    base = load_base(sites, counts, fn_at)
    by_fn = collections.Counter()
    ran = []
    for addr, fn, text in sites:
        c = counts.get(base + addr, 0)
        by_fn[fn] += c
        ran.append((c, addr, fn, text))
    print(f"{sum(by_fn.values())} executions of {len(sites)} instructions matching '{a.pattern}'")
    for fn, c in by_fn.most_common(a.top):
        print(f"{c:12d}  {fn}")
    for c, addr, fn, text in sorted(ran, reverse=True)[:a.sites]:
        print(f"{c:12d}  {addr:#x} in {fn}: {text}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
