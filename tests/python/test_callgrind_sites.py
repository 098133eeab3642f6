"""bench/callgrind_sites.py: callgrind's function names decide where a position-independent
binary's code ran, and a real profile of a small PIE program names the function that
reads the clock."""
import importlib.util
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "bench", "callgrind_sites.py")

spec = importlib.util.spec_from_file_location("callgrind_sites", SCRIPT)
callgrind_sites = importlib.util.module_from_spec(spec)
spec.loader.exec_module(callgrind_sites)

# A profile in callgrind's format: names compressed after their first use, positions
# relative after the first. The clock read of `reader` ran 10 times at 0x108000 + 0x1010;
# at 0x1010 itself ran a hotter instruction of `other`.
PROFILE = """events: Ir
ob=(1) /x/prog
fn=(1) other
0x1010 1 5000
+1 1 5000
fn=(2) reader
0x109010 1 10
fn=(1)
0x1020 1 7
"""


def test_the_load_base_is_where_callgrind_names_the_same_functions(tmp_path):
    profile = tmp_path / "cg.out"
    profile.write_text(PROFILE)
    counts, fn_at = callgrind_sites.self_counts(str(profile))
    assert counts[0x1010] == 5000 and counts[0x1011] == 5000 and counts[0x1020] == 7
    assert fn_at[0x109010] == "reader" and fn_at[0x1020] == "other"
    sites = [(0x1010, "reader", "rdtsc")]
    # Executions alone would take base 0 (5000 there against 10).
    assert callgrind_sites.load_base(sites, counts, fn_at) == 0x108000


@pytest.mark.skipif(shutil.which("valgrind") is None or shutil.which("clang-19") is None,
                    reason="needs valgrind and clang-19")
def test_a_pie_program_s_clock_reads_are_found_in_their_function(tmp_path):
    src = tmp_path / "t.c"
    src.write_text("""
#include <stdio.h>
#include <x86intrin.h>
__attribute__((noinline)) unsigned long long hot_reader(int n) {
  unsigned long long s = 0;
  for (int i = 0; i < n; ++i) s += __rdtsc() & 1;
  return s;
}
int main(void) { printf("%llu\\n", hot_reader(1000)); return 0; }
""")
    prog = tmp_path / "t"
    subprocess.run(["clang-19", "-O1", "-fPIE", "-pie", "-o", str(prog), str(src)], check=True)
    profile = tmp_path / "cg.out"
    subprocess.run(["valgrind", "--tool=callgrind", "--dump-instr=yes", f"--callgrind-out-file={profile}", str(prog)],
                   check=True, capture_output=True)
    out = subprocess.run([sys.executable, SCRIPT, str(prog), str(profile), "rdtsc"], check=True,
                         capture_output=True, text=True).stdout
    lines = out.splitlines()
    assert int(lines[0].split()[0]) >= 1000  # the loop's reads (valgrind may add a few)
    assert lines[1].split() == [lines[0].split()[0], "hot_reader"]
