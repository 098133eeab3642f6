"""scripts/build.sh on a machine that lacks the compiler: it names what is missing and
points at scripts/setup.sh before CMake runs, so no half-configured build is left."""
import os
import subprocess

from conftest import ROOT


def test_build_without_the_compiler_names_it_and_configures_nothing(tmp_path):
    # A PATH that has only what the script needs before its checks (dirname).
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    os.symlink("/usr/bin/dirname", bin_dir / "dirname")
    before = sorted(p.name for p in ROOT.iterdir())
    proc = subprocess.run(["/bin/bash", str(ROOT / "scripts" / "build.sh"), "--tsan"], capture_output=True,
                          text=True, timeout=60, env={"PATH": str(bin_dir)})
    assert proc.returncode == 2
    assert "scripts/build.sh: clang-19 not found; run scripts/setup.sh first" in proc.stderr
    assert sorted(p.name for p in ROOT.iterdir()) == before  # no build-tsan/ appeared


def test_build_with_a_bad_argument_prints_its_usage():
    proc = subprocess.run(["/bin/bash", str(ROOT / "scripts" / "build.sh"), "--fast"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2
    assert "usage: scripts/build.sh [--sanitize | --tsan]" in proc.stderr
