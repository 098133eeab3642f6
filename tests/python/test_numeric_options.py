"""Every numeric option of `quanta run`, `sim`, `serve` and `load`, as `--help` lists them (a
new option is covered without a change here), given each value that breaks naive parsing:
NaN, infinities, 0, -1, 1e300, 1e-300 and 2^64. Each must either be accepted, and then a short
run exits 0, or be refused with exit 2 and a message naming the option; never another exit
status, a signal, a hang, or the 309 digits of a double's bounds in the message."""
import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT
from udp_responder import UdpResponder

VALUES = ["nan", "inf", "-inf", "0", "-1", "1e300", "1e-300", "18446744073709551616"]
COMMANDS = ["run", "sim", "serve", "load"]
# A short run of each command; an option under test replaces a base option it conflicts with.
BASE = {
    "run": ["--duration-s", "0.05", "--workload", "fixed:50", "--load", "0.2"],
    "sim": ["--jobs", "2000", "--workload", "fixed:50", "--load", "0.2"],
    "serve": ["--duration-s", "0.2"],
    "load": ["--duration-s", "0.1", "--workload", "fixed:1000", "--load", "0.5", "--timeout-ms", "100",
             "--no-progress"],
}
# Options the one given replaces in the base (they exclude each other, or the base option
# would make the value under test mean nothing).
REPLACES = {
    "--rate-rps": ["--load"],
    "--jobs": ["--duration-s"],
    "--duration-s": ["--jobs"],
}
# Time for one command: a short run takes well under a second; a value taken as a huge
# duration or rate would run for ever.
TIMEOUT_S = 60


def quanta_bin():
    return os.environ.get("QUANTA_BIN", str(ROOT / "build" / "bin" / "quanta"))


def numeric_options(command):
    """The options `quanta COMMAND --help` lists with a number type (FLOAT, INT, UINT), and
    --quantum-us, which takes a number or an adaptive:MIN:MAX spec (Q|adaptive:MIN:MAX)."""
    help_text = subprocess.run([quanta_bin(), command, "--help"], capture_output=True, text=True, timeout=60).stdout
    return re.findall(r"^\s+(--[a-z0-9-]+) (?:FLOAT|UINT|INT|TEXT:Q\|adaptive:MIN:MAX)\b", help_text, re.MULTILINE)


def pytest_generate_tests(metafunc):
    if "numeric_option" in metafunc.fixturenames:
        cases = []
        for command in COMMANDS:
            options = numeric_options(command) if Path(quanta_bin()).exists() else []
            cases += [(command, option) for option in options]
        metafunc.parametrize("command, numeric_option", cases, ids=[f"{c}{o}" for c, o in cases])


def test_help_lists_numeric_options():
    # The enumeration itself must find options, or every case below would vanish unseen.
    assert "--quantum-us" in numeric_options("run")
    assert "--jobs" in numeric_options("sim")
    assert "--max-in-flight" in numeric_options("serve")
    assert "--timeout-ms" in numeric_options("load")


@pytest.fixture(scope="module")
def load_target():
    responder = UdpResponder()
    yield f"udp://127.0.0.1:{responder.port}"
    responder.close()


def base_args(command, option):
    args = list(BASE[command])
    for replaced in REPLACES.get(option, []) + [option]:
        if replaced in args:
            i = args.index(replaced)
            del args[i:i + 2]
    return args


def test_numeric_option_is_accepted_or_refused_by_name(command, numeric_option, load_target):
    failures = []
    for value in VALUES:
        args = [quanta_bin(), command, *base_args(command, numeric_option), f"{numeric_option}={value}"]
        if command == "load":
            args += ["--target", load_target]
        try:
            proc = subprocess.run(args, capture_output=True, text=True, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            failures.append(f"{value}: still running after {TIMEOUT_S} s")
            continue
        said = proc.stderr + proc.stdout
        if proc.returncode == 2:
            if numeric_option not in proc.stderr:
                failures.append(f"{value}: exit 2 without naming {numeric_option}: {proc.stderr.strip()}")
        elif proc.returncode != 0:
            failures.append(f"{value}: exit {proc.returncode}: {proc.stderr.strip()[-400:]}")
        if re.search(r"\d{25,}", said):
            failures.append(f"{value}: a number of 25 digits or more in the output: {proc.stderr.strip()[-400:]}")
    assert not failures, f"quanta {command} {numeric_option}:\n" + "\n".join(failures)
