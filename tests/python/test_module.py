"""The Python module against the command line: the same record for the same samples and
seed (bytes, numpy arrays without a copy, paths), assess_many in order, errors as
ea_iid.Error with the CLI's errorKind, Ctrl-C (a signal) cancelling a run in the permutation
tests and in the non-IID estimates, and no growth of resident memory over repeated calls.

Run by ctest (python/module) with EA_IID_BUILD (the build folder) and EA_IID_SAMPLES set.
"""
import json
import os
import resource
import signal
import subprocess
import threading
import time

import numpy as np
import pytest

import ea_iid

BUILD = os.environ["EA_IID_BUILD"]
SAMPLES = os.environ["EA_IID_SAMPLES"]
EXE = os.path.join(BUILD, "ea_iid")

# Fields that differ between two runs of the same assessment (when, how, where, how long).
VOLATILE = {"dateTimeStamp", "commandline", "timings", "workerThreads", "threads", "device", "deviceProfile"}


def stable(x):
    if isinstance(x, dict):
        return {k: stable(v) for k, v in x.items() if k not in VOLATILE}
    if isinstance(x, list):
        return [stable(v) for v in x]
    return x


def cli(path, *args):
    out = subprocess.run([EXE, "-q", "-o", "-", *args, path], capture_output=True, text=True)
    assert out.returncode in (0, 5), out.stderr
    return json.loads(out.stdout)


CASES = [
    ("rand8_short.bin", dict(iterations=200)),
    ("rand8_short.bin", dict(iterations=200, shuffle="fisher-yates")),
    ("rand4_short.bin", dict(iterations=200)),
    ("rand1_short.bin", dict(iterations=200)),
    ("GetTickCount_4bit.bin", dict(track="iid", until_decided=True)),
    ("truerand_1bit.bin", dict(track="non-iid")),
]


def cli_args(opts):
    args = ["--seed", "7", "--device", "cpu"]
    for k, v in opts.items():
        if k == "iterations":
            args += ["--iterations", str(v)]
        elif k == "track":
            args += ["--track", v]
        elif k == "until_decided":
            args += ["--until-decided"]
        elif k == "shuffle":
            args += ["--shuffle", v]
    return args


@pytest.mark.parametrize("name,opts", CASES)
def test_same_record_as_the_command_line(name, opts):
    path = os.path.join(SAMPLES, name)
    expected = stable(cli(path, *cli_args(opts)))
    data = np.fromfile(path, dtype=np.uint8)
    for samples in (data, data.tobytes(), path):
        named = {} if samples is path else {"label": path}  # a path is its own name
        got = ea_iid.assess(samples, seed=7, device="cpu", **named, **opts)
        assert stable(got) == expected
    if "permutation" in expected:
        assert expected["permutation"]["shuffleChoice"] == opts.get("shuffle", "bucket")


def test_numpy_slices_and_bits():
    data = np.fromfile(os.path.join(SAMPLES, "rand8_short.bin"), dtype=np.uint8)
    got = ea_iid.assess(data[:5000], seed=1, device="cpu", iterations=100, bits=8)
    assert got["input"]["samples"] == 5000
    assert got["input"]["bitsPerSymbol"] == 8
    with pytest.raises(TypeError):
        ea_iid.assess(data[::2], seed=1)  # not contiguous
    with pytest.raises(TypeError, match="unknown keyword 'iteration'; did you mean 'iterations'"):
        ea_iid.assess(data, iteration=100)


def test_errors_carry_the_error_kind():
    with pytest.raises(ea_iid.Error) as e:
        ea_iid.assess(bytes(1000), seed=1, device="cpu")
    assert e.value.error_kind == "degenerate"
    with pytest.raises(ea_iid.Error) as e:
        ea_iid.assess("/nonexistent/file.bin")
    assert e.value.error_kind == "input"
    with pytest.raises(ea_iid.Error) as e:
        ea_iid.assess(b"\x00\x01" * 100, prng="nope")
    assert e.value.error_kind == "usage"


def test_assess_many_in_order_with_errors_as_records():
    files = [os.path.join(SAMPLES, n) for n in ("rand8_short.bin", "rand4_short.bin")]
    items = files + [bytes(500), np.fromfile(files[0], dtype=np.uint8)]
    rows = list(ea_iid.assess_many(items, jobs=2, seed=3, device="cpu", iterations=100))
    assert len(rows) == 4
    assert rows[0]["filename"] == files[0] and rows[1]["filename"] == files[1]
    assert rows[2]["errorKind"] == "degenerate"
    assert stable(rows[3])["testCases"] == stable(rows[0])["testCases"]


def test_list_prngs_and_version():
    names = [p["name"] for p in ea_iid.list_prngs()]
    assert names[0] == "philox" and "xoshiro256ss" in names
    assert ea_iid.version().startswith("0.")


def cpu_seconds():
    """This process's CPU time (every thread, the module's too): work done, whatever the load."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


class SigintWhenBusy:
    """Sends SIGINT to this process once it has worked `work` more seconds of CPU (the call
    under way is then inside its computation); never after the with block. .after is the
    CPU time worked from the signal to the block's end."""

    def __init__(self, work):
        self.work = work
        self.sent = None
        self.after = None
        self.stop = threading.Event()

    def __enter__(self):
        start = cpu_seconds()

        def watch():
            while not self.stop.is_set():
                if cpu_seconds() - start >= self.work:
                    self.sent = cpu_seconds()
                    os.kill(os.getpid(), signal.SIGINT)
                    return
                time.sleep(0.01)

        self.thread = threading.Thread(target=watch, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()
        if self.sent is not None:
            self.after = cpu_seconds() - self.sent
        return False


# Cancelled, not finished: the work done after the signal (the module's 100 ms look at
# signals, the engine's 250 ms one, the step in progress: 0.25-0.55 s measured) is less than
# the 1.5 s of CPU done before it, where the call left alone does minutes (permutations) or
# seconds (the estimates: 5.2 s in all on truerand_8bit) more. CPU time, not wall time: a
# loaded machine slows both alike.
def test_a_signal_cancels_the_permutation_tests():
    data = np.fromfile(os.path.join(SAMPLES, "GetTickCount_4bit.bin"), dtype=np.uint8)
    with pytest.raises(KeyboardInterrupt), SigintWhenBusy(1.5) as signal_at:
        ea_iid.assess(data, seed=1, device="cpu", track="iid", threads=1)  # minutes of CPU when not cancelled
    assert signal_at.after < 1.5
    # The next call runs normally.
    assert ea_iid.assess(data[:20000], seed=1, device="cpu", iterations=50, track="iid")["input"]["samples"] == 20000


def test_a_signal_cancels_the_non_iid_estimates():
    data = np.fromfile(os.path.join(SAMPLES, "truerand_8bit.bin"), dtype=np.uint8)
    with pytest.raises(KeyboardInterrupt), SigintWhenBusy(1.5) as signal_at:
        ea_iid.assess(data, device="cpu", track="non-iid", threads=1)  # seconds more when not cancelled
    assert signal_at.after < 1.5
    got = ea_iid.assess(data[:20000], device="cpu", track="non-iid", threads=1)
    assert got["input"]["samples"] == 20000 and got["nonIid"] is not None


def rss_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def test_repeated_calls_do_not_grow_memory():
    data = np.fromfile(os.path.join(SAMPLES, "truerand_8bit.bin"), dtype=np.uint8)[:20000]
    ea_iid.assess(data, seed=1, device="cpu", iterations=20, track="iid")
    first = rss_kb()
    for k in range(200):
        ea_iid.assess(data, seed=k, device="cpu", iterations=20, track="iid")
    grown = rss_kb() - first
    print(f"resident memory after 200 more calls: {grown:+d} kB")
    assert grown < 8 * 1024


def test_restart_as_the_command_line():
    path = os.path.join(os.environ["EA_IID_SAMPLES"], "..", "restart", "restart_carryover_8bit.bin")
    expected = stable(cli(path, "--restart", "7.5", "--bits", "8"))
    data = np.fromfile(path, dtype=np.uint8)
    got = ea_iid.restart(data, 7.5, bits=8, label=path)
    assert got["type"] == "Restart"
    assert stable(got) == expected


def test_an_iterator_dropped_early_cancels_its_batch():
    data = np.fromfile(os.path.join(SAMPLES, "GetTickCount_4bit.bin"), dtype=np.uint8)
    small = np.fromfile(os.path.join(SAMPLES, "rand8_short.bin"), dtype=np.uint8)
    it = ea_iid.assess_many([small, data, data], seed=1, device="cpu", track="iid", threads=1)
    first = next(it)
    assert first["input"]["samples"] == small.size
    start = cpu_seconds()
    del it  # the two long items (minutes of CPU each) are cancelled
    assert ea_iid.assess(small, seed=1, device="cpu", iterations=50)["input"]["samples"] == small.size
    assert cpu_seconds() - start < 2.0  # (CPU time: the next call waited for the batch to end)


def test_cancel_from_another_thread_stops_the_call_in_progress():
    """ea_iid.cancel() from another thread: the call raises ea_iid.Error ("interrupted") instead
    of running its 10,000 permutations on the CPU (about 30 s on a 2-core machine); cancel()
    is repeated until the call ends, as a call that has not begun is not affected."""
    path = os.path.join(os.environ["EA_IID_SAMPLES"], "GetTickCount_8bit.bin")
    outcome = {}

    def run():
        try:
            outcome["result"] = ea_iid.assess(path, track="iid", device="cpu", seed=1)
        except ea_iid.Error as e:
            outcome["error"] = e

    t = threading.Thread(target=run)
    t.start()
    while t.is_alive():
        ea_iid.cancel()
        t.join(0.05)
    assert "result" not in outcome
    assert outcome["error"].error_kind == "interrupted"
    ea_iid.cancel()  # nothing in progress: no effect
    short = os.path.join(os.environ["EA_IID_SAMPLES"], "rand8_short.bin")
    assert ea_iid.assess(short, track="non-iid", device="cpu")["type"] == "Non-IID"  # the next call runs normally
