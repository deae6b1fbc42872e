#!/usr/bin/env python3
"""Writes a restart data set (1,000 restarts x 1,000 8-bit samples, row i = restart i) whose
restarts are not independent: sample j of restart i repeats sample j of restart i-1 with
probability Q, else it is a fresh uniform byte. Each restart on its own is IID (the row
data set passes), but each column repeats its previous value about Q of the time more than
chance, which the permutation tests of the column data set see (periodicity at lag 1)
while its chi-square tests, at this Q, do not. Deterministic: Python's Mersenne Twister
seeded with SEED.

usage: make-restart-carryover.py OUT [Q] [SEED]     (defaults: Q 0.001, SEED 2026)
"""
import random
import sys

out = sys.argv[1]
q = float(sys.argv[2]) if len(sys.argv) > 2 else 0.001
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 2026)
rows, cols = 1000, 1000
data = bytearray(rows * cols)
for i in range(rows):
    for j in range(cols):
        if i > 0 and rng.random() < q:
            data[i * cols + j] = data[(i - 1) * cols + j]
        else:
            data[i * cols + j] = rng.getrandbits(8)
with open(out, "wb") as f:
    f.write(data)
