import json
import os
import subprocess
from pathlib import Path

import pytest

# Shared checks get pytest's detailed assertion messages too.
pytest.register_assert_rewrite("memcached_checks")

from udp_responder import UdpResponder  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
# The build under test: tests/CMakeLists.txt names it; run by hand, build/.
BUILD_DIR = Path(os.environ.get("QUANTA_BUILD_DIR", ROOT / "build"))


@pytest.fixture(scope="session")
def quanta_bin():
    path = Path(os.environ.get("QUANTA_BIN", ROOT / "build" / "bin" / "quanta"))
    if not path.exists():
        pytest.fail(f"{path} does not exist: build first (scripts/build.sh)")
    return str(path)


@pytest.fixture(scope="session")
def run_quanta(quanta_bin):
    def run(*args, check=False):
        proc = subprocess.run([quanta_bin, *args], capture_output=True, text=True, timeout=300)
        if check and proc.returncode != 0:
            raise AssertionError(f"quanta {' '.join(args)} exited {proc.returncode}: {proc.stderr}")
        return proc

    return run


@pytest.fixture(scope="session")
def run_json(run_quanta):
    def run(*args):
        proc = run_quanta(*args, "--format", "json", check=True)
        return json.loads(proc.stdout)

    return run


@pytest.fixture
def responder():
    """Makes UDP responders for a test (udp_responder.py) and closes them after it."""
    made = []

    def make(**kwargs):
        r = UdpResponder(**kwargs)
        made.append(r)
        return r

    yield make
    for r in made:
        r.close()
