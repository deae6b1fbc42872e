"""ea_iid.conditioning: the command line's `conditioning` (SP 800-90B 3.1.5, NIST
ea_conditioning's numbers) through the C++ API, under the same rules: the record `ea_iid
conditioning ... -o` writes for the same arguments (numbers read as the command line reads
them), and its refusals with the keywords' names.
"""
import json
import os
import subprocess

import pytest

import ea_iid

EXE = os.path.join(os.environ["EA_IID_BUILD"], "ea_iid")
SAMPLES = os.environ["EA_IID_SAMPLES"]


def cli(tmp_path, *args):
    out = tmp_path / "cli.json"
    done = subprocess.run([EXE, "conditioning", *args, "-q", "-o", str(out)], check=False, capture_output=True)
    assert done.returncode == 0, done.stderr
    return json.loads(out.read_text())


def stable(d):
    """The record without what differs between two runs (its conditioned file's record too)."""
    out = {k: v for k, v in d.items() if k not in ("dateTimeStamp", "commandline", "timings")}
    if isinstance(out.get("conditioned"), dict):
        out["conditioned"] = stable(out["conditioned"])
    return out


@pytest.mark.parametrize("args, call", [
    (["vetted", "1024", "256", "256", "0.5"], lambda: ea_iid.conditioning("vetted", 1024, 256, 256, 0.5)),
    (["vetted", "512", "256", "512", "300"], lambda: ea_iid.conditioning("vetted", 512, 256, 512, 300)),
    (["non-vetted", "1024", "256", "256", "800", "0.9"], lambda: ea_iid.conditioning("non-vetted", 1024, 256, 256, 800, 0.9)),
    (["non-vetted", "1024", "256", "256", "800", "0.9"], lambda: ea_iid.conditioning("non-vetted", 1024, 256, 256, "800", "0.9")),
])
def test_the_command_lines_record(tmp_path, args, call):
    c, p = cli(tmp_path, *args), call()
    assert p["type"] == "Conditioning"
    assert stable(p) == stable(c)
    assert p["commandline"] != c["commandline"]


def test_h_prime_from_a_file_of_conditioned_output(tmp_path):
    path = os.path.join(SAMPLES, "truerand_1bit.bin")
    c = cli(tmp_path, "non-vetted", "64", "32", "64", "64", "--conditioned", path, "--bits", "1")
    p = ea_iid.conditioning("non-vetted", 64, 32, 64, 64, conditioned=path, bits=1)
    assert stable(p) == stable(c)
    assert p["filename"] == path and p["sha256"] == c["sha256"]
    iid = ea_iid.conditioning("non-vetted", 64, 32, 64, 64, conditioned=path, conditioned_iid=True)
    c_iid = cli(tmp_path, "non-vetted", "64", "32", "64", "64", "--conditioned", path, "--conditioned-iid")
    assert stable(iid) == stable(c_iid)


@pytest.mark.parametrize("call, message", [
    (lambda: ea_iid.conditioning("vetted", 1024, 256, 256, 0.5, 0.9), "h_prime applies to a non-vetted component"),
    (lambda: ea_iid.conditioning("non-vetted", 1024, 256, 256, 800), "a non-vetted component needs h_prime or conditioned for h'"),
    (lambda: ea_iid.conditioning("non-vetted", 1024, 256, 256, 800, 0.9, conditioned="x.bin"), "h_prime and conditioned: give one"),
    (lambda: ea_iid.conditioning("vetted", 1024, 256, 256, 0.5, conditioned="x.bin"), "conditioned applies to a non-vetted component"),
    (lambda: ea_iid.conditioning("non-vetted", 1024, 256, 256, 800, 0.9, conditioned_iid=True), "conditioned_iid applies to conditioned"),
    (lambda: ea_iid.conditioning("non-vetted", 1024, 256, 256, 800, 0.9, bits=4), "bits applies to conditioned"),
    (lambda: ea_iid.conditioning("approved", 1024, 256, 256, 800), "kind: 'approved' is not a kind"),
    (lambda: ea_iid.conditioning("vetted", 256, 1024, 256, 0.5), "n_out (1024) must be at most n_in (256)"),
    (lambda: ea_iid.conditioning("vetted", 1024, 256, 256, "half"), "h_in: 'half' is not a decimal number"),
    (lambda: ea_iid.conditioning("vetted", -1, 256, 256, 0.5), "n_in must be a whole number of bits from 1 to 16777216, got -1"),
    (lambda: ea_iid.conditioning("vetted", 2**40, 256, 256, 0.5), "n_in must be a whole number of bits from 1 to 16777216, got 1099511627776"),
    (lambda: ea_iid.conditioning("vetted", 1024, 256, 256, 0.5, bits=0), "bits applies to conditioned"),
    (lambda: ea_iid.conditioning("non-vetted", 64, 32, 64, 64, conditioned="x.bin", bits=0), "bits: 0 is out of range (1 to 8)"),
    (lambda: ea_iid.conditioning("non-vetted", 1024, 256, 256, 800, 1.5), "h' (1.5"),
])
def test_refusals_name_the_keywords(call, message):
    with pytest.raises(ea_iid.UsageError) as e:
        call()
    assert message in str(e.value)
    assert "--" not in str(e.value)


def test_a_file_that_is_not_there():
    with pytest.raises(ea_iid.Error) as e:
        ea_iid.conditioning("non-vetted", 64, 32, 64, 64, conditioned="/nonexistent/cond.bin")
    assert e.value.error_kind == "input"


def test_types():
    with pytest.raises(TypeError):
        ea_iid.conditioning("vetted", 1024.0, 256, 256, 0.5)
    with pytest.raises(TypeError):
        ea_iid.conditioning("vetted", 1024, 256, 256, 0.5, conditioned=5)
