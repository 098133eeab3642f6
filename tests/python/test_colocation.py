"""The co-location app (apps/colocation): LC GETs and BE zlib compression, with Debian's zlib
built by quanta's wrappers. Run by scripts/colocation/test.sh after scripts/colocation/build.sh
(ctest's python.cli leaves this file out: the app is built after zlib is fetched). Counts only."""
import json
import subprocess

import pytest

from conftest import BUILD_DIR


def app(mode):
    path = BUILD_DIR / "lib" / "quanta" / "apps" / f"colocation-{mode}.so"
    if not path.exists():
        pytest.fail(f"{path} does not exist: run scripts/colocation/build.sh")
    return str(path)


def run(quanta_bin, *args):
    proc = subprocess.run([quanta_bin, "run", "--format", "json", *args], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("mode", ["clock", "flag", "none"])
def test_both_classes_are_served_without_errors(quanta_bin, mode):
    preempt = {"clock": "clock", "flag": "flag", "none": "none"}[mode]
    report = run(quanta_bin, "--app", app(mode), "--app-config", "be_share=20,keys=1000,blocks=4",
                 "--rate-rps", "400", "--duration-s", "0.5", "--preempt", preempt, "--warmup-frac", "0")
    assert report["runtime"]["app_errors"] == 0
    assert report["requests"]["completed"] == report["requests"]["generated"]
    get, compress = report["classes"]["get"], report["classes"]["compress"]
    # 200 requests drawn 80/20: binomial sd is about 6, so these bounds cannot fail by chance.
    assert get["count"] + compress["count"] == report["requests"]["measured"]
    assert 10 <= compress["count"] <= 75


def test_compression_is_preempted_inside_zlib(quanta_bin):
    # deflate's loops carry probes: a 25 KB compression (about 2 ms) cannot finish in one
    # 5 us quantum, so each one is preempted, and the GETs are not.
    report = run(quanta_bin, "--app", app("clock"), "--app-config", "be_share=20,keys=1000,blocks=4",
                 "--rate-rps", "400", "--duration-s", "0.5", "--quantum-us", "5")
    assert report["classes"]["compress"]["preemptions_per_request"] > 10
    assert report["classes"]["get"]["preemptions_per_request"] < 1


@pytest.mark.parametrize("setting", ["level=12", "be_share=101", "blocks=0", "keys=x", "colour=blue"])
def test_a_bad_setting_is_refused_naming_it(quanta_bin, setting):
    proc = subprocess.run([quanta_bin, "run", "--app", app("clock"), "--app-config", setting, "--rate-rps", "100",
                           "--duration-s", "0.1"], capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert f"bad configuration '{setting}'" in proc.stderr
