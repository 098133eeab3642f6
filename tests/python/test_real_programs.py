"""bench/real_programs.py: the real-program benchmark's command line, and one small program
(fairymax, a chess engine's recursive search, one C file) built in every mode and run end
to end with --quick. Checks counts and the output comparison, never a time."""
import json
import os
import shutil
import stat
import subprocess
import sys

import pytest

from conftest import BUILD_DIR, ROOT

SCRIPT = str(ROOT / "bench" / "real_programs.py")


def run(*args, timeout=600):
    return subprocess.run([sys.executable, SCRIPT, "--quanta-build", str(BUILD_DIR), *args],
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("args, message", [
    (["--programs", "zlib,nosuch"], "unknown program 'nosuch'"),
    (["--programs", ""], "--programs: empty list"),
    (["--pairs", "0"], "--pairs: expected a whole number from 1 to 200, got '0'"),
    (["--pairs", "3x"], "--pairs: expected a whole number from 1 to 200, got '3x'"),
    (["--quantum-us", "-2"], "--quantum-us: expected microseconds in [0.1, 1000], got '-2'"),
    (["--no-such-option"], "unrecognized arguments: --no-such-option"),
    (["--rebuild", "--no-build"], "--rebuild and --no-build contradict each other"),
])
def test_bad_arguments_exit_2_naming_the_option(args, message):
    proc = run(*args)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr
    assert proc.stdout == ""


def test_a_missing_quanta_build_or_program_is_named(tmp_path):
    proc = subprocess.run([sys.executable, SCRIPT, "--quanta-build", str(tmp_path / "nowhere")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "--quanta-build: no bin/quanta-clang in" in proc.stderr
    proc = run("--programs", "lua", "--no-build", "--bin-dir", str(tmp_path))
    assert proc.returncode == 2
    assert f"{tmp_path}/lua-none is missing (scripts/realbench/build.sh lua none)" in proc.stderr


@pytest.fixture(scope="module")
def fairymax_builds(tmp_path_factory):
    """fairymax in every build, in a private directory (its Debian source is fetched once
    into third_party_src/, like LevelDB's)."""
    src = ROOT / "third_party_src" / "realbench" / "fairymax" / "src" / "debian" / "control"
    if not src.exists():
        fetch = subprocess.run([str(ROOT / "scripts" / "realbench" / "fetch.sh"), "fairymax"],
                               capture_output=True, text=True, timeout=300)
        if fetch.returncode != 0:
            pytest.skip("cannot fetch Debian's fairymax source: " + fetch.stderr[-300:])
    out = tmp_path_factory.mktemp("realbench")
    for mode in ("none", "clock", "flag", "clock-count"):
        b = subprocess.run([str(ROOT / "scripts" / "realbench" / "build.sh"), "fairymax", mode, str(BUILD_DIR)],
                           capture_output=True, text=True, timeout=300,
                           env=dict(os.environ, QUANTA_REALBENCH_OUT_DIR=str(out)))
        assert b.returncode == 0, b.stderr
    return out


def test_quick_run_of_a_recursive_search_end_to_end(fairymax_builds, tmp_path):
    proc = run("--quick", "--programs", "fairymax", "--no-build", "--bin-dir", str(fairymax_builds))
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    (p,) = report["programs"]
    assert p["program"] == "fairymax"
    assert p["outputs_match_plain"] is True
    clock, flag = p["modes"]["clock"], p["modes"]["flag"]
    # The search function is recursive: clock mode probes it; flag probes every function.
    assert clock["static_probes"] > 0 and flag["static_probes"] > 0
    # The binary's records cover what the wrapper compiled for it (one source file).
    assert clock["static_probes"] == clock["static_probes_compiled"]
    assert clock["executed_probes"] > 1000
    assert len(clock["overhead_pct_per_pair"]) == 3 and len(flag["overhead_pct_per_pair"]) == 3
    t = clock["timing"]
    # A search of tens of milliseconds at a 2 us quantum yields many times.
    assert t["yields"] > 100
    assert t["clean"]["quanta"] + t["os_disturbed"] <= t["yields"]
    assert t["with_faults"]["quanta"] >= t["clean"]["quanta"]
    # The counting build's run in a task: its quanta less the library calls' cycles.
    outside = t["outside_library"]
    assert outside["quanta"] > 100
    assert outside["longest_gap_quanta"] <= outside["longest_gap_quanta_with_library"]
    assert set(report["targets"]) == {"clock_mean_overhead_pct", "clock_max_overhead_pct", "flag_mean_overhead_pct",
                                      "flag_max_overhead_pct", "clock_mean_mae_cycles", "p99_interval_over_quantum",
                                      "longest_gap_quanta", "longest_gap_outside_library_quanta"}
    assert all(v["result"] in ("met", "missed") for v in report["targets"].values())
    # The docs' table is made from such a report.
    saved = tmp_path / "report.json"
    saved.write_text(proc.stdout)
    table = run("--table", str(saved))
    assert table.returncode == 0, table.stderr
    rows = table.stdout.splitlines()
    assert rows[2].startswith(f"| fairymax | {clock['static_probes']} / {flag['static_probes']} |")
    assert rows[3].startswith("| **mean** (max) |")


def test_table_of_something_else_is_refused(tmp_path):
    bad = tmp_path / "not-a-report.json"
    bad.write_text('{"programs": 3}')
    proc = run("--table", str(bad))
    assert proc.returncode == 2
    assert f"--table: cannot read a report from '{bad}'" in proc.stderr


def test_an_instrumented_build_with_other_output_fails_the_run(fairymax_builds, tmp_path):
    # The same builds, but the flag one prints one more line than the plain one.
    for f in fairymax_builds.iterdir():
        if f.is_file() and f.name.startswith("fairymax-"):
            shutil.copy(f, tmp_path / f.name)
    real = tmp_path / "fairymax-flag.real"
    (tmp_path / "fairymax-flag").rename(real)
    wrapper = tmp_path / "fairymax-flag"
    wrapper.write_text(f'#!/bin/sh\n"{real}" "$@"\nrc=$?\necho "one more line"\nexit $rc\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    proc = run("--quick", "--programs", "fairymax", "--no-build", "--bin-dir", str(tmp_path))
    assert proc.returncode == 1, proc.stderr
    report = json.loads(proc.stdout)
    assert report["programs"][0]["outputs_match_plain"] is False
    assert report["summary"]["outputs_match_plain"] is False


@pytest.mark.parametrize("args, message", [
    (["nosuch", "clock"], "build.sh: unknown program 'nosuch'"),
    (["zlib", "turbo"], "build.sh: unknown mode 'turbo' (expected none clock flag clock-count flag-count)"),
])
def test_build_script_names_a_bad_argument(args, message):
    proc = subprocess.run([str(ROOT / "scripts" / "realbench" / "build.sh"), *args, str(BUILD_DIR)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert message in proc.stderr


def test_task_launcher_refuses_a_bad_quantum_and_runs_main_in_a_task(fairymax_builds, tmp_path):
    binary = str(fairymax_builds / "fairymax-clock")
    moves = "xboard\nnew\nsd 3\nst 10000\ngo\nquit\n"
    for bad in ("abc", "0", "2us", ""):
        proc = subprocess.run([binary], input=moves, capture_output=True, text=True, timeout=60,
                              env=dict(os.environ, QUANTA_REALBENCH_QUANTUM_US=bad))
        assert proc.returncode == 2, bad
        assert f"bad QUANTA_REALBENCH_QUANTUM_US '{bad}'" in proc.stderr
    # Without the variable main runs as usual; with it, in a task that yields; the program's
    # output is the same either way.
    report = tmp_path / "r.json"
    plain = subprocess.run([binary], input=moves, capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, QUANTA_REALBENCH_OUT=str(report)))
    assert plain.returncode == 0
    first = json.loads(report.read_text())
    assert first["static_probes"] > 0 and "timing" not in first
    tasked = subprocess.run([binary], input=moves, capture_output=True, text=True, timeout=60,
                            env=dict(os.environ, QUANTA_REALBENCH_OUT=str(report), QUANTA_REALBENCH_QUANTUM_US="1"))
    assert tasked.returncode == 0
    assert [l for l in tasked.stdout.splitlines() if l.startswith("move")] == \
           [l for l in plain.stdout.splitlines() if l.startswith("move")]
    timing = json.loads(report.read_text())["timing"]
    assert timing["yields"] > 0
    assert timing["clean"]["quanta"] <= timing["with_faults"]["quanta"] <= timing["yields"]


def test_counting_build_times_its_library_calls(fairymax_builds, tmp_path):
    # fairymax reads its moves with fgets and prints with printf: the counting build counts
    # cycles in those calls; the clock build, which does not count, reports none.
    moves = "xboard\nnew\nsd 3\nst 10000\ngo\nquit\n"
    reports = {}
    for build in ("clock", "clock-count"):
        report = tmp_path / f"{build}.json"
        proc = subprocess.run([str(fairymax_builds / f"fairymax-{build}")], input=moves, capture_output=True,
                              text=True, timeout=60,
                              env=dict(os.environ, QUANTA_REALBENCH_OUT=str(report), QUANTA_REALBENCH_QUANTUM_US="2"))
        assert proc.returncode == 0, proc.stderr
        reports[build] = json.loads(report.read_text())
    assert "library_cycles" not in reports["clock"]
    assert "max_outside_library_cycles" not in reports["clock"]["timing"]["clean"]
    counted = reports["clock-count"]
    assert counted["library_cycles"] > 0
    clean = counted["timing"]["clean"]
    assert clean["max_outside_library_cycles"] <= clean["max_interval_cycles"]
    assert clean["over_4_quanta_outside_library"] <= clean["over_4_quanta"]


def test_timing_experiment_compares_sets_of_clock_builds(fairymax_builds, tmp_path):
    """experiments/real_program_timing.py on two sets (here the same build twice): each set's
    run in a task yields, and both sets are reported."""
    other = tmp_path / "other"
    other.mkdir()
    (other / "fairymax-clock").symlink_to(fairymax_builds / "fairymax-clock")
    out = tmp_path / "timing.json"
    r = subprocess.run([sys.executable, str(ROOT / "experiments" / "real_program_timing.py"), "--bin-dirs",
                        f"{fairymax_builds},{other}", "--programs", "fairymax", "--runs", "1", "--out", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    rep = json.loads(out.read_text())
    sets = rep["programs"]["fairymax"]
    assert set(sets) == {str(fairymax_builds), str(other)}
    for v in sets.values():
        assert v["quanta"] > 100 and v["mae_cycles"] > 0 and len(v["mae_cycles_of_runs"]) == 1
    assert set(rep["mean_mae_cycles"]) == set(sets)
