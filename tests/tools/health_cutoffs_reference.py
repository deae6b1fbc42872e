#!/usr/bin/env python3
"""SP 800-90B 4.4's health-test cutoffs computed a second way, for tests/tools/health-cutoffs.json.

src/health/health.cpp sums binomial tails from the top (GMP integers for a whole H, 512-bit
MPFR otherwise) and decides each cutoff by the tail. This script follows the formulas as
SP 800-90B writes them instead: CRITBINOM(n, p, 1 - alpha) as the smallest k whose CDF,
summed from k = 0 up, reaches 1 - alpha, with Python's Fraction (exact) for a whole H and
mpmath at 300 digits otherwise; the RCT's ceil(-log2(alpha)/H) with Fraction where alpha is a
power of two. H and alpha are the decimals written in the cases.

  health_cutoffs_reference.py            print the table (JSON)
  health_cutoffs_reference.py --check F  exit 1 unless F holds the same table
"""
import json
import math
import sys
from fractions import Fraction

import mpmath

mpmath.mp.dps = 300

# (H, alpha as written, binary): SP 800-90B Table 2 (W = 512, alpha = 2^-20), the binary
# window (W = 1024), the recommended range's ends, a decimal alpha, a boundary of the RCT's
# ceiling (H = 0.3, alpha = 2^-30: -log2(alpha)/H = 100), and a claim so low that the APT
# cannot fail (C = W + 1).
CASES = [
    ("0.5", "2^-20", False), ("1", "2^-20", False), ("2", "2^-20", False), ("4", "2^-20", False),
    ("8", "2^-20", False),
    ("0.5", "2^-20", True), ("1", "2^-20", True), ("0.1", "2^-20", True), ("0.9", "2^-40", True),
    ("1", "2^-40", False), ("8", "2^-40", False), ("3.5", "1e-6", False), ("0.3", "2^-30", False),
    ("6", "0.001", False), ("0.01", "2^-20", False),
]


def alpha_value(text):
    if text.startswith("2^-"):
        return Fraction(1, 2 ** int(text[3:]))
    return Fraction(text)


def power_of_two_exponent(a):
    if a.numerator == 1 and a.denominator & (a.denominator - 1) == 0:
        return a.denominator.bit_length() - 1
    return None


def to_float(x):
    return float(x) if isinstance(x, Fraction) else float(mpmath.nstr(x, 30))


def pmf_list(n, h):
    """The probabilities of Bin(n, 2^-h), k = 0..n: Fractions for a whole h, else mpmath."""
    if h.denominator == 1:
        p = Fraction(1, 2 ** h.numerator)
        return [math.comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)]
    p = mpmath.power(2, -mpmath.mpf(h.numerator) / h.denominator)
    return [mpmath.binomial(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)]


def critbinom(pmf, alpha):
    """The smallest k with P(X <= k) >= 1 - alpha (len(pmf) when none)."""
    target = 1 - alpha if isinstance(pmf[0], Fraction) else 1 - mpmath.mpf(alpha.numerator) / alpha.denominator
    cdf = 0
    for k, v in enumerate(pmf):
        cdf += v
        if cdf >= target:
            return k
    return len(pmf)


def upper(pmf, c):
    """P(X >= c)."""
    return sum(pmf[c:], Fraction(0) if isinstance(pmf[0], Fraction) else mpmath.mpf(0))


def rct_cutoff(h, alpha):
    n = power_of_two_exponent(alpha)
    if n is not None:
        x = Fraction(n) / h
        return 1 + -((-x.numerator) // x.denominator)
    x = -mpmath.log(mpmath.mpf(alpha.numerator) / alpha.denominator, 2) / (mpmath.mpf(h.numerator) / h.denominator)
    return 1 + int(mpmath.ceil(x))


def case(h_text, alpha_text, binary):
    h, alpha = Fraction(h_text), alpha_value(alpha_text)
    w = 1024 if binary else 512
    c = rct_cutoff(h, alpha)
    rct = {"cutoff": c,
           "falsePositive": to_float(mpmath.power(2, -mpmath.mpf(h.numerator) / h.denominator * (c - 1))),
           "detectHalfEntropy": to_float(mpmath.power(2, -mpmath.mpf(h.numerator) / h.denominator / 2 * (c - 1)))}
    whole, first = pmf_list(w, h), pmf_list(w - 1, h)
    cutoff = 1 + critbinom(whole, alpha)
    corrected = 2 + critbinom(first, alpha)
    apt = {"window": w, "cutoff": cutoff,
           "falsePositive": to_float(upper(whole, cutoff)),
           "falsePositiveFirstCounted": to_float(upper(first, cutoff - 1)),
           "cutoffCorrected": corrected,
           "falsePositiveCorrected": to_float(upper(first, corrected - 1)),
           "detectHalfEntropy": to_float(upper(pmf_list(w, h / 2), cutoff))}
    return {"h": h_text, "alpha": alpha_text, "binary": binary, "rct": rct, "apt": apt}


def main():
    table = {"about": "SP 800-90B 4.4 cutoffs computed by tests/tools/health_cutoffs_reference.py "
                      "(Fraction/mpmath, CDF summed upward); tests/unit/test_health.cpp checks "
                      "src/health against them, ctest unit/health-cutoffs-reference that the script "
                      "still gives them.",
             "cases": [case(*c) for c in CASES]}
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        with open(sys.argv[2]) as f:
            kept = json.load(f)
        if kept != table:
            print("health-cutoffs.json differs from the script's table:")
            for a, b in zip(kept["cases"], table["cases"]):
                if a != b:
                    print(" kept ", json.dumps(a), "\n now  ", json.dumps(b))
            return 1
        print("health cutoffs reference: %d cases equal" % len(table["cases"]))
        return 0
    print(json.dumps(table, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
