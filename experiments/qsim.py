"""Helpers for the experiment scripts: run `quanta sim` (or `quanta run`) and read its JSON,
several points at once, and write CSV files. The binary is $QUANTA_BIN or build/bin/quanta."""
import concurrent.futures
import csv
import json
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "experiments" / "out"
BIN = os.environ.get("QUANTA_BIN", str(ROOT / "build" / "bin" / "quanta"))
PARALLEL = int(os.environ.get("QUANTA_PARALLEL", "2"))


def quanta(command, **options):
    """Runs `quanta COMMAND --key value ...` (key_with_underscores -> --key-with-dashes) and
    returns its JSON."""
    args = [BIN, command, "--format", "json"]
    for key, value in options.items():
        args += ["--" + key.replace("_", "-"), str(value)]
    proc = subprocess.run(args, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} exited {proc.returncode}: {proc.stderr}")
    return json.loads(proc.stdout)


def sim_many(option_sets):
    """Runs `quanta sim` for each dict of options, PARALLEL at a time, results in order."""
    with concurrent.futures.ThreadPoolExecutor(PARALLEL) as pool:
        return list(pool.map(lambda o: quanta("sim", **o), option_sets))


def write_csv(name, rows):
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / name
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {path}")
    return path


def plot_path(name):
    OUT.mkdir(parents=True, exist_ok=True)
    return OUT / name
