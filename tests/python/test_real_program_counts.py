"""experiments/real_program_counts.py: bad arguments and missing builds get exit 2 naming
the option (the measurement itself runs callgrind for minutes: not here)."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "experiments", "real_program_counts.py")


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, timeout=60)


def test_an_unknown_program_is_refused_naming_the_option(tmp_path):
    r = run("--bin-dir", str(tmp_path), "--programs", "lua,nosuch")
    assert r.returncode == 2
    assert "--programs" in r.stderr and "nosuch" in r.stderr


def test_a_missing_counting_build_is_named(tmp_path):
    r = run("--bin-dir", str(tmp_path), "--programs", "lua", "--no-callgrind")
    assert r.returncode == 2
    assert "--bin-dir" in r.stderr and "lua-clock-count" in r.stderr


def test_a_missing_plain_build_is_named(tmp_path):
    bins, plain = tmp_path / "bins", tmp_path / "plain"
    bins.mkdir()
    plain.mkdir()
    for mode in ("clock", "clock-count"):
        f = bins / f"zlib-{mode}"
        f.write_text("#!/bin/sh\n")
        f.chmod(0o755)
    r = run("--bin-dir", str(bins), "--plain-dir", str(plain), "--programs", "zlib")
    assert r.returncode == 2
    assert "--plain-dir" in r.stderr and "zlib-none" in r.stderr


def test_the_bin_dir_is_required():
    r = run()
    assert r.returncode == 2
    assert "--bin-dir" in r.stderr
