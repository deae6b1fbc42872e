#!/usr/bin/env python3
"""Derives NIST ea_iid 1.1.7's text at its levels 0 (-q), 1 (default) and 4 (-v -v -v) from
its own -v and -v -v outputs (testdata/golden/nist-ea_iid-1.1.7/verbosity/), by NIST's print
statements (iid_main.cpp, most_common.h, chi_square_tests.h, lrs_test.h, permutation_tests.h):

- level 1 prints, of its -v lines: the "< 1000000 samples" warning (every level), "Calculating
  baseline statistics...", H_original, H_bitstring, min(...) or h', and the three "** ..." lines
  with the blank line after each;
- level 0 (-q) the warning only;
- level 4 (-v -v -v) everything of -v -v but the "Most Common Value Estimate" lines (most_common
  prints at levels 2 and 3 only; every other -v -v line is printed for verbose > 2 or >= 3).

usage: derive.py VERBOSITY_DIR OUT_DIR (run once; the outputs are committed)."""
import re
import sys

src, out = sys.argv[1], sys.argv[2]
for name in ['rand1_short', 'rand4_short', 'rand8_short']:
    v = open(f'{src}/{name}.v.txt').read().split('\n')[:-1]
    default, quiet = [], []
    i = 0
    while i < len(v):
        line = v[i]
        if line.startswith('*** Warning: data contains less than'):
            default += ['', line, '']
            quiet += ['', line, '']
            i += 2
            continue
        if line == 'Calculating baseline statistics...' or re.match(r"^(H_original: |H_bitstring: |min\(H_original, |h': )", line):
            default.append(line)
        if line.startswith('** '):
            default += [line, '']
            i += 2
            continue
        i += 1
    open(f'{out}/{name}.default.txt', 'w').write('\n'.join(default) + '\n')
    open(f'{out}/{name}.q.txt', 'w').write('\n'.join(quiet) + '\n')
    vv = open(f'{src}/{name}.vv.txt').read()
    open(f'{out}/{name}.vvv.txt', 'w').write(''.join(l for l in vv.splitlines(True) if 'Most Common Value Estimate' not in l))
