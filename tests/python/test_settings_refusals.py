"""One set of rules at every front door: each row of tests/tools/settings-refusals.json is
refused by the Python module as ea_iid.Error with error_kind "usage", with the row's words
and each setting named by its keyword, as the command line, `ea_iid source` and the C++ API
refuse it (tests/api/test_settings_refusals.cpp).
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
        ea_iid.assess(samples, device="cpu", **row["settings"])
    message = str(e.value)
    assert e.value.error_kind == "usage", message
    for word in row["words"]:
        assert word in message, (word, message)
    for name in row["names"]:
        assert name in message, (name, message)
