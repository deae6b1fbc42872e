"""Samples wider than a byte in Python: a numpy uint16 array (native or big-endian dtype) with
select_bits gives the record `ea_iid --sample-format u16le|u16be --select-bits MASK` writes for
the same samples in a file (the mapping, the file's SHA-256, the estimates); sample_format,
when given, must be the array's width; assess_many takes such arrays in one format.

Run by ctest (python/module) with EA_IID_BUILD (the build folder) set.
"""
import json
import os
import subprocess

import numpy as np
import pytest

import ea_iid

EXE = os.path.join(os.environ["EA_IID_BUILD"], "ea_iid")
# (and by which build: the module and the executable may be built at different commits)
VOLATILE = {"dateTimeStamp", "commandline", "timings", "workerThreads", "threads", "device", "deviceProfile",
            "toolVersion", "build"}


def stable(x):
    if isinstance(x, dict):
        return {k: stable(v) for k, v in x.items() if k not in VOLATILE}
    if isinstance(x, list):
        return [stable(v) for v in x]
    return x


def capture(n=20000):
    """A 16-bit capture: 8 random bits in bits 4-11, bits 0 and 15 always set."""
    rng = np.random.default_rng(46)
    return ((rng.integers(0, 256, n).astype(np.uint16) << 4) | 0x8001).astype(np.uint16)


def cli(path, fmt):
    out = subprocess.run([EXE, "-q", "-o", "-", "--device", "cpu", "--track", "non-iid", "--sample-format", fmt,
                          "--select-bits", "0x0ff0", path], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.parametrize("dtype,fmt", [(np.uint16, "u16le"), (">u2", "u16be")])
def test_a_uint16_array_as_the_command_line_on_a_file(dtype, fmt, tmp_path):
    samples = capture().astype(dtype)
    path = str(tmp_path / ("capture." + fmt))
    samples.tofile(path)  # the array's own bytes: little-endian for uint16 here, big for >u2
    expected = cli(path, fmt)
    assert expected["input"]["sampleRule"] == fmt + ", select-bits 0x0ff0"
    got = ea_iid.assess(samples, device="cpu", track="non-iid", select_bits="0x0ff0", label=path)
    assert got["input"]["mapping"]["mask"] == "0x0ff0"
    assert stable(got) == stable(expected)
    with open(path, "rb") as f:  # the file's bytes, read in its format: the same record
        assert stable(ea_iid.assess(f.read(), device="cpu", track="non-iid", select_bits="0x0ff0", sample_format=fmt,
                                    label=path)) == stable(expected)


def test_sample_format_given_must_be_the_arrays_width():
    samples = capture(1000)
    got = ea_iid.assess(samples, device="cpu", track="non-iid", select_bits="0x0ff0", sample_format="u16be")
    assert got["input"]["sampleRule"] == "u16be, select-bits 0x0ff0"  # the values as numbers, recorded as u16be
    for fmt in ("u8", "u32le", "text"):
        with pytest.raises(ea_iid.UsageError) as e:
            ea_iid.assess(samples, device="cpu", select_bits="0x0ff0", sample_format=fmt)
        assert "give u16le or u16be" in str(e.value), str(e.value)
    with pytest.raises(TypeError):
        ea_iid.assess(samples.astype(np.int16), device="cpu", select_bits="0x0ff0")  # signed


def test_assess_many_takes_arrays_of_one_format(tmp_path):
    samples = capture()
    rows = list(ea_iid.assess_many([samples, samples], device="cpu", track="non-iid", select_bits="0x0ff0"))
    assert [r["input"]["sampleRule"] for r in rows] == ["u16le, select-bits 0x0ff0"] * 2
    assert rows[0]["input"]["mapping"]["mask"] == "0x0ff0"
    both = [samples, samples.astype(">u2")]  # one format given: the values as numbers, both recorded u16be
    rows = list(ea_iid.assess_many(both, device="cpu", track="non-iid", select_bits="0x0ff0", sample_format="u16be"))
    assert [r["input"]["sampleRule"] for r in rows] == ["u16be, select-bits 0x0ff0"] * 2
    assert rows[0]["assessedMinEntropy"] == rows[1]["assessedMinEntropy"]
    path = tmp_path / "capture.u16le"
    samples.tofile(path)
    # Two formats; a file that would be read in the arrays' format: refused, naming sample_format.
    for items, words in ((both, "u16be samples beside arrays of u16le"), ([samples, str(path)], "give sample_format")):
        with pytest.raises(ea_iid.UsageError) as e:
            ea_iid.assess_many(items, device="cpu", select_bits="0x0ff0")
        assert words in str(e.value) and "sample_format" in str(e.value), str(e.value)
