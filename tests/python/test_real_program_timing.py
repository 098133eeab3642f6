"""experiments/real_program_timing.py: bad arguments and missing builds get exit 2 naming
the option. Its end-to-end run is in test_real_programs.py (it needs fairymax's builds)."""
import subprocess
import sys

import pytest

from conftest import ROOT

SCRIPT = str(ROOT / "experiments" / "real_program_timing.py")


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("args, message", [
    ([], "--bin-dirs"),
    (["--bin-dirs", "a"], "--bin-dirs: give at least two directories"),
    (["--bin-dirs", "a,b", "--programs", "lua,nosuch"], "--programs: unknown or untimed program 'nosuch'"),
    (["--bin-dirs", "a,b", "--programs", "leveldb"], "--programs: unknown or untimed program 'leveldb'"),
    (["--bin-dirs", "a,b", "--runs", "0"], "--runs: 0 is outside 1..100"),
    (["--bin-dirs", "a,b", "--quantum-us", "-1"], "--quantum-us: -1.0 is outside 0.1..1000"),
])
def test_bad_arguments_exit_2_naming_the_option(args, message):
    r = run(*args)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr


def test_a_missing_clock_build_is_named(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    f = a / "lua-clock"
    f.write_text("#!/bin/sh\n")
    f.chmod(0o755)
    r = run("--bin-dirs", f"{a},{b}", "--programs", "lua")
    assert r.returncode == 2
    assert f"--bin-dirs: {b}/lua-clock is missing" in r.stderr
