"""ea_iid.health_tests: the command line's `health-tests` (SP 800-90B 4.4's cutoffs, both
tests over files, the Monte Carlo check) through the C++ API, under the same rules: the
same numbers as `ea_iid health-tests ... -o`, and its refusals with the keywords' names.
"""
import json
import os
import subprocess

import pytest

import ea_iid

EXE = os.path.join(os.environ["EA_IID_BUILD"], "ea_iid")


def cli(tmp_path, *args):
    out = tmp_path / "cli.json"
    subprocess.run([EXE, "health-tests", *args, "-q", "-o", str(out)], check=False, capture_output=True)
    return json.loads(out.read_text())


def test_cutoffs_are_the_command_lines(tmp_path):
    d = ea_iid.health_tests(1)
    assert d["type"] == "HealthTests"
    assert (d["rct"]["cutoff"], d["apt"]["window"], d["apt"]["cutoff"]) == (21, 512, 311)  # SP 800-90B Table 2
    c = cli(tmp_path, "2.5", "--alpha", "2^-30", "--bits", "4")
    p = ea_iid.health_tests(2.5, alpha="2^-30", bits=4)
    assert p["rct"] == c["rct"] and p["apt"] == c["apt"]
    assert p["commandline"] != c["commandline"]


def test_a_file_with_a_stuck_run(tmp_path):
    path = tmp_path / "stuck.bin"
    path.write_bytes((bytes(range(42)) + b"\xff" * 22) * 20)
    d = ea_iid.health_tests(1, [path], bits=8)
    assert d["failed"] is True
    f = d["files"][0]
    assert (f["samples"], f["rct"]["failures"], f["rct"]["firstFailure"], f["rct"]["longestRun"]) == (1280, 20, 62, 22)
    assert f["apt"]["failures"] == 0
    assert ea_iid.health_tests(1, str(path), bits=8, threads=2)["files"] == d["files"]  # one path; threads with files
    assert cli(tmp_path, "1", "--bits", "8", str(path))["files"] == d["files"]


def test_the_monte_carlo_check_is_seeded(tmp_path):
    d = ea_iid.health_tests(1, bits=1, alpha="2^-8", simulate=3e5, seed=5, threads=2, device="cpu")
    s = d["simulation"]
    assert (s["samples"], s["seed"], s["device"]) == (300032, "5", "cpu")
    assert s["rct"]["within"] and s["apt"]["within"]
    c = cli(tmp_path, "1", "--bits", "1", "--alpha", "2^-8", "--simulate", "300000", "--seed", "5", "--device", "cpu")
    assert c["simulation"]["rct"] == s["rct"] and c["simulation"]["apt"] == s["apt"]


@pytest.mark.parametrize("call, words", [
    (lambda: ea_iid.health_tests(1, seed=5), "seed applies to simulate, which is not given"),
    (lambda: ea_iid.health_tests(1, device="cpu"), "device applies to simulate, which is not given"),
    (lambda: ea_iid.health_tests(1, threads=2), "threads applies to simulate and to files, neither of which is given"),
    (lambda: ea_iid.health_tests(1, select_bits="0x0f"), "select_bits applies to the samples of files, none of which is given"),
    (lambda: ea_iid.health_tests(9), "H must be a number greater than 0 and at most 8"),
    (lambda: ea_iid.health_tests(2, bits=1), "at most 1 bits per sample (bits=1)"),
    (lambda: ea_iid.health_tests(1, alpha="2^-0.5"), "alpha"),
    (lambda: ea_iid.health_tests(1, simulate=3.5), "simulate: 3.5 is not a whole number of samples"),
    (lambda: ea_iid.health_tests(1, simulate=10**6, gpus=[0, 0]), 'gpus="0,0": the simulation runs on one GPU'),
    (lambda: ea_iid.health_tests(1, simulate=0), "simulate: 0 is out of range (1 to"),
    (lambda: ea_iid.health_tests(1, simulate=0, seed=1), "simulate: 0 is out of range (1 to"),
    (lambda: ea_iid.health_tests(1, simulate=-1), "simulate: -1 is out of range (1 to"),
    (lambda: ea_iid.health_tests(1, simulate=2**70), "simulate: 1180591620717411303424 is out of range (1 to"),
    (lambda: ea_iid.health_tests(1, bits=2**40), "bits: 1099511627776 is out of range (1 to 8)"),
    (lambda: ea_iid.health_tests(9), "h: '9': H must be"),
    (lambda: ea_iid.health_tests(1, gpus=[1]), "gpus applies to simulate, which is not given"),
    (lambda: ea_iid.health_tests(1, bin=2), "bin applies to the samples of files, none of which is given"),
])
def test_refusals_name_the_keywords(call, words):
    with pytest.raises(ea_iid.UsageError) as e:
        call()
    assert words in str(e.value)


def test_a_missing_file_and_a_wrong_keyword(tmp_path):
    with pytest.raises(ea_iid.Error) as e:
        ea_iid.health_tests(1, [tmp_path / "none.bin"])
    assert e.value.error_kind == "input"
    with pytest.raises(TypeError):
        ea_iid.health_tests(1, alfa="2^-20")
    with pytest.raises(TypeError):
        ea_iid.health_tests(1, b"\x00\x01")
