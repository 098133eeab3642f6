"""experiments/pass_rule_ablation.py: bad arguments get exit 2 naming the option, and the
table is made from a report (the measurement itself builds programs for minutes: not here)."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "experiments", "pass_rule_ablation.py")


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, timeout=60)


def test_an_unknown_program_is_refused_naming_the_option():
    r = run("--programs", "zlib,nosuch")
    assert r.returncode == 2
    assert "--programs" in r.stderr and "nosuch" in r.stderr


def test_leveldb_is_refused_since_its_work_runs_on_threads_of_its_own():
    r = run("--programs", "leveldb")
    assert r.returncode == 2
    assert "leveldb" in r.stderr


def test_an_unknown_rule_is_refused_naming_the_option():
    r = run("--rules", "merge-exit,nosuch")
    assert r.returncode == 2
    assert "--rules" in r.stderr and "nosuch" in r.stderr


def test_a_missing_quanta_build_is_refused(tmp_path):
    r = run("--quanta-build", str(tmp_path))
    assert r.returncode == 2
    assert "--quanta-build" in r.stderr


def test_the_table_has_a_row_per_rule_with_changes_against_the_baseline(tmp_path):
    def prog(ins, reads, ins_pct, reads_pct):
        return {"instructions": ins, "clock_reads": reads, "instruction_overhead_pct": ins_pct,
                "instructions_vs_baseline_pct": ins_pct, "clock_reads_vs_baseline_pct": reads_pct}
    report = {"config": {"programs": ["lua"]},
              "rules_off": {"baseline": {"programs": {"lua": prog(100, 50, 29.4, 0.0)}},
                            "cycle-ticks": {"programs": {"lua": prog(99, 100, -0.5, 99.0)}}}}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report))
    r = run("--table", str(path))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert lines[0] == "| rule switched off | lua |"
    assert lines[2] == "| none (the pass as it is) | +29.4% instr, 50 reads |"
    assert lines[3] == "| cycle-ticks | -0.5% / +99% |"


def test_an_unknown_mode_is_refused_naming_the_option():
    r = run("--mode", "counter")
    assert r.returncode == 2
    assert "--mode" in r.stderr and "counter" in r.stderr


def test_an_instructions_only_table_shows_the_change_against_the_baseline(tmp_path):
    def prog(ins_pct, vs_pct):
        return {"instructions": 1, "clock_reads": 0, "instruction_overhead_pct": ins_pct,
                "instructions_vs_baseline_pct": vs_pct, "clock_reads_vs_baseline_pct": None}
    report = {"config": {"programs": ["lz4"], "instructions_only": True},
              "rules_off": {"baseline": {"programs": {"lz4": prog(5.0, 0.0)}},
                            "slow-path-preserve-most": {"programs": {"lz4": prog(6.25, 1.19)}}}}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(report))
    r = run("--table", str(path))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert lines[2] == "| none (the pass as it is) | +5.00% instr |"
    assert lines[3] == "| slow-path-preserve-most | +6.25% instr (+1.19%) |"
