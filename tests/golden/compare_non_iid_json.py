#!/usr/bin/env python3
"""Compares the testCases of an ea_iid --non-iid JSON record with NIST ea_non_iid's JSON.

usage: compare_non_iid_json.py NIST.json OURS.json [--rel 1e-9]
Every test case must have the same description and the same fields, every number equal to a
relative 1e-9; IID must be false in both. Prints "N passed, M failed"; exit 1 when M > 0.
"""
import json
import sys


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    rel = float(argv[argv.index("--rel") + 1]) if "--rel" in argv else 1e-9
    with open(argv[1], encoding="utf-8") as f:
        nist = json.load(f)
    with open(argv[2], encoding="utf-8") as f:
        ours = json.load(f)
    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print("DIFFERS", what)

    check(nist["IID"] == ours["IID"], "IID")
    check(len(nist["testCases"]) == len(ours["testCases"]), "number of testCases")
    for want, got in zip(nist["testCases"], ours["testCases"]):
        desc = want["testCaseDesc"]
        check(sorted(want) == sorted(got), f"{desc}: fields {sorted(want)} / {sorted(got)}")
        for key, w in want.items():
            g = got.get(key)
            if isinstance(w, (int, float)) and isinstance(g, (int, float)):
                check(abs(w - g) <= rel * max(abs(w), abs(g)) or w == g, f"{desc}: {key} {w} / {g}")
            else:
                check(w == g, f"{desc}: {key} {w!r} / {g!r}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
