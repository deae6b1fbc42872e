"""One set of rules at every front door: each row of tests/tools/settings-refusals.json is
refused by the Python module as ea_iid.Error with error_kind "usage", with the row's words
and each setting named by its keyword, as the command line, `ea_iid source` and the C++ API
refuse it (tests/api/test_settings_refusals.cpp); and by assess_manifest where a manifest can
express the row, naming the manifest's fields for what it gives per source.
"""
import json
import os

import pytest

import ea_iid

TABLE = os.path.join(os.path.dirname(__file__), "..", "tools", "settings-refusals.json")
with open(TABLE) as f:
    ROWS = json.load(f)["rows"]


@pytest.mark.parametrize("row", ROWS, ids=[r["rule"] for r in ROWS])
def test_the_module_refuses_every_row(row):
    samples = bytes((i * 37 + i // 7) % 256 for i in range(1000))
    with pytest.raises(ea_iid.Error) as e:
        ea_iid.assess(samples, **{"device": "cpu", **row["settings"]})
    message = str(e.value)
    assert e.value.error_kind == "usage", message
    for word in row["words"]:
        assert word in message, (word, message)
    for name in row["names"]:
        assert name in message, (name, message)


# The manifest's field of each setting a manifest gives per source (but the track: iidClaim).
FIELDS = {"bits": "bitsPerSample", "sample_format": "sampleFormat", "select_bits": "selectBits", "bin": "binBits"}


def manifest_of(settings, tmp_path):
    """The row as a manifest of one source (track non-iid as iidClaim false, bits as
    bitsPerSample, the sample format and rule as sampleFormat, selectBits, binBits) and the
    other keywords; None where the manifest door cannot express it (as
    `ea_iid source`: restart, -c, -t, all_tests, early_exit; a track other than non-iid)."""
    source = {"primaryNoiseSource": "refusal", "rawNoisePath": os.path.join(os.environ["EA_IID_SAMPLES"], "rand8_short.bin")}
    rest = {}
    for key, value in settings.items():
        if key == "track":
            if value != "non-iid":
                return None
            source["iidClaim"] = False
        elif key in FIELDS:
            source[FIELDS[key]] = value
        elif key == "restart" or (isinstance(value, bool) and key != "until_decided"):
            return None
        else:
            rest[key] = value
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"sources": [source]}))
    return path, rest


@pytest.mark.parametrize("row", ROWS, ids=[r["rule"] for r in ROWS])
def test_assess_manifest_refuses_every_row_it_can_express(row, tmp_path):
    made = manifest_of(row["settings"], tmp_path)
    if made is None:
        pytest.skip("a manifest does not carry this setting (nor does ea_iid source)")
    path, rest = made
    with pytest.raises(ea_iid.Error) as e:
        ea_iid.assess_manifest(path, **{"device": "cpu", **rest})
    message = str(e.value)
    assert e.value.error_kind == "usage", message
    for word in row["words"]:
        assert word in message, (word, message)
    names = dict(FIELDS, track="iidClaim")
    for name in row["names"]:
        assert names.get(name, name) in message, (name, message)
