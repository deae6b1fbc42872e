"""Arguments as a Python user gives them: every keyword of the wrong type is a TypeError
naming it, every number out of range an ea_iid.UsageError (an ea_iid.Error of kind "usage"
and a ValueError) with the command line's words, however large the number; a typo keyword
named with the nearest valid one; paths that are not UTF-8 (surrogate escapes, bytes from
os.PathLike) found, a missing one that item's error only.

Run by ctest (python/module) with EA_IID_BUILD and EA_IID_SAMPLES set.
"""
import os
import subprocess

import numpy as np
import pytest

import ea_iid

BUILD = os.environ["EA_IID_BUILD"]
SAMPLES = os.environ["EA_IID_SAMPLES"]
RAND8 = os.path.join(SAMPLES, "rand8_short.bin")
TWO_SYMBOLS = b"\x00\x01" * 500


# ---- Wrong types: TypeError "KEY: expected T, got U" (before any work).

WRONG_TYPES = [
    ("bits", "8", "bits: expected int, got str"),
    ("bits", 8.0, "bits: expected int, got float"),
    ("bits", True, "bits: expected int, got bool"),
    ("seed", "1", "seed: expected int, got str"),
    ("seed", 1.5, "seed: expected int, got float"),
    ("device", 1, "device: expected str, got int"),
    ("prng", b"philox", "prng: expected str, got bytes"),
    ("iterations", "100", "iterations: expected int, got str"),
    ("iterations", 1e3, "iterations: expected int, got float"),
    ("conditioned", 1, "conditioned: expected bool, got int"),
    ("truncate_bitstring", "yes", "truncate_bitstring: expected bool, got str"),
    ("all_tests", 0, "all_tests: expected bool, got int"),
    ("until_decided", "true", "until_decided: expected bool, got str"),
    ("gpus", 0, "gpus: expected a list of int, got int"),
    ("gpus", "0", "gpus: expected a list of int, got str"),
    ("gpus", [0, "1"], "gpus[1]: expected int, got str"),
    ("threads", 2.5, "threads: expected int, got float"),
    ("restart", "7.5", "restart: expected a number, got str"),
    ("restart", True, "restart: expected a number, got bool"),
    ("label", 5, "label: expected str, got int"),
]


@pytest.mark.parametrize("key,value,message", WRONG_TYPES, ids=[f"{k}={v!r}" for k, v, _ in WRONG_TYPES])
def test_a_keyword_of_the_wrong_type_is_a_type_error_naming_it(key, value, message):
    with pytest.raises(TypeError) as e:
        ea_iid.assess(TWO_SYMBOLS, **{key: value})
    assert str(e.value) == message
    assert not isinstance(e.value, ea_iid.Error)


def test_wrong_types_of_the_other_calls_arguments():
    with pytest.raises(TypeError, match=r"^jobs: expected int, got str$"):
        ea_iid.assess_many([RAND8], jobs="2")
    with pytest.raises(TypeError, match=r"^h_i: expected a number, got str$"):
        ea_iid.restart(TWO_SYMBOLS, "7.5")
    with pytest.raises(TypeError, match=r"^items\[1\]: expected bytes, bytearray, a numpy uint8, uint16 or uint32 array or a path, got int$"):
        ea_iid.assess_many([RAND8, 5])


def test_numpy_numbers_and_bools_are_taken():
    got = ea_iid.assess(TWO_SYMBOLS, bits=np.int64(1), seed=np.uint64(3), iterations=np.int32(20), device="cpu",
                        early_exit=np.bool_(True), track="iid")
    assert got["input"]["bitsPerSymbol"] == 1 and got["permutation"]["userSeed"] == "3"


# ---- Numbers out of range: ea_iid.UsageError, the command line's message with the keyword's
# name, for numbers the library's fields hold and for those they do not (10**12, -1, 2**64).

OUT_OF_RANGE = [
    ("--seed", "seed", 2**64),
    ("--bits", "bits", 9),
    ("--bits", "bits", 2**40),
    ("--iterations", "iterations", 10**12),
    ("--iterations", "iterations", 2**32),
    ("--threads", "threads", 5000),
    ("--threads", "threads", 10**12),
    ("--gpu", "gpus", 2**40),
    ("--restart", "restart", 9),
]


def cli_refusal(flag, value):
    out = subprocess.run([os.path.join(BUILD, "ea_iid"), "-q", flag, str(value), RAND8], capture_output=True, text=True)
    assert out.returncode == 2, out.stderr
    prefix = "ea_iid: error: "
    assert out.stderr.startswith(prefix), out.stderr
    return out.stderr[len(prefix):].splitlines()[0]


@pytest.mark.parametrize("flag,key,value", OUT_OF_RANGE, ids=[f"{k}={v}" for _, k, v in OUT_OF_RANGE])
def test_a_number_out_of_range_is_refused_as_the_command_line_refuses_it(flag, key, value):
    expected = cli_refusal(flag, value).replace(flag + ":", key + ":", 1)
    with pytest.raises(ea_iid.UsageError) as e:
        ea_iid.assess(TWO_SYMBOLS, device="cpu", **{key: [value] if key == "gpus" else value})
    assert str(e.value) == expected
    assert isinstance(e.value, ValueError) and isinstance(e.value, ea_iid.Error)
    assert e.value.error_kind == "usage"


@pytest.mark.parametrize("key,value,message", [
    ("seed", -1, "seed: -1 is out of range (0 to 18446744073709551615)"),
    ("iterations", -5, "iterations: -5 is out of range (1 to 100000000)"),
    ("iterations", 0, "iterations: 0 is out of range (1 to 100000000)"),
    ("bits", -(2**40), "bits: -1099511627776 is out of range (1 to 8)"),
    ("threads", -1, "threads: -1 is out of range (1 to 4096)"),
])
def test_negative_numbers_are_usage_errors_naming_the_number(key, value, message):
    with pytest.raises(ValueError) as e:
        ea_iid.assess(TWO_SYMBOLS, device="cpu", **{key: value})
    assert str(e.value) == message
    assert e.value.error_kind == "usage"


def test_usage_errors_of_the_other_calls():
    with pytest.raises(ea_iid.UsageError, match=r"^jobs: 1099511627776 is out of range"):
        ea_iid.assess_many([RAND8], jobs=2**40)
    with pytest.raises(ea_iid.UsageError, match=r"^restart: '9': H_I must be a number greater than 0 and at most 8$"):
        ea_iid.restart(TWO_SYMBOLS, 9)
    with pytest.raises(ea_iid.UsageError, match=r"^iterations: 1000000000000 is out of range \(1 to 100000000\)$"):
        next(ea_iid.assess_many([RAND8], iterations=10**12))
    # Other errors stay ea_iid.Error, not ValueError.
    with pytest.raises(ea_iid.Error) as e:
        ea_iid.assess("/nonexistent/file.bin")
    assert e.value.error_kind == "input" and not isinstance(e.value, ValueError)


# ---- Unknown keywords: TypeError naming the nearest valid one.

@pytest.mark.parametrize("typo,nearest", [("sed", "seed"), ("iteration", "iterations"), ("Bits", "bits"),
                                          ("early-exit", "early_exit"), ("gpu", "gpus"), ("thread", "threads")])
def test_a_typo_keyword_names_the_nearest_one(typo, nearest):
    with pytest.raises(TypeError) as e:
        ea_iid.assess(TWO_SYMBOLS, **{typo: 1})
    assert str(e.value) == f"unknown keyword '{typo}'; did you mean '{nearest}'?"


def test_an_unknown_keyword_far_from_any_lists_them_all():
    with pytest.raises(TypeError) as e:
        ea_iid.assess(TWO_SYMBOLS, colour=1)
    assert str(e.value).startswith("unknown keyword 'colour'; expected one of: bits, seed, device, track")
    with pytest.raises(TypeError, match=r"^unknown keyword 'jbos'; did you mean 'jobs'\?$"):
        ea_iid.assess_many([RAND8], jbos=2)
    # assess_many names its items itself (samples[k]): a label would change nothing.
    with pytest.raises(TypeError, match=r"^unknown keyword 'label'"):
        ea_iid.assess_many([RAND8], label="x")
    with pytest.raises(TypeError, match=r"^unknown keyword 'seeds'; did you mean 'seed'\?$"):
        ea_iid.restart(TWO_SYMBOLS, 7.5, seeds=1)


# ---- Paths that are not UTF-8.

class BytesPath:
    """An os.PathLike whose path is bytes."""

    def __init__(self, path):
        self.path = path

    def __fspath__(self):
        return self.path


@pytest.fixture
def latin1_file(tmp_path):
    name = os.fsencode(tmp_path) + b"/caf\xe9.bin"  # Latin-1: not UTF-8
    with open(RAND8, "rb") as src, open(name, "wb") as dst:
        dst.write(src.read())
    return name


def test_paths_that_are_not_utf8_are_found(latin1_file):
    as_str = os.fsdecode(latin1_file)  # 'caf\udce9.bin'
    expected = ea_iid.assess(RAND8, seed=1, device="cpu", iterations=20)
    for path in (as_str, BytesPath(latin1_file), BytesPath(as_str)):
        got = ea_iid.assess(path, seed=1, device="cpu", iterations=20)
        assert got["sha256"] == expected["sha256"]
        assert bytes.fromhex(got["filenameBytes"]) == latin1_file
        assert got["testCases"] == expected["testCases"]


def test_assess_many_finds_them_and_a_missing_one_is_its_items_error(latin1_file):
    missing = latin1_file.replace(b"caf", b"gone")
    items = [RAND8, os.fsdecode(latin1_file), os.fsdecode(missing), BytesPath(latin1_file), BytesPath(missing)]
    rows = list(ea_iid.assess_many(items, seed=1, device="cpu", iterations=20))
    assert len(rows) == 5
    assert [r.get("errorKind") for r in rows] == [None, None, "input", None, "input"]
    assert rows[1]["sha256"] == rows[0]["sha256"] == rows[3]["sha256"]
    assert bytes.fromhex(rows[1]["filenameBytes"]) == latin1_file
    assert bytes.fromhex(rows[2]["filenameBytes"]) == missing and "no such file" in rows[2]["errorMessage"]


def test_an_error_naming_such_a_path_shows_its_bytes(latin1_file):
    missing = os.fsdecode(latin1_file.replace(b"caf", b"gone"))
    with pytest.raises(ea_iid.Error) as e:
        ea_iid.assess(missing)
    assert e.value.error_kind == "input"
    assert "gone\\xe9.bin: no such file" in str(e.value)


def test_a_keyword_given_is_a_flag_given():
    data = np.fromfile(RAND8, dtype=np.uint8)
    with pytest.raises(ea_iid.UsageError, match="iterations applies to the IID tests"):
        ea_iid.assess(data, track="non-iid", iterations=10000)  # as --track non-iid --iterations 10000
    for key in ("bits", "threads"):
        with pytest.raises(ea_iid.UsageError, match=key + ": 0 is out of range"):
            ea_iid.assess(data, device="cpu", **{key: 0})
    with pytest.raises(ea_iid.UsageError, match="label names samples in memory"):
        ea_iid.assess(RAND8, label="x")
    with pytest.raises(ea_iid.UsageError, match="label: an empty name"):
        ea_iid.assess(data, label="")


def test_signed_bytes_and_a_single_item_for_a_batch_are_type_errors():
    data = np.fromfile(RAND8, dtype=np.uint8)
    with pytest.raises(TypeError, match="items of 1 byte must be unsigned"):
        ea_iid.assess(data.view(np.int8), seed=1, iterations=20)
    with pytest.raises(TypeError, match="expected an iterable of items"):
        ea_iid.assess_many(RAND8, seed=1, iterations=20)
    with pytest.raises(TypeError, match="expected an iterable of items"):
        ea_iid.assess_many(data, seed=1, iterations=20)
    ones = (data & 1).astype(bool)  # numpy bool: bytes 0 and 1
    assert ea_iid.assess(ones, seed=1, iterations=20, device="cpu", track="iid")["input"]["alphabetSize"] == 2


def test_a_missing_manifest_is_an_input_error_naming_it():
    with pytest.raises(ea_iid.Error) as e:
        ea_iid.assess_manifest("/no/such/manifest.json")
    assert e.value.error_kind == "input"
    assert str(e.value).startswith("the manifest /no/such/manifest.json: No such file")


def test_none_is_not_given_for_every_keyword():
    data = np.fromfile(RAND8, dtype=np.uint8)
    a = ea_iid.assess(data, seed=1, device="cpu", track="non-iid")
    b = ea_iid.assess(data, seed=1, device=None, track="non-iid", iterations=None, prng=None, conditioned=None, threads=None)
    assert a["assessedMinEntropy"] == b["assessedMinEntropy"]


def test_none_for_label_sample_format_and_jobs_is_not_given():
    data = np.fromfile(RAND8, dtype=np.uint8)
    ea_iid.assess(RAND8, label=None, seed=1, iterations=20, device="cpu", track="iid")
    wide = data.astype(np.uint16)
    ea_iid.assess(wide, sample_format=None, seed=1, iterations=20, device="cpu", track="iid")
    rows = list(ea_iid.assess_many([RAND8], jobs=None, seed=1, iterations=20, device="cpu", track="iid"))
    assert len(rows) == 1
    # An array of paths (dtype object) is items, not one buffer.
    rows = list(ea_iid.assess_many(np.array([RAND8, RAND8], dtype=object), seed=1, iterations=20, device="cpu", track="iid"))
    assert len(rows) == 2


def test_assess_manifest_refuses_a_per_source_keyword_given_at_its_default(tmp_path):
    m = tmp_path / "m.json"
    m.write_text('{"sources": [{"primaryNoiseSource": "a", "rawNoisePath": "%s", "iidClaim": false}]}' % RAND8)
    for kw in ({"track": "auto"}, {"bits": 0}, {"sample_format": "u8"}, {"early_exit": True}):
        with pytest.raises(ea_iid.UsageError, match="manifest"):
            ea_iid.assess_manifest(str(m), **kw)
