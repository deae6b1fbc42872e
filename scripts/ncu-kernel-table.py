#!/usr/bin/env python3
"""Each kernel's GPU time from Nsight Compute's per-kernel summary, largest first.

  ncu --metrics gpu__time_duration.sum --print-summary per-kernel EXE ARGS > ncu.txt
  scripts/ncu-kernel-table.py ncu.txt [--rounds N] [--top K]
  scripts/ncu-kernel-table.py --self-test

A kernel's rows (one per launch shape) are summed: invocations x average duration. CUB's
templated kernels are named by their CUB function (DeviceRadixSortOnesweepKernel, ...), the
project's by their own name. --rounds N adds the time a round (the total / N, an estimate:
the run's other kernels and short rounds count too); for the GPU bzip2 model, a full-counts
run of --iterations 340 on an H200 has 18 full rounds of 17 texts (session 44's per-kernel
figures in docs/performance-history.md are this reading of such a run).
"""
import argparse
import re
import sys
from collections import Counter

HEADER = re.compile(r"^  (\S.*?)\((.*)\) \((\d+), (\d+), (\d+)\)x\((\d+), (\d+), (\d+)\).*Invocations (\d+)")
METRIC = re.compile(r"^\s+gpu__time_duration\.sum\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)")
UNIT_US = {"ns": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3, "s": 1e6, "second": 1e6}


def short_name(full):
    """The kernel's own name: CUB's function name, or the last :: part without templates."""
    cub = re.search(r"(Device\w+Kernel)", full)
    if cub:
        return cub.group(1)
    name = re.sub(r"<.*", "", full.replace("<unnamed>", "(anonymous)"))
    return name.split("::")[-1].strip() or full


def read_table(lines):
    """{name: (microseconds, invocations)} from ncu's per-kernel summary."""
    total, calls = Counter(), Counter()
    name, count = None, 0
    for line in lines:
        m = HEADER.match(line)
        if m:
            name, count = short_name(m.group(1)), int(m.group(9))
            continue
        m = METRIC.match(line)
        if m and name:
            unit, average = m.group(1), float(m.group(4).replace(",", ""))
            if unit not in UNIT_US:
                raise ValueError(f"unknown unit {unit!r} in: {line.strip()}")
            total[name] += average * UNIT_US[unit] * count
            calls[name] += count
            name = None
    return {k: (total[k], calls[k]) for k in total}


def print_table(table, rounds, top, out):
    grand = sum(us for us, _ in table.values())
    if grand == 0:
        print("no kernel times found (was ncu run with --print-summary per-kernel?)", file=out)
        return 1
    rows = sorted(table.items(), key=lambda kv: -kv[1][0])[:top]
    for name, (us, calls) in rows:
        per = f"  {us / rounds / 1000:7.3f} ms a round" if rounds else ""
        print(f"{us / 1000:9.2f} ms {100 * us / grand:5.1f}%  {calls:6d} launches{per}  {name}", file=out)
    print(f"{grand / 1000:9.2f} ms in all" + (f", {grand / rounds / 1000:.3f} ms a round" if rounds else ""), file=out)
    return 0


def self_test():
    sample = """==PROF== Disconnected from process 1
  gpubz::<unnamed>::places_kernel(const unsigned char *, X) (16, 153, 1)x(64, 1, 1), Device 0, CC 9.0, Invocations 2
    Section: Command line profiler metrics
    gpu__time_duration.sum          us  600.00  640.00  620.00
  void cub::CUB_300001_SM_900::detail::radix_sort::DeviceRadixSortOnesweepKernel<A, B>(C) (2952, 1, 1)x(384, 1, 1), Device 0, CC 9.0, Invocations 6
    gpu__time_duration.sum          us  190.00  200.00  195.00
  void cub::CUB_300001_SM_900::detail::radix_sort::DeviceRadixSortOnesweepKernel<A, B>(C) (5773, 1, 1)x(384, 1, 1), Device 0, CC 9.0, Invocations 1
    gpu__time_duration.sum          ms    0.37    0.37    0.37
  gpubz::<unnamed>::split_kernel(const unsigned char *) (1, 1, 1)x(64, 1, 1), Device 0, CC 9.0, Invocations 3
    gpu__time_duration.sum          ns 7,000.00 8,000.00 7,500.00
""".splitlines()
    t = read_table(sample)
    want = {"places_kernel": (1240.0, 2), "DeviceRadixSortOnesweepKernel": (1540.0, 7), "split_kernel": (22.5, 3)}
    ok = set(t) == set(want) and all(abs(t[k][0] - want[k][0]) < 1e-6 and t[k][1] == want[k][1] for k in want)
    print("ncu-kernel-table self-test:", "passed" if ok else f"FAILED: {t}")
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?")
    ap.add_argument("--rounds", type=int, default=0, help="divide by this many rounds")
    ap.add_argument("--top", type=int, default=40)
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    if not a.file:
        ap.error("give ncu's output file (or --self-test)")
    try:
        with open(a.file, encoding="utf-8", errors="replace") as f:
            table = read_table(f)
    except OSError as e:
        print(f"ncu-kernel-table: cannot read {a.file}: {e.strerror}", file=sys.stderr)
        return 2
    return print_table(table, a.rounds, a.top, sys.stdout)


if __name__ == "__main__":
    sys.exit(main())
