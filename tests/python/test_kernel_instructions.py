"""bench/kernel_instructions.py: deterministic instruction counts of the kernel builds."""
import json
import subprocess
import sys

from conftest import BUILD_DIR, ROOT

SCRIPT = str(ROOT / "bench" / "kernel_instructions.py")


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, "--kernel-dir", str(BUILD_DIR / "lib" / "quanta-kernels"), *args],
                          capture_output=True, text=True, timeout=600)


def test_counts_are_exact_and_repeatable():
    # pointer_chase is the smallest kernel (about a million instructions per run).
    first = run("--kernels", "pointer_chase", "--modes", "flag")
    assert first.returncode == 0, first.stderr
    again = run("--kernels", "pointer_chase", "--modes", "flag")
    a, b = json.loads(first.stdout), json.loads(again.stdout)
    row = a["kernels"][0]
    assert row["kernel"] == "pointer_chase"
    assert row["plain"]["instructions"] > 100_000
    # The flag build runs the same loop plus its probes: strictly more instructions.
    assert row["flag"]["instructions"] > row["plain"]["instructions"]
    assert row["flag"]["excess_pct"] > 0
    assert a["kernels"] == b["kernels"]
    assert a["summary"]["flag"]["max_excess_pct"] == row["flag"]["excess_pct"]


def test_bad_input_names_what_was_wrong():
    proc = run("--kernels", "no_such_kernel")
    assert proc.returncode != 0
    assert "unknown kernel(s) no_such_kernel" in proc.stderr
    proc = run("--kernels", "lu", "--modes", "turbo")
    assert proc.returncode != 0
    assert "unknown build(s) turbo" in proc.stderr
