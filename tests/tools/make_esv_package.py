#!/usr/bin/python3
"""A hand-made ESV submission package (docs/esv.md's layout) for tests/cli/esv-check.sh.

usage: make_esv_package.py DIR [DEFECT]
       make_esv_package.py --list

Three sources with random (seeded) data: src-iid (IID, 4-bit samples, no conditioning),
src-vetted (non-IID, 6-bit samples, a vetted SHA2-256-HMAC-DRBG component) and src-cond
(non-IID, 8-bit samples, a non-vetted, non-bijective component with its conditioned data).
Every registration satisfies schema 38490704 and the protocol's and server's rules
(docs/esv-notes.md). DEFECT seeds one defect (--list names them); SHA256SUMS is written
after it, so that only that defect differs (the hash defects aside). No numpy needed.
"""
import hashlib
import json
import os
import random
import sys


def samples(seed, bits, n=1000000):
    data = random.Random(seed).randbytes(n)
    return data.translate(bytes(b & ((1 << bits) - 1) for b in range(256)))


PDF = (b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
       b"2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\n"
       b"trailer << /Root 1 0 R >>\n%%EOF\n")


def registration(name, iid, bits, hmin, components):
    return [{"esvVersion": "1.0"}, {
        "primaryNoiseSource": name + ": ring oscillator jitter, test package",
        "iidClaim": iid, "bitsPerSample": bits, "hminEstimate": hmin, "physical": True,
        "numberOfRestarts": 1000, "samplesPerRestart": 1000,
        "additionalNoiseSources": False, "numberOfOEs": 1,
        "conditioningComponent": components}]


def run_file(conditioned, bits):
    return [{
        "AssessmentRegistrationPath": "registration.json",
        "DataFiles": [{"oeID": 1, "rawNoisePath": "rawNoise.bin", "rawNoiseSampleSize": bits,
                       "restartTestPath": "restart.bin", "restartSampleSize": bits,
                       "unvettedConditionedPaths": conditioned}],
        "SupportingDocuments": [
            {"filePath": "EntropyAssessmentReport.pdf", "comment": "the entropy assessment report",
             "sdType": "EntropyAssessmentReport"},
            {"filePath": "PublicUseDocument.pdf", "comment": "the public use document",
             "sdType": "PublicUseDocument"}]}]


def sources():
    vetted = {"sequencePosition": 1, "vetted": True, "description": "SHA2-256-HMAC-DRBG",
              "validationNumber": "A1234", "minNin": 512, "minHin": 300.5, "nw": 256, "nOut": 256,
              "hOut": 255.5}
    nonvetted = {"sequencePosition": 1, "vetted": False, "bijectiveClaim": False,
                 "description": "XOR of 4 bytes", "minNin": 1024, "minHin": 600, "nw": 256,
                 "nOut": 256, "hOut": 250}
    out = {}
    for i, (name, iid, bits, hmin, comps) in enumerate([
            ("src-iid", True, 4, 3.9, []),
            ("src-vetted", False, 6, 5.2, [vetted]),
            ("src-cond", False, 8, 7.1, [nonvetted])]):
        files = {"rawNoise.bin": samples(10 * i + 1, bits), "restart.bin": samples(10 * i + 2, bits),
                 "EntropyAssessmentReport.pdf": PDF, "PublicUseDocument.pdf": PDF,
                 "assessment.json": b'{"note": "hand-made test package"}\n'}
        conditioned = []
        for c in comps:
            if not c["vetted"]:
                conditioned.append("conditioned-%d.bin" % c["sequencePosition"])
                files[conditioned[-1]] = samples(10 * i + 3, 8)
        out[name] = {"reg": registration(name, iid, bits, hmin, comps), "run": run_file(conditioned, bits),
                     "files": files}
    return out


def reg(s, name):
    return s[name]["reg"][1]


# Each defect: (what it does, the source's changes). Those marked "after" act on the written
# package after SHA256SUMS.
DEFECTS = {
    "missing-field": lambda s: reg(s, "src-iid").pop("physical"),
    "wrong-type": lambda s: reg(s, "src-iid").update(iidClaim="yes"),
    "position-2": lambda s: reg(s, "src-cond")["conditioningComponent"][0].update(sequencePosition=2),
    "short-file": lambda s: s["src-vetted"]["files"].update({"rawNoise.bin": s["src-vetted"]["files"]["rawNoise.bin"][:999999]}),
    "wide-sample": lambda s: s["src-iid"]["files"].update(
        {"rawNoise.bin": s["src-iid"]["files"]["rawNoise.bin"][:4321] + b"\x10" + s["src-iid"]["files"]["rawNoise.bin"][4322:]}),
    "hmin-above": lambda s: reg(s, "src-iid").update(hminEstimate=4.5),
    "vetted-no-validation": lambda s: reg(s, "src-vetted")["conditioningComponent"][0].pop("validationNumber"),
    "vetted-bijective": lambda s: reg(s, "src-vetted")["conditioningComponent"][0].update(bijectiveClaim=True),
    "vetted-name": lambda s: reg(s, "src-vetted")["conditioningComponent"][0].update(description="HMAC_DRBG"),
    "hout-ge-nout": lambda s: reg(s, "src-cond")["conditioningComponent"][0].update(hOut=256),
    "run-path-outside": lambda s: s["src-iid"]["run"][0]["DataFiles"][0].update(rawNoisePath="../../outside.bin"),
    "run-path-missing": lambda s: s["src-iid"]["run"][0]["DataFiles"][0].update(restartTestPath="nothere.bin"),
    "restarts-999": lambda s: reg(s, "src-vetted").update(numberOfRestarts=999),
    "name-65": lambda s: reg(s, "src-iid").update(primaryNoiseSource="x" * 65),
    "not-pdf": lambda s: s["src-cond"]["files"].update({"EntropyAssessmentReport.pdf": b"hello, not a PDF\n"}),
    "conditioned-count": lambda s: s["src-cond"]["run"][0]["DataFiles"][0].update(unvettedConditionedPaths=[]),
    "sample-size": lambda s: s["src-iid"]["run"][0]["DataFiles"][0].update(rawNoiseSampleSize=8),
    "not-array": lambda s: s["src-iid"].update(reg=s["src-iid"]["reg"][1]),
    "additional-nonvetted": lambda s: reg(s, "src-cond").update(additionalNoiseSources=True),
    "hash-mismatch": "after",
    "unlisted-file": "after",
}


def write(root, defect=None):
    s = sources()
    if defect and DEFECTS[defect] != "after":
        DEFECTS[defect](s)
    os.makedirs(root, exist_ok=True)
    written = []
    for name, src in s.items():
        folder = os.path.join(root, name)
        os.makedirs(folder, exist_ok=True)
        docs = dict(src["files"])
        docs["registration.json"] = (json.dumps(src["reg"], indent=2) + "\n").encode()
        docs["run.json"] = (json.dumps(src["run"], indent=2) + "\n").encode()
        for f, data in docs.items():
            with open(os.path.join(folder, f), "wb") as out:
                out.write(data)
            written.append(name + "/" + f)
    marker = {"tool": "ea_iid", "toolVersion": "test", "schemaVersion": 1,
              "sources": [{"name": n, "folder": n} for n in s]}
    top = {"ea_iid-package.json": (json.dumps(marker, indent=2) + "\n").encode(),
           "README.txt": b"A hand-made test package (tests/tools/make_esv_package.py).\n"}
    for f, data in top.items():
        with open(os.path.join(root, f), "wb") as out:
            out.write(data)
        written.append(f)
    with open(os.path.join(root, "SHA256SUMS"), "w") as sums:
        for f in sorted(written):
            with open(os.path.join(root, f), "rb") as fh:
                sums.write("%s  %s\n" % (hashlib.sha256(fh.read()).hexdigest(), f))
    if defect == "hash-mismatch":
        with open(os.path.join(root, "src-cond", "restart.bin"), "r+b") as f:
            f.seek(777)
            b = f.read(1)
            f.seek(777)
            f.write(bytes([b[0] ^ 1]))
    if defect == "unlisted-file":
        with open(os.path.join(root, "src-vetted", "extra.bin"), "wb") as f:
            f.write(b"not listed\n")


if __name__ == "__main__":
    if sys.argv[1:] == ["--list"]:
        print("\n".join(DEFECTS))
    elif len(sys.argv) in (2, 3) and (len(sys.argv) == 2 or sys.argv[2] in DEFECTS):
        write(sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else None)
    else:
        sys.exit(__doc__)
