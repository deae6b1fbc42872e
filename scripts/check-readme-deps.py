#!/usr/bin/env python3
"""Checks that README.md's install line names every package the build and the tests need.

  scripts/check-readme-deps.py [SOURCE_DIR]
  scripts/check-readme-deps.py --self-test

The install line is the `apt-get install` of the README's first ```sh block. Needed are:
- every find_package, find_path and find_library call marked REQUIRED in a CMakeLists.txt
  (any folder but build*/) or cmake/*.cmake, mapped to its Debian package by PACKAGES,
  FILES and LIBRARIES below;
- every module the Python tests import (tests/python/*.py, tests/tools/*.py and the worked
  example of docs/python.md that tests/python/test_docs_example.py runs) that is not in
  Python's standard library, mapped by PYTHON_MODULES.
Exits 1, naming each one, when a needed package is missing from the line or a REQUIRED
dependency or module is not in these tables (add its Debian package to the table and the
README), else 0.
"""

import os
import re
import sys

# find_package(NAME ...) -> the Debian package that provides it (None: nothing to install).
PACKAGES = {
    "OpenMP": "g++",  # libgomp comes with g++
    "Threads": None,  # the C library
    "BZip2": "libbz2-dev",
    "OpenSSL": "libssl-dev",
    "CLI11": "libcli11-dev",
    "nlohmann_json": "nlohmann-json3-dev",
    "spdlog": "libspdlog-dev",
    "doctest": "doctest-dev",
    "Python3": "python3-dev",
    "pybind11": "pybind11-dev",
    "ea_iid": None,  # this project's own package (tests/api/consumer finds the installed one)
}
# find_path(VAR NAME ...) -> package.
FILES = {
    "Random123/philox.h": "librandom123-dev",
    "divsufsort.h": "libdivsufsort-dev",
    "mpfr.h": "libmpfr-dev",
}
# find_library(VAR NAME ...) -> package.
LIBRARIES = {
    "divsufsort": "libdivsufsort-dev",
    "mpfr": "libmpfr-dev",
    "gmp": "libgmp-dev",
}
# A module the Python tests import -> package (None: this project's own).
PYTHON_MODULES = {
    "numpy": "python3-numpy",
    "pytest": "python3-pytest",
    "matplotlib": "python3-matplotlib",
    "mpmath": "python3-mpmath",
    "ea_iid": None,
}
# Keywords of find_path/find_library that end the list of names.
FIND_KEYWORDS = {"NAMES", "HINTS", "PATHS", "PATH_SUFFIXES", "DOC", "REQUIRED", "NO_DEFAULT_PATH",
                 "NO_CACHE", "NAMES_PER_DIR", "ENV", "NO_CMAKE_PATH", "NO_SYSTEM_ENVIRONMENT_PATH"}


def cmake_calls(text, commands=("find_package", "find_path", "find_library")):
    """Yields (command, [arguments]) for each call of those commands in CMake text."""
    text = re.sub(r"#[^\n]*", "", text)  # comments (no '#' inside quoted arguments here)
    for m in re.finditer(r"\b(%s)\s*\(" % "|".join(commands), text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        yield m.group(1), text[m.end():i - 1].replace('"', "").split()


def required_packages(text):
    """[(what, package or None, known)] for each REQUIRED find_* call of a CMake text."""
    out = []
    for command, args in cmake_calls(text):
        if "REQUIRED" not in args or not args:
            continue
        if command == "find_package":
            name, table = args[0], PACKAGES
        else:
            names = args[2:] if len(args) > 1 and args[1] == "NAMES" else args[1:]
            name = next((a for a in names if a not in FIND_KEYWORDS), "")
            table = FILES if command == "find_path" else LIBRARIES
        out.append(("%s(%s)" % (command, name), table.get(name), name in table))
    return out


def python_imports(text):
    """Top-level module names imported by Python source text."""
    names = set()
    for m in re.finditer(r"^\s*(?:import|from)\s+([A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*)", text, re.M):
        for part in m.group(1).split(","):
            names.add(part.strip().split(".")[0].split()[0])
    return names


def third_party(modules, local=()):
    return sorted(m for m in modules if m not in sys.stdlib_module_names and m not in local and m != "__future__")


def install_line(readme):
    """The packages of the apt-get install in the README's first ```sh block, or None."""
    block = re.search(r"```sh\n(.*?)```", readme, re.S)
    if not block:
        return None
    m = re.search(r"apt-get install((?:\s+[^&;|\s]+)+)", block.group(1))
    if not m:
        return None
    return {w for w in m.group(1).split() if not w.startswith("-")}


def problems(cmake_texts, python_texts, readme, local_modules=()):
    """The messages for what the README's install line lacks. cmake_texts and python_texts:
    [(path, text)]."""
    line = install_line(readme)
    if line is None:
        return ["README.md: no `apt-get install` in its first ```sh block"]
    out = []
    for path, text in cmake_texts:
        for what, package, known in required_packages(text):
            if not known:
                out.append("%s: %s REQUIRED is not in scripts/check-readme-deps.py's tables: add its "
                           "Debian package there and to README.md's install line" % (path, what))
            elif package and package not in line:
                out.append("%s: %s REQUIRED needs %s, missing from README.md's install line" % (path, what, package))
    for path, text in python_texts:
        for module in third_party(python_imports(text), local_modules):
            if module not in PYTHON_MODULES:
                out.append("%s: imports %s, not in scripts/check-readme-deps.py's PYTHON_MODULES: add its "
                           "Debian package there and to README.md's install line" % (path, module))
            elif PYTHON_MODULES[module] and PYTHON_MODULES[module] not in line:
                out.append("%s: imports %s, needs %s, missing from README.md's install line"
                           % (path, module, PYTHON_MODULES[module]))
    return out


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def gather(root):
    cmake, python = [], []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and not (rel == "." and
                             (d.startswith("build") or d in ("Testing", "testdata"))))
        for f in sorted(filenames):
            if f == "CMakeLists.txt" or (os.path.basename(dirpath) == "cmake" and f.endswith(".cmake")):
                path = os.path.join(dirpath, f)
                cmake.append((os.path.relpath(path, root), read(path)))
    local = set()
    for folder in ("tests/python", "tests/tools"):
        full = os.path.join(root, folder)
        for f in sorted(os.listdir(full)) if os.path.isdir(full) else []:
            if f.endswith(".py"):
                local.add(f[:-3])
                python.append((os.path.join(folder, f), read(os.path.join(full, f))))
    doc = os.path.join(root, "docs", "python.md")
    if os.path.exists(doc):
        blocks = re.findall(r"```python\n(.*?)```", read(doc), re.S)
        python.append(("docs/python.md", "\n".join(blocks)))
    return cmake, python, local


def self_test():
    readme = "# x\n\n```sh\napt-get update && apt-get install -y g++ libbz2-dev python3-numpy && cmake ..\n```\n"
    cases = [
        ("a REQUIRED package on the line passes", [("c", "find_package(BZip2 REQUIRED)\nfind_package(Threads REQUIRED)")],
         [("t.py", "import numpy as np\nimport os, json\n")], 0),
        ("a REQUIRED package missing from the line fails", [("c", "find_package(spdlog REQUIRED)")], [], 1),
        ("a REQUIRED find_library missing fails", [("c", "find_library(GMP_LIBRARY gmp REQUIRED)")], [], 1),
        ("a REQUIRED find_path over lines, missing, fails",
         [("c", "find_path(MPFR_INCLUDE_DIR\n  mpfr.h PATH_SUFFIXES x86_64-linux-gnu\n  REQUIRED)")], [], 1),
        ("a package not REQUIRED (or in a comment) is not needed",
         [("c", "find_package(Git QUIET)\n# find_package(spdlog REQUIRED)")], [], 0),
        ("a REQUIRED package the tables do not know fails", [("c", "find_package(Boost REQUIRED)")], [], 1),
        ("a Python test module missing from the line fails", [], [("t.py", "import pytest\n")], 1),
        ("a Python module the tables do not know fails", [], [("t.py", "from scipy import stats\n")], 1),
        ("the tests' own helper modules are not packages", [], [("t.py", "import cli_helpers\n")], 0),
    ]
    failed = 0
    for title, cmake, python, want in cases:
        got = problems(cmake, python, readme, {"cli_helpers"})
        ok = len(got) == want
        failed += not ok
        print("%s  %s" % ("ok  " if ok else "FAIL", title))
        if not ok:
            print("      got %s" % got)
    ok = problems([], [], "no block") != []
    failed += not ok
    print("%s  a README without the install line fails" % ("ok  " if ok else "FAIL"))
    return 1 if failed else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) > 2 or (len(sys.argv) == 2 and sys.argv[1].startswith("-")):
        sys.exit("usage: scripts/check-readme-deps.py [SOURCE_DIR] | --self-test")
    root = sys.argv[1] if len(sys.argv) == 2 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    cmake, python, local = gather(root)
    found = problems(cmake, python, read(os.path.join(root, "README.md")), local)
    for p in found:
        print(p)
    if not found:
        print("README.md's install line has every REQUIRED package of %d CMake files and every module of %d "
              "Python test files" % (len(cmake), len(python)))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
