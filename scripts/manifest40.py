#!/usr/bin/env python3
# 40 noise sources over testdata/samples: IID claims and not, with and without restart data,
# conditioning chains of 0, 1 and 2 components (vetted and not), for scripts/demo-manifest40.sh.
# usage: manifest40.py SAMPLES_DIR OUT.json
import json, os, sys
samples, out = sys.argv[1], sys.argv[2]
files = ["GetTickCount_1bit.bin", "GetTickCount_4bit.bin", "GetTickCount_8bit.bin", "biased-random-bits.bin",
         "biased-random-bytes.bin", "normal.bin", "ringOsc-nist.bin", "truerand_1bit.bin", "truerand_4bit.bin",
         "truerand_8bit.bin", "rand1_short.bin", "rand4_short.bin", "rand8_short.bin", "data.pi.bin"]
million = {f for f in files if os.path.getsize(os.path.join(samples, f)) == 1000000}
chains = [[],
          [{"sequencePosition": 1, "vetted": True, "minNin": 512, "nOut": 256, "nw": 256}],
          [{"sequencePosition": 1, "vetted": False, "minNin": 64, "nOut": 32, "nw": 64, "hPrime": 0.9}],
          [{"sequencePosition": 1, "vetted": False, "minNin": 64, "nOut": 32, "nw": 64, "hPrime": 0.5},
           {"sequencePosition": 2, "vetted": True, "minNin": 512, "nOut": 256, "nw": 256}]]
rel = os.path.abspath(samples)  # absolute: the per-source runs name the same paths
sources = []
for k in range(40):
    f = files[k % len(files)]
    s = {"primaryNoiseSource": f"src-{k:02d}-{f[:-4]}", "rawNoisePath": f"{rel}/{f}"}
    claim = k % 3
    if claim == 0: s["iidClaim"] = False
    elif claim == 1: s["iidClaim"] = True
    if f in million and k % 2 == 0: s["restartTestPath"] = f"{rel}/{f}"
    if k % 5 == 4: s["hminEstimate"] = 0.5
    c = chains[k % 4]
    if c: s["conditioningComponent"] = c
    sources.append(s)
json.dump({"sources": sources}, open(out, "w"), indent=1)
print(len(sources), "sources")
