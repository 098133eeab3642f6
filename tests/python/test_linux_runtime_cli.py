"""`quanta run --runtime linux`, the kernel-thread baseline, as a user meets it: the same
JSON schema as the quanta runtime plus what says how it ran, and usage errors (exit 2)
that name the option."""
import pytest

from test_cli import check_summary


def test_linux_runtime_json_has_the_schema(run_json):
    out = run_json("run", "--runtime", "linux", "--workload", "extreme-bimodal", "--load", "0.3",
                   "--duration-s", "0.3", "--seed", "3")
    assert out["mode"] == "run"
    config = out["config"]
    for key in ["workload", "load", "rate_rps", "workers", "local", "dispatch", "preempt", "duration_s", "seed"]:
        assert key in config, key
    assert config["runtime"] == "linux"
    assert config["linux_policy"] == "other"
    assert config["threads_per_core"] == 4
    assert config["preempt"] == "kernel"
    assert set(out["classes"]) == {"0.5", "500"} or len(out["classes"]) == 2
    for entry in out["classes"].values():
        check_summary(entry)
    check_summary(out["overall"])
    requests = out["requests"]
    assert requests["generated"] > 0
    assert requests["completed"] == requests["generated"]
    assert requests["dropped"] == 0
    kernel = out["runtime"]["kernel"]
    assert kernel["threads"] == 4 * config["workers"]
    for key in ["involuntary_switches", "voluntary_switches", "handler_off_cpu_gaps", "handler_off_cpu_ms"]:
        assert kernel[key] >= 0, key


def test_quanta_runtime_says_which_runtime_ran(run_json):
    out = run_json("run", "--duration-s", "0.2")
    assert out["config"]["runtime"] == "quanta"


@pytest.mark.parametrize(
    "args, named",
    [
        (["--runtime", "linux", "--linux-policy", "cfs"], "--linux-policy"),
        (["--runtime", "bsd"], "--runtime"),
        (["--runtime", "linux", "--threads-per-core", "0"], "--threads-per-core"),
        (["--linux-policy", "rr"], "--linux-policy"),  # without --runtime linux
        (["--runtime", "linux", "--local", "fcfs"], "--local"),
        (["--runtime", "linux", "--dispatch", "random"], "--dispatch"),
        (["--runtime", "linux", "--preempt", "none"], "--preempt"),
        (["--runtime", "linux", "--quantum-us", "5"], "--quantum-us"),
        (["--runtime", "linux", "--deadline-runtime-us", "100"], "--deadline-runtime-us"),  # not deadline
        (["--runtime", "linux", "--linux-policy", "deadline", "--deadline-runtime-us", "2000",
          "--deadline-period-us", "1000"], "--deadline-runtime-us"),
    ],
)
def test_bad_linux_options_exit_2_naming_the_option(run_quanta, args, named):
    proc = run_quanta("run", *args)
    assert proc.returncode == 2, proc.stderr
    assert named in proc.stderr
    assert proc.stdout == ""


def test_text_output_names_the_kernel_runtime(run_quanta):
    proc = run_quanta("run", "--runtime", "linux", "--duration-s", "0.2", check=True)
    assert "sched-other/shared-queue/kernel" in proc.stdout


def test_max_load_searches_the_kernel_thread_baseline(run_json):
    # The same bisection as for quanta's runtime; the answer depends on the machine, the
    # shape of the search does not: one point per step, each run on kernel threads.
    out = run_json("run", "--runtime", "linux", "--workload", "exp1", "--max-load", "all:p50-slowdown<=1000",
                   "--max-load-steps", "2", "--duration-s", "0.2", "--seed", "3")
    assert out["config"]["runtime"] == "linux"
    assert len(out["points"]) == 2
    assert 0.0 <= out["max_load"] < 1.0
    # The best run, if any load met the objective (a busy machine may leave none).
    assert out["run"] is None or out["run"]["config"]["runtime"] == "linux"
    assert (out["run"] is None) == (out["max_load"] == 0.0)


def test_idle_block_lets_the_dispatcher_sleep_between_arrivals(run_json):
    # 1 us requests at load 0.001, a millisecond apart: the dispatcher sleeps until the next
    # arrival is near (the pool threads always sleep in the kernel) and misses none.
    out = run_json("run", "--runtime", "linux", "--idle", "block", "--workload", "fixed1", "--load", "0.001",
                   "--duration-s", "0.3")
    assert out["config"]["idle"] == "block"
    assert out["requests"]["generated"] == out["requests"]["completed"] > 100
    assert out["runtime"]["idle_sleeps"]["dispatcher"] > 0
    spun = run_json("run", "--runtime", "linux", "--workload", "fixed1", "--load", "0.001", "--duration-s", "0.1")
    assert spun["runtime"]["idle_sleeps"]["dispatcher"] == 0
