"""quanta as an installed library: `cmake --install` into a temporary prefix, then the
three ways a user builds against it (the wrappers, the CMake package, pkg-config), each
from a fresh directory that knows only the prefix."""
import functools
import json
import os
import shutil
import subprocess
import textwrap

import pytest

from conftest import BUILD_DIR, ROOT

TIMEOUT_S = 300

# A loop the pass must probe: a serial dependence, no vectorization, ~n iterations.
MIX_C = """\
#include <stdint.h>
uint64_t mix_sum(uint64_t n) {
  uint64_t s = 0;
  for (uint64_t i = 0; i < n; i++) s = s * 31 + (i ^ (s >> 7));
  return s;
}
"""

# Runs mix_sum(N) preemptibly with quanta/fn.h, quantum by quantum (20000 cycles: N
# iterations take hundreds of them), and prints the result and the number of yields.
N = 2000000
FN_MAIN_C = """\
#include <stdint.h>
#include <stdio.h>
#include "quanta/fn.h"
uint64_t mix_sum(uint64_t n);
static uint64_t result;
static void body(void* arg) { result = mix_sum(*(const uint64_t*)arg); }
int main(void) {
  uint64_t n = @N@;
  const uint64_t quantum_cycles = 20000;
  quanta_fn* f = quanta_fn_launch(body, &n, quantum_cycles, 0);
  if (f == NULL) return 1;
  while (!quanta_fn_completed(f)) quanta_fn_resume(f, quantum_cycles);
  printf("%llu %llu\\n", (unsigned long long)result, (unsigned long long)quanta_fn_yields(f));
  quanta_fn_destroy(f);
  return 0;
}
""".replace("@N@", str(N))


@functools.cache
def mix_sum(n):
    s = 0
    for i in range(n):
        s = (s * 31 + (i ^ (s >> 7))) & (2**64 - 1)
    return s


def run(cmd, **kwargs):
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=TIMEOUT_S, **kwargs)
    assert proc.returncode == 0, f"{' '.join(map(str, cmd))} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    return proc


def tool(name):
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} not found: run scripts/setup.sh")
    return path


def plain_cc():
    """A C compiler that knows nothing of quanta: cc if the machine has one, else clang-19."""
    return shutil.which("cc") or tool("clang-19")


@pytest.fixture(scope="session")
def build_dir():
    if not (BUILD_DIR / "CMakeCache.txt").exists():
        pytest.fail(f"{BUILD_DIR} is not a configured build: build first (scripts/build.sh)")
    return BUILD_DIR


@pytest.fixture(scope="session")
def prefix(build_dir, tmp_path_factory):
    p = tmp_path_factory.mktemp("prefix")
    run(["cmake", "--install", build_dir, "--prefix", p])
    return p


def test_install_puts_every_file_in_place(prefix):
    headers = sorted(h.name for h in (ROOT / "include" / "quanta").glob("*.h"))
    assert {"quanta.h", "probe.h", "fn.h"} <= set(headers)
    for header in headers:
        assert (prefix / "include" / "quanta" / header).is_file(), header
    lib = prefix / "lib"
    for name in ["libquanta.a", "libquanta.so.0.1.0", "libquanta-pass.so",
                 "cmake/quanta/quantaConfig.cmake", "cmake/quanta/quantaConfigVersion.cmake",
                 "cmake/quanta/quantaTargets.cmake", "cmake/quanta/quantaInstrument.cmake",
                 "pkgconfig/quanta.pc"]:
        assert (lib / name).is_file(), name
    assert os.readlink(lib / "libquanta.so") == "libquanta.so.0"
    assert os.readlink(lib / "libquanta.so.0") == "libquanta.so.0.1.0"
    soname = run(["readelf", "-d", lib / "libquanta.so"]).stdout
    assert "Library soname: [libquanta.so.0]" in soname
    for program in ["quanta", "quanta-clang", "quanta-clang++"]:
        assert os.access(prefix / "bin" / program, os.X_OK), program
    assert run([prefix / "bin" / "quanta", "--help"]).stdout


def test_installed_wrappers_use_the_prefix(prefix, build_dir, tmp_path):
    # A symlink elsewhere must still lead the wrapper to its own prefix.
    link = tmp_path / "elsewhere" / "qcc"
    link.parent.mkdir()
    link.symlink_to(prefix / "bin" / "quanta-clang")
    (tmp_path / "f.c").write_text("int main(void) { return 0; }\n")
    for wrapper in [prefix / "bin" / "quanta-clang", link]:
        # -### prints the commands without running them: compile and link in one. They
        # name the working directory too: run in tmp_path, not in the build tree.
        out = run([wrapper, "-###", tmp_path / "f.c", "-o", tmp_path / "f"], cwd=tmp_path).stderr
        assert f"-fpass-plugin={prefix}/lib/libquanta-pass.so" in out
        assert f"{prefix}/lib/libquanta.a" in out
        assert str(build_dir) not in out
    out = run([prefix / "bin" / "quanta-clang", "-###", "-shared", "-fPIC", tmp_path / "f.c", "-o",
               tmp_path / "f.so"]).stderr
    assert f'"{prefix}/lib/libquanta.so"' in out and f'"-rpath" "{prefix}/lib"' in out


def test_wrapper_builds_and_runs_a_preemptible_program(prefix, tmp_path):
    (tmp_path / "mix.c").write_text(MIX_C)
    (tmp_path / "main.c").write_text(FN_MAIN_C)
    run([prefix / "bin" / "quanta-clang", "-O2", f"-I{prefix}/include", tmp_path / "main.c", tmp_path / "mix.c",
         "-o", tmp_path / "app"])
    result, yields = run([tmp_path / "app"]).stdout.split()
    assert int(result) == mix_sum(N)
    assert int(yields) > 0  # the probes in mix_sum gave up the CPU at least once


@pytest.fixture
def instrumented_library(prefix, tmp_path):
    """libmix.so built by the installed quanta-clang -shared: it holds probes."""
    (tmp_path / "mix.c").write_text(MIX_C)
    lib = tmp_path / "libmix.so"
    run([prefix / "bin" / "quanta-clang", "-O2", "-fPIC", "-shared", tmp_path / "mix.c", "-o", lib])
    return lib


def test_instrumented_library_has_probes_and_needs_the_shared_runtime(prefix, instrumented_library):
    symbols = run(["nm", "-D", instrumented_library]).stdout
    # The loop's clock probe counts down inline and then calls the runtime, which reads the
    # clock and the deadline and yields.
    assert "U quanta_clock_gap" in symbols
    dynamic = run(["readelf", "-d", instrumented_library]).stdout
    assert "Shared library: [libquanta.so.0]" in dynamic
    assert f"[{prefix}/lib]" in dynamic  # its rpath


def test_plain_program_links_the_instrumented_library(instrumented_library, tmp_path):
    (tmp_path / "main.c").write_text(textwrap.dedent("""\
        #include <stdint.h>
        #include <stdio.h>
        uint64_t mix_sum(uint64_t n);
        int main(void) { printf("%llu\\n", (unsigned long long)mix_sum(100000)); return 0; }
        """))
    run([plain_cc(), tmp_path / "main.c", "-L", tmp_path, "-lmix", f"-Wl,-rpath,{tmp_path}", "-o", tmp_path / "main"])
    assert int(run([tmp_path / "main"]).stdout) == mix_sum(100000)


def test_plain_program_dlopens_the_instrumented_library(instrumented_library, tmp_path):
    # RTLD_NOW: every symbol, the probe ABI's included, must resolve at load time.
    (tmp_path / "load.c").write_text(textwrap.dedent("""\
        #include <dlfcn.h>
        #include <stdint.h>
        #include <stdio.h>
        int main(int argc, char** argv) {
          void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
          if (lib == NULL) { fprintf(stderr, "%s\\n", dlerror()); return 1; }
          uint64_t (*mix_sum)(uint64_t) = (uint64_t (*)(uint64_t))dlsym(lib, "mix_sum");
          if (mix_sum == NULL) { fprintf(stderr, "%s\\n", dlerror()); return 1; }
          printf("%llu\\n", (unsigned long long)mix_sum(100000));
          return 0;
        }
        """))
    run([plain_cc(), tmp_path / "load.c", "-o", tmp_path / "load", "-ldl"])
    assert int(run([tmp_path / "load", instrumented_library]).stdout) == mix_sum(100000)


CMAKE_PROJECT = """\
cmake_minimum_required(VERSION 3.20)
project(uses_quanta C)
find_package(quanta 0.1 REQUIRED)
# The handler is compiled with the pass; main is plain and links the runtime itself.
add_library(mix STATIC mix.c)
quanta_instrument(mix clock)
add_executable(app main.c)
target_link_libraries(app PRIVATE mix quanta::quanta)
"""


def configure(src, build, prefix, compiler):
    return subprocess.run(["cmake", "-S", str(src), "-B", str(build), f"-DCMAKE_PREFIX_PATH={prefix}",
                           f"-DCMAKE_C_COMPILER={compiler}"], capture_output=True, text=True, timeout=TIMEOUT_S)


def test_cmake_package_instruments_and_links(prefix, tmp_path):
    (tmp_path / "CMakeLists.txt").write_text(CMAKE_PROJECT)
    (tmp_path / "mix.c").write_text(MIX_C)
    (tmp_path / "main.c").write_text(FN_MAIN_C)
    proc = configure(tmp_path, tmp_path / "build", prefix, "clang-19")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    build = run(["cmake", "--build", tmp_path / "build", "--verbose"]).stdout
    assert f"-fpass-plugin={prefix}/lib/libquanta-pass.so" in build
    assert "-quanta-mode=clock" in build
    result, yields = run([tmp_path / "build" / "app"]).stdout.split()
    assert int(result) == mix_sum(N)
    assert int(yields) > 0


def test_cmake_package_refuses_another_compiler(prefix, tmp_path):
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("no gcc to try")
    (tmp_path / "CMakeLists.txt").write_text(CMAKE_PROJECT)
    proc = configure(tmp_path, tmp_path / "build", prefix, gcc)
    assert proc.returncode != 0
    message = " ".join((proc.stdout + proc.stderr).split())
    assert "quanta needs clang 19 as the C compiler" in message
    assert "-DCMAKE_C_COMPILER=clang-19" in message


def test_pkg_config_builds_a_preemptible_program(prefix, tmp_path):
    env = dict(os.environ, PKG_CONFIG_PATH=str(prefix / "lib" / "pkgconfig"))

    def pkg_config(*args):
        return run([tool("pkg-config"), *args, "quanta"], env=env).stdout.split()

    assert pkg_config("--modversion") == ["0.1.0"]
    plugin = pkg_config("--variable=pass_plugin")[0]
    assert plugin == f"{prefix}/lib/libquanta-pass.so"
    assert pkg_config("--variable=cc") == [f"{prefix}/bin/quanta-clang"]
    assert pkg_config("--variable=cxx") == [f"{prefix}/bin/quanta-clang++"]
    libdir = pkg_config("--variable=libdir")[0]
    (tmp_path / "mix.c").write_text(MIX_C)
    (tmp_path / "main.c").write_text(FN_MAIN_C)
    # -lquanta finds libquanta.so; the rpath lets the program find it at run time.
    run([tool("clang-19"), "-O2", f"-fpass-plugin={plugin}", *pkg_config("--cflags"),
         tmp_path / "main.c", tmp_path / "mix.c", "-o", tmp_path / "app",
         *pkg_config("--libs"), f"-Wl,-rpath,{libdir}"])
    assert "libquanta.so.0" in run(["readelf", "-d", tmp_path / "app"]).stdout
    result, yields = run([tmp_path / "app"]).stdout.split()
    assert int(result) == mix_sum(N)
    assert int(yields) > 0


# The README's "Your own service", start to finish from the prefix: the example app built
# out of tree with the CMake package and with pkg-config, each build run by the installed
# `quanta run --app`. Short runs at a low rate: counts only, never timings.
EXAMPLE = ROOT / "apps" / "examples" / "hashscan"


def run_example(prefix, app):
    out = run([prefix / "bin" / "quanta", "run", "--app", app, "--app-config", "keys=20000,scan=20000",
               "--rate-rps", "2000", "--duration-s", "0.5", "--warmup-frac", "0", "--format", "json"]).stdout
    return json.loads(out)


def check_example_run(report):
    requests = report["requests"]
    assert requests["generated"] == requests["completed"] + requests["dropped"]
    assert requests["generated"] > 500
    classes = report["classes"]
    assert set(classes) == {"get", "scan"}
    assert report["config"]["app"] == "hashscan"
    # No nominal service times: slowdown divides by each request's measured CPU time.
    assert classes["get"]["slowdown_basis"] == "measured_cpu"
    assert report["runtime"]["app_errors"] == 0
    # A 20000-key scan runs for far more than one 2 us quantum: its probes end quanta. At
    # 0.5% of ~1000 requests a few scans run at the least; if the draw had none, the
    # count would say so (it is printed in the message).
    if classes["scan"]["count"] > 0:
        assert classes["scan"]["preemptions_per_request"] > 1, classes["scan"]


def test_example_app_with_the_cmake_package(prefix, tmp_path):
    src = tmp_path / "hashscan"
    shutil.copytree(EXAMPLE, src)
    proc = configure(src, tmp_path / "build", prefix, "clang-19")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    run(["cmake", "--build", tmp_path / "build"])
    app = tmp_path / "build" / "libhashscan.so"
    probes = run([prefix / "bin" / "quanta", "probes", app]).stdout
    assert "clock" in probes and "hashscan.c" in probes
    check_example_run(run_example(prefix, app))


@pytest.fixture(scope="session")
def made_example(prefix, tmp_path_factory):
    """The example built out of tree with its Makefile, through pkg-config."""
    src = tmp_path_factory.mktemp("example") / "hashscan"
    shutil.copytree(EXAMPLE, src)
    env = dict(os.environ, PKG_CONFIG_PATH=str(prefix / "lib" / "pkgconfig"))
    run(["make", "-C", src], env=env)
    return src / "libhashscan.so"


def test_example_app_with_pkg_config(prefix, made_example):
    app = made_example
    # The wrapper linked the shared runtime; inside quanta the probes bind to the command's.
    assert "libquanta.so.0" in run(["readelf", "-d", app]).stdout
    report = run_example(prefix, app)
    check_example_run(report)
    # --load with an app that declares no service times: quanta measured the mean first.
    out = run([prefix / "bin" / "quanta", "run", "--app", app, "--load", "0.3", "--duration-s", "0.3",
               "--format", "json"]).stdout
    config = json.loads(out)["config"]
    assert config["mean_service_source"] == "measured"
    assert config["mean_service_us"] > 0


def test_example_app_config_reaches_its_setup(prefix, made_example):
    proc = subprocess.run([prefix / "bin" / "quanta", "run", "--app", made_example, "--app-config",
                           "keys=lots", "--rate-rps", "1000", "--duration-s", "0.1"],
                          capture_output=True, text=True, timeout=TIMEOUT_S)
    assert proc.returncode != 0
    assert "keys=lots" in proc.stderr and "failed its setup" in proc.stderr
    proc = subprocess.run([prefix / "bin" / "quanta", "run", "--app", made_example, "--workload", "exp1",
                           "--rate-rps", "1000", "--duration-s", "0.1"], capture_output=True, text=True,
                          timeout=TIMEOUT_S)
    assert proc.returncode == 2 and "declares its own request classes" in proc.stderr


def test_example_app_under_the_kernel_threads_and_max_load(prefix, made_example):
    app = made_example
    quanta = prefix / "bin" / "quanta"
    # The kernel-thread baseline serves the same app, from the same generator.
    report = json.loads(run([quanta, "run", "--app", app, "--runtime", "linux", "--rate-rps", "2000",
                             "--duration-s", "0.3", "--format", "json"]).stdout)
    assert report["config"]["runtime"] == "linux" and report["config"]["app"] == "hashscan"
    requests = report["requests"]
    assert requests["generated"] == requests["completed"] + requests["dropped"] > 300
    # --max-load bisects over loads of an app with no declared service times: the mean
    # is measured once, then every point is a real run. An objective every run meets, so
    # the search's path does not depend on how busy the machine is.
    search = json.loads(run([quanta, "run", "--app", app, "--max-load", "get:p50-slowdown<=1e12",
                             "--max-load-steps", "2", "--duration-s", "0.2", "--format", "json"]).stdout)
    assert len(search["points"]) == 2
    assert search["run"]["config"]["mean_service_source"] == "measured"
    assert search["max_load"] > 0


# A C program embeds the runtime through the installed libquanta.so: start, submit from
# its own thread, stop, poll. Built by a plain cc with -pedantic, so the public headers
# are C as well as C++.
EMBED_C = r"""
#include <stdio.h>
#include <string.h>
#include <quanta/runtime.h>

static void upper(const quanta_request* request, quanta_response* response) {
  const char* in = request->payload;
  for (uint32_t i = 0; i < request->payload_len; ++i) {
    char c = in[i];
    if (c >= 'a' && c <= 'z') c = (char)(c - 32);
    if (quanta_response_append(response, &c, 1) != 0) response->status = 1;
  }
}

static const quanta_app kApp = {.abi_version = QUANTA_APP_ABI_VERSION, .name = "upper", .handle_request = upper};

int main(void) {
  quanta_runtime_options o;
  quanta_runtime_options_init(&o);
  o.max_in_flight = 16;
  quanta_runtime* rt;
  if (quanta_runtime_start(&o, &kApp, "", &rt) != QUANTA_OK) {
    fprintf(stderr, "start: %s\n", quanta_last_error());
    return 1;
  }
  const char* words[] = {"alpha", "beta", "gamma"};
  for (int i = 0; i < 3; ++i) {
    if (quanta_runtime_submit(rt, words[i], (uint32_t)strlen(words[i]), 0, (uint64_t)i) != QUANTA_OK) return 2;
  }
  if (quanta_runtime_submit(rt, words[0], 100000, 0, 9) != QUANTA_ERR_TOO_BIG) return 3;
  quanta_run_stats stats;
  if (quanta_runtime_stop(rt, &stats) != QUANTA_OK) return 4;
  quanta_completion done[8];
  int n = quanta_runtime_poll(rt, done, 8);
  for (int i = 0; i < n; ++i) {
    printf("%llu %.*s\n", (unsigned long long)done[i].cookie, (int)done[i].response_len,
           (const char*)done[i].response);
  }
  printf("completed %llu\n", (unsigned long long)stats.completed);
  quanta_runtime_destroy(rt);
  return 0;
}
"""


def test_plain_c_program_embeds_the_runtime(prefix, tmp_path):
    (tmp_path / "main.c").write_text(EMBED_C)
    run([plain_cc(), "-std=c11", "-Wall", "-Wextra", "-pedantic", "-Werror", "-O2", tmp_path / "main.c",
         f"-I{prefix}/include", f"-L{prefix}/lib", "-lquanta", f"-Wl,-rpath,{prefix}/lib", "-o", tmp_path / "app"])
    lines = sorted(run([tmp_path / "app"]).stdout.splitlines())
    assert lines == ["0 ALPHA", "1 BETA", "2 GAMMA", "completed 3"]
