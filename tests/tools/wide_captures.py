#!/usr/bin/env python3
"""Wide test captures with a known best mask, and an independent mapping of samples to symbols.

  wide_captures.py generate DIR      writes DIR/adc12.u16le, DIR/adc12-restart.u16le (12-bit),
                                     DIR/tsc16.u16be, DIR/tsc16-restart.u16be (16-bit)
  wide_captures.py pack FILE FORMAT MASK OUT   the bits of MASK of each sample, packed lowest first
  wide_captures.py bin FILE FORMAT B OUT       order-preserving equal-count bins (2^B)

The generator is splitmix64 in numpy's wrapping uint64 arithmetic, so the files are the same
bytes on every machine (testdata/README.md lists their SHA-256). Written from the rules in
docs/sample-formats.md, not from ea_iid's code.

adc12 (1,000,000 samples, u16le, 12 bits): bit 0 toggles every sample; bit 3 is the previous
sample's bit 2 OR bit 4 (1 three times in four, and predictable); bit 6 is 1 with probability
0.9; bit 9 is always 1; bits 1, 2, 4, 5, 7, 8, 10, 11 are uniform: the best 8-bit mask 0x0db6.
tsc16 (1,000,000 samples, u16be, 16 bits): bits 0-1 and 10 are counter bits (i mod 4, bit 3
of i); bit 4 is 1 with probability 0.8, bit 6 with 0.7, bit 12 with 0.85; bit 9 flips with
probability 0.01; bit 15 is always 1; bits 2, 3, 5, 7, 8, 11, 13, 14 are uniform: 0x69ac.
"""
import sys

import numpy as np

M64 = np.uint64(0xFFFFFFFFFFFFFFFF)


def splitmix64(seed, n):
    with np.errstate(over="ignore"):
        x = (np.arange(1, n + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)) + np.uint64(seed)
        z = x
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def uniform01(r):
    return (r >> np.uint64(11)).astype(np.float64) / float(1 << 53)


def bit(v, b):
    return ((v >> b) & 1).astype(np.uint32)


def adc12(seed, n):
    r1, r2 = splitmix64(seed, n), splitmix64(seed ^ 0x5555, n)
    u = (r1 & np.uint64(0xDB6)).astype(np.uint32)
    i = np.arange(n, dtype=np.uint32)
    v = u | (i & 1) | (np.uint32(1) << 9)
    v |= (uniform01(r2) < 0.9).astype(np.uint32) << 6
    prev = np.roll(v, 1)
    prev[0] = 0
    v |= (bit(prev, 2) | bit(prev, 4)) << 3
    return v.astype(np.uint16)


def tsc16(seed, n):
    r1, r2, r3 = splitmix64(seed, n), splitmix64(seed ^ 0xAAAA, n), splitmix64(seed ^ 0x3333, n)
    u = (r1 & np.uint64(0x69AC)).astype(np.uint32)
    i = np.arange(n, dtype=np.uint32)
    v = u | (i & 3) | (bit(i, 3) << 10) | (np.uint32(1) << 15)
    p2, p3 = uniform01(r2), uniform01(r3)
    v |= (p2 < 0.8).astype(np.uint32) << 4
    v |= ((p2 * 7 % 1) < 0.7).astype(np.uint32) << 6
    v |= ((p2 * 13 % 1) < 0.85).astype(np.uint32) << 12
    flips = (p3 < 0.01).astype(np.uint32)
    v |= (np.cumsum(flips) & 1).astype(np.uint32) << 9
    return v.astype(np.uint16)


def generate(folder):
    n = 1000000
    adc12(1, n).astype("<u2").tofile(folder + "/adc12.u16le")
    adc12(2, n).astype("<u2").tofile(folder + "/adc12-restart.u16le")
    tsc16(3, n).astype(">u2").tofile(folder + "/tsc16.u16be")
    tsc16(4, n).astype(">u2").tofile(folder + "/tsc16-restart.u16be")


def read(path, fmt):
    if fmt == "text":
        with open(path) as f:
            return np.array([int(line.strip(), 0) for line in f], dtype=np.uint64)
    dtype = {"u8": "u1", "u16le": "<u2", "u16be": ">u2", "u32le": "<u4", "u32be": ">u4"}[fmt]
    return np.fromfile(path, dtype=dtype).astype(np.uint64)


def pack(values, mask):
    out = np.zeros(len(values), dtype=np.uint64)
    at = 0
    for b in range(32):
        if (mask >> b) & 1:
            out |= ((values >> np.uint64(b)) & np.uint64(1)) << np.uint64(at)
            at += 1
    return out.astype(np.uint8)


def bins(values, b):
    distinct, counts = np.unique(values, return_counts=True)
    left, nbins, lower, i = len(values), 1 << b, [], 0
    while i < len(distinct):
        lower.append(int(distinct[i]))
        target = left / nbins
        take = int(counts[i])
        i += 1
        while i < len(distinct) and (nbins == 1 or (len(distinct) - i > nbins - 1 and take + counts[i] / 2 <= target)):
            take += int(counts[i])
            i += 1
        left -= take
        nbins -= 1
    return (np.searchsorted(np.array(lower, dtype=np.uint64), values, side="right") - 1).astype(np.uint8)


def main(argv):
    if len(argv) == 3 and argv[1] == "generate":
        generate(argv[2])
    elif len(argv) == 6 and argv[1] == "pack":
        pack(read(argv[2], argv[3]), int(argv[4], 0)).tofile(argv[5])
    elif len(argv) == 6 and argv[1] == "bin":
        bins(read(argv[2], argv[3]), int(argv[4])).tofile(argv[5])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
