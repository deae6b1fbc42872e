"""ea_iid.assess_manifest against `ea_iid source --manifest --jsonl`: a list of dicts equal to
the JSONL rows (but for when, how and by which build they were made), in manifest order, with
jobs=2 too; a source that cannot be assessed is its error row; a manifest that is not valid
raises ea_iid.UsageError naming the source and field; the settings a manifest gives per source
are refused as keywords.
"""
import json
import os
import subprocess

import pytest

import ea_iid

BUILD = os.environ["EA_IID_BUILD"]
SAMPLES = os.environ["EA_IID_SAMPLES"]
EXE = os.path.join(BUILD, "ea_iid")
VOLATILE = {"dateTimeStamp", "commandline", "timings", "toolVersion", "build"}


def stable(x):
    if isinstance(x, dict):
        return {k: stable(v) for k, v in x.items() if k not in VOLATILE}
    if isinstance(x, list):
        return [stable(v) for v in x]
    return x


def manifest(tmp_path, sources):
    path = tmp_path / "sources.json"
    path.write_text(json.dumps({"sources": sources}))
    return path


SOURCES = [
    {"primaryNoiseSource": "auto-8", "rawNoisePath": os.path.join(SAMPLES, "rand8_short.bin")},
    {"primaryNoiseSource": "non-iid-1", "rawNoisePath": os.path.join(SAMPLES, "rand1_short.bin"), "iidClaim": False,
     "conditioningComponent": [{"sequencePosition": 1, "vetted": False, "minNin": 64, "nOut": 32, "nw": 64,
                                "hPrime": 0.5}]},
    {"primaryNoiseSource": "auto-4", "rawNoisePath": os.path.join(SAMPLES, "rand4_short.bin"), "bitsPerSample": 4},
]


@pytest.mark.parametrize("jobs", [1, 2])
def test_rows_equal_the_command_lines(tmp_path, jobs):
    path = manifest(tmp_path, SOURCES)
    jsonl = tmp_path / "run.jsonl"
    out = subprocess.run([EXE, "source", "--manifest", str(path), "--seed", "7", "--iterations", "100", "-q",
                          "--jsonl", str(jsonl)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in jsonl.read_text().splitlines()]
    got = ea_iid.assess_manifest(path, seed=7, iterations=100, jobs=jobs, device="cpu")
    assert isinstance(got, list) and len(got) == 3
    assert [r["run"]["item"] for r in got] == [0, 1, 2]
    assert stable(got) == stable(rows)


def test_a_source_in_error_and_a_bad_manifest(tmp_path):
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    path = manifest(tmp_path, [{"primaryNoiseSource": "empty", "rawNoisePath": str(empty), "iidClaim": False},
                               SOURCES[1]])
    got = ea_iid.assess_manifest(str(path))
    assert got[0]["errorLevel"] == -1 and got[1]["type"] == "Source"
    assert got[1]["run"]["userSeed"] is None  # no source draws random numbers
    bad = manifest(tmp_path, [dict(SOURCES[0], iidClaim="yes")])
    with pytest.raises(ea_iid.UsageError, match=r"sources\[0\] \(auto-8\): iidClaim: expected true or false"):
        ea_iid.assess_manifest(bad)
    with pytest.raises(ea_iid.UsageError, match="its field bitsPerSample"):
        ea_iid.assess_manifest(path, bits=8)
    with pytest.raises(TypeError, match="manifest: expected a path"):
        ea_iid.assess_manifest(b"{}")
