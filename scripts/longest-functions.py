#!/usr/bin/env python3
"""Lists the longest function bodies in the C++/CUDA sources (*.cpp, *.hpp, *.cu, *.cuh).

  scripts/longest-functions.py [--top N] [--max LINES [--allow FILE]] [DIR ...]
  scripts/longest-functions.py --self-test

Prints the N longest functions (default 10) as `LINES  FILE:LINE  NAME`, longest first.
DIRs (or single files) default to every source folder, those that exist, under the
repository root (this script's parent folder): src cuda pipeline report api cli python
include tests. A relative DIR is looked up from the current folder first, then from the root.
With --max LINES it also lists every function longer than LINES and exits 1 if there is one,
else 0.

--allow FILE (with --max) names the functions that may stay longer than LINES, one a line:
`PATH  NAME  LINES  reason` (PATH from the repository root, NAME as this script prints it,
LINES the most it may have; `#` starts a comment). The run still exits 1 for an entry that
has gone stale, so the list cannot rot: its PATH no longer exists, no function NAME is in
it, NAME is now LINES (of --max) or shorter (take the entry out), or NAME has grown past the
entry's own LINES. An entry whose PATH is not among the files read is not judged.

Line rule: LINES = line of the closing `}` - line of the signature's first token + 1, where the
signature is every token since the previous `;`, `{`, `}` or access specifier at that scope
(so a `template <...>` line counts, comments and preprocessor lines before it do not).
FILE:LINE names that first line.

What counts as a function: a `{` at file/namespace/extern "C"/class/struct/union scope whose
signature ends in `)`, optionally followed by qualifiers (const, noexcept(...), override,
final, mutable, &, &&, [[...]], __attribute__((...))), a trailing `-> type` and/or a member
initializer list `: a_(x), b_{y}`, and whose `(` follows a name (`f`, `A::f`, `~A`, `f<T>`,
`operator()`, `operator==`, ...) rather than a keyword (if, for, while, switch, catch, ...)
or a lambda's `]`. Lambdas and local classes inside a function count toward that function.
The lexer skips comments, string and char literals (raw strings too) and preprocessor lines
(with continuations); both branches of an #if are read, as the compiler never does.
"""

import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DIRS = ["src", "cuda", "pipeline", "report", "api", "cli", "python", "include", "tests"]
EXTENSIONS = (".cpp", ".hpp", ".cu", ".cuh")

IDENT_RE = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
RAW_PREFIXES = {"R", "LR", "uR", "UR", "u8R"}
# Tokens that may follow a function's parameter list before its body (or a trailing type).
QUALIFIERS = {"const", "volatile", "noexcept", "override", "final", "mutable", "&", "&&", "try"}
PAREN_QUALIFIERS = {"noexcept", "throw", "__attribute__", "__declspec", "__launch_bounds__"}
# Words whose `( ... )` is not a parameter list.
NOT_NAMES = {
    "if", "for", "while", "switch", "catch", "return", "sizeof", "alignof", "alignas", "decltype",
    "__attribute__", "__declspec", "__align__", "__launch_bounds__", "noexcept", "throw",
    "static_assert", "typeid", "requires", "new", "delete", "do", "else", "case",
}
ACCESS = {"public", "private", "protected"}
OPEN = {"(": ")", "[": "]", "{": "}"}


class Tok:
    __slots__ = ("text", "line")

    def __init__(self, text, line):
        self.text = text
        self.line = line

    def __repr__(self):
        return "%s@%d" % (self.text, self.line)


def lex(src):
    """Yields Tok for identifiers, numbers, punctuation and literals (a literal is one token
    "STR" or "CHR"); skips whitespace, comments and preprocessor lines."""
    i, n, line = 0, len(src), 1
    line_start = True  # only whitespace (or comments) since the last newline
    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            line_start = True
            i += 1
            continue
        if c in " \t\r\f\v":
            i += 1
            continue
        if c == "\\" and src.startswith("\n", i + 1):  # stray line continuation
            i += 2
            line += 1
            continue
        if src.startswith("//", i):
            while i < n and src[i] != "\n":
                if src[i] == "\\" and src.startswith("\n", i + 1):  # continued comment
                    line += 1
                    i += 1
                i += 1
            continue
        if src.startswith("/*", i):
            end = src.find("*/", i + 2)
            end = n if end < 0 else end + 2
            line += src.count("\n", i, end)
            i = end
            continue
        if c == "#" and line_start:
            i += 1
            while i < n and src[i] != "\n":
                if src[i] == "\\" and src.startswith("\n", i + 1):
                    line += 1
                    i += 2
                elif src.startswith("/*", i):
                    end = src.find("*/", i + 2)
                    end = n if end < 0 else end + 2
                    line += src.count("\n", i, end)
                    i = end
                elif src.startswith("//", i):
                    while i < n and src[i] != "\n":
                        i += 1
                elif src[i] in "\"'":  # quoted text, never past the end of the line
                    q = src[i]
                    i += 1
                    while i < n and src[i] not in (q, "\n"):
                        i += 2 if src[i] == "\\" and src[i + 1 : i + 2] != "\n" else 1
                    if i < n and src[i] == q:
                        i += 1
                else:
                    i += 1
            continue
        line_start = False
        m = IDENT_RE.match(src, i)
        if m:
            word = m.group()
            i = m.end()
            if word in RAW_PREFIXES and src.startswith('"', i):
                open_paren = src.find("(", i + 1)
                delim = src[i + 1 : open_paren] if open_paren >= 0 else ""
                close = src.find(")" + delim + '"', open_paren + 1) if open_paren >= 0 else -1
                end = n if close < 0 else close + len(delim) + 2
                yield Tok("STR", line)
                line += src.count("\n", i, end)
                i = end
                continue
            yield Tok(word, line)
            continue
        if c.isdigit() or (c == "." and src[i + 1 : i + 2].isdigit()):
            j = i + 1
            while j < n:
                d = src[j]
                if d.isalnum() or d in "_.":
                    j += 1
                elif d == "'" and src[j + 1 : j + 2].isalnum():  # digit separator
                    j += 2
                elif d in "+-" and src[j - 1] in "eEpP":  # exponent sign (a pp-number)
                    j += 1
                else:
                    break
            yield Tok("NUM", line)
            i = j
            continue
        if c in "\"'":
            start_line = line
            j = i + 1
            while j < n and src[j] != c:
                if src[j] == "\\":
                    if src.startswith("\n", j + 1):
                        line += 1
                    j += 2
                elif src[j] == "\n":  # unterminated; stop at the end of the line
                    break
                else:
                    j += 1
            yield Tok("STR" if c == '"' else "CHR", start_line)
            i = j + 1 if j < n and src[j] == c else j
            continue
        for p in ("...", "::", "->", "&&"):
            if src.startswith(p, i):
                yield Tok(p, line)
                i += len(p)
                break
        else:
            yield Tok(c, line)
            i += 1


def is_ident(t):
    return bool(IDENT_RE.fullmatch(t)) and t not in ("STR", "CHR", "NUM")


def match_back(toks, j, close, open_):
    """Index of the `open_` that matches the `close` at toks[j], or -1."""
    depth = 0
    while j >= 0:
        t = toks[j].text
        if t == close:
            depth += 1
        elif t == open_:
            depth -= 1
            if depth == 0:
                return j
        j -= 1
    return -1


def skip_template_back(toks, j):
    """toks[j] is `>`: index of the matching `<` (skipping bracketed groups), or -1."""
    depth = 0
    while j >= 0:
        t = toks[j].text
        if t in (")", "]"):
            j = match_back(toks, j, t, "(" if t == ")" else "[")
            if j < 0:
                return -1
        elif t == ">":
            depth += 1
        elif t == "<":
            depth -= 1
            if depth == 0:
                return j
        elif t in (";", "{", "}"):
            return -1
        j -= 1
    return -1


def strip_qualifiers(toks, end):
    """Index just past the last token of toks[:end] that is not a trailing qualifier."""
    while end > 0:
        t = toks[end - 1].text
        if t in QUALIFIERS:
            end -= 1
        elif t == ")":
            k = match_back(toks, end - 1, ")", "(")
            if k > 0 and toks[k - 1].text in PAREN_QUALIFIERS:
                end = k - 1
            elif k > 0 and toks[k - 1].text == "(" and k > 1 and toks[k - 2].text == "__attribute__":
                end = k - 2
            else:
                return end
        elif t == "]" and end >= 2 and toks[end - 2].text == "]":  # [[attribute]]
            k = match_back(toks, end - 1, "]", "[")
            if k <= 0:
                return end
            end = k
        else:
            return end
    return end


def top_level(toks):
    """Yields (index, tok) for tokens outside any (), [] or {} group of toks."""
    depth = 0
    for i, t in enumerate(toks):
        if t.text in ("(", "[", "{"):
            depth += 1
        elif t.text in (")", "]", "}"):
            depth -= 1
        elif depth == 0:
            yield i, t


def init_list_colon(toks):
    """Index of the `:` that starts a constructor's member-initializer list, or -1."""
    for i, t in top_level(toks):
        if t.text == ":":
            k = strip_qualifiers(toks, i)
            if k > 0 and toks[k - 1].text == ")":
                return i
    return -1


def function_name(toks):
    """Name of the function whose signature is toks (the tokens before a `{`), or None."""
    end = len(toks)
    colon = init_list_colon(toks)
    if colon >= 0:
        end = colon
    for i, t in top_level(toks[:end]):
        if t.text == "->":  # trailing return type
            k = strip_qualifiers(toks, i)
            if k > 0 and toks[k - 1].text == ")":
                end = i
                break
    end = strip_qualifiers(toks, end)
    if end == 0 or toks[end - 1].text != ")":
        return None
    p = match_back(toks, end - 1, ")", "(")
    if p <= 0:
        return None
    j = p - 1
    name = None
    # operator(), operator==, operator bool, operator new[], operator const char*, ...
    for k in range(j, max(-1, p - 7), -1):
        if toks[k].text == "operator":
            parts = [t.text for t in toks[k + 1 : p]]
            if not parts:
                return None
            text = "operator"
            for part in parts:
                text += (" " if is_ident(part) and is_ident(text[-1]) else "") + part
            name, j = text, k
            break
        if toks[k].text in (";", "{", "}"):
            break
    if name is None:
        if toks[j].text == ">":
            j = skip_template_back(toks, j) - 1
            if j < 0:
                return None
        t = toks[j].text
        if not is_ident(t) or t in NOT_NAMES:
            return None
        name = t
        if j > 0 and toks[j - 1].text == "~":
            name, j = "~" + name, j - 1
    while j >= 2 and toks[j - 1].text == "::":
        k = j - 2
        if toks[k].text == ">":
            k = skip_template_back(toks, k) - 1
            if k < 0:
                break
        if not is_ident(toks[k].text):
            break
        name, j = toks[k].text + "::" + name, k
    return name


def scope_kind(toks):
    """What a `{` opens at file/namespace/class scope: ('func', name), ('scope', None) for
    namespace, extern "C" and class bodies, or ('other', None)."""
    name = function_name(toks)
    if name is not None:
        return "func", name
    words = [t.text for t in toks]
    if "enum" in words:
        return "other", None
    if "namespace" in words or words[:2] == ["extern", "STR"]:
        return "scope", None
    if any(w in ("class", "struct", "union") for w in words):
        return "scope", None
    return "other", None


class Frame:
    __slots__ = ("kind", "name", "start", "stmt", "depth")

    def __init__(self, kind, name=None, start=0):
        self.kind = kind  # 'scope', 'func', 'other' or 'group'
        self.name = name
        self.start = start
        self.stmt = []  # 'scope' only: the tokens since the last ; { } or access specifier
        self.depth = 0  # 'scope' only: ( and [ nesting within stmt


def find_functions(src):
    """Returns [(name, first_line, last_line)] for the function bodies in src, in order."""
    out = []
    stack = [Frame("scope")]
    for tok in lex(src):
        top = stack[-1]
        t = tok.text
        if top.kind != "scope":
            if t == "{":
                stack.append(Frame("inner"))
            elif t == "}":
                stack.pop()
                if top.kind == "func":
                    out.append((top.name, top.start, tok.line))
                if not stack:  # unbalanced }: start over at file scope
                    stack.append(Frame("scope"))
                elif top.kind == "group":  # a { } inside a signature stands for one token
                    stack[-1].stmt.append(Tok("{}", tok.line))
            continue
        stmt = top.stmt
        if t == "{":
            last = stmt[-1].text if stmt else ""
            in_init_list = init_list_colon(stmt) >= 0 and last not in (")", "{}") and \
                not (last == "..." and len(stmt) > 1 and stmt[-2].text in (")", "{}"))
            if top.depth > 0 or in_init_list:
                stack.append(Frame("group"))
                continue
            kind, name = scope_kind(stmt)
            start = stmt[0].line if stmt else tok.line
            top.stmt, top.depth = [], 0
            stack.append(Frame(kind, name, start))
        elif t == "}":
            top.stmt, top.depth = [], 0
            if len(stack) > 1:
                stack.pop()
        elif t == ";" and top.depth == 0:
            top.stmt = []
        elif t == ":" and len(stmt) == 1 and stmt[0].text in ACCESS:
            top.stmt = []
        else:
            if t in ("(", "["):
                top.depth += 1
            elif t in (")", "]") and top.depth > 0:
                top.depth -= 1
            stmt.append(tok)
    return out


def source_files(paths):
    for path in paths:
        if os.path.isfile(path):
            yield path
            continue
        for dirpath, dirnames, filenames in os.walk(path):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for f in sorted(filenames):
                if f.endswith(EXTENSIONS):
                    yield os.path.join(dirpath, f)


def display(path):
    full = os.path.abspath(path)
    if full.startswith(ROOT + os.sep):
        return os.path.relpath(full, ROOT)
    return path


def resolve(arg):
    if os.path.isabs(arg) or os.path.exists(arg):
        return arg
    under_root = os.path.join(ROOT, arg)
    if os.path.exists(under_root):
        return under_root
    sys.exit("longest-functions: no such file or folder: %s" % arg)


def read_allow_list(path):
    """[(file, name, lines, line_no)] from an allow-list file; exits with a message on a bad line."""
    entries = []
    with open(path, encoding="utf-8") as f:
        for line_no, line in enumerate(f, 1):
            text = line.split("#", 1)[0].strip()
            if not text:
                continue
            parts = text.split(None, 3)
            if len(parts) < 4 or not parts[2].isdigit():
                sys.exit("%s:%d: expected 'PATH  NAME  LINES  reason'" % (path, line_no))
            entries.append((os.path.normpath(parts[0]), parts[1], int(parts[2]), line_no))
    return entries


def judge(found, entries, max_lines, read_files, exists=os.path.exists):
    """The functions over max_lines that no entry allows, and the stale entries as
    (line_no, why). found: [(lines, file, first_line, name)] with files as display() gives
    them; read_files: the set of those files that were read; exists(file): whether a file
    (from the repository root) is still there."""
    over = []
    for row in found:
        lines, path, _, name = row
        if lines <= max_lines:
            continue
        if not any(e[0] == path and e[1] == name for e in entries):
            over.append(row)
    stale = []
    for path, name, cap, line_no in entries:
        if path not in read_files:
            if not exists(path):
                stale.append((line_no, "%s no longer exists" % path))
            continue
        mine = [r[0] for r in found if r[1] == path and r[3] == name]
        if not mine:
            stale.append((line_no, "no function %s in %s" % (name, path)))
        elif max(mine) <= max_lines:
            stale.append((line_no, "%s is %d lines now, within %d: take it off the list" % (name, max(mine), max_lines)))
        elif max(mine) > cap:
            stale.append((line_no, "%s has grown to %d lines, past the %d allowed" % (name, max(mine), cap)))
    return over, stale


def allow_self_test():
    """Cases of judge(): (title, ok)."""
    found = [(172, "cuda/a.cuh", 88, "rounds"), (120, "cli/b.cpp", 5, "run"), (90, "cli/b.cpp", 200, "short"),
             (40, "src/c.cpp", 1, "tiny")]
    files = {"cuda/a.cuh", "cli/b.cpp", "src/c.cpp"}
    on_disk = files | {"tests/gpu/d.cu"}
    exists = on_disk.__contains__
    cases = []

    def case(title, entries, want_over, want_stale):
        over, stale = judge(found, entries, 100, files, exists)
        got = ([r[3] for r in over], [s[0] for s in stale])
        cases.append((title, got == (want_over, want_stale), got))

    case("a long function off the list fails", [("cuda/a.cuh", "rounds", 172, 1)], ["run"], [])
    case("every long function listed passes", [("cuda/a.cuh", "rounds", 172, 1), ("cli/b.cpp", "run", 130, 2)], [], [])
    case("an entry for a function now short is stale",
         [("cuda/a.cuh", "rounds", 172, 1), ("cli/b.cpp", "run", 130, 2), ("cli/b.cpp", "short", 110, 3)], [], [3])
    case("an entry for a function that is gone is stale",
         [("cuda/a.cuh", "rounds", 172, 1), ("cli/b.cpp", "run", 130, 2), ("cli/b.cpp", "gone", 110, 3)], [], [3])
    case("an entry for a file that is gone is stale",
         [("cuda/a.cuh", "rounds", 172, 1), ("cli/b.cpp", "run", 130, 2), ("src/gone.cpp", "f", 110, 3)], [], [3])
    case("an entry for a function that grew past its lines is stale",
         [("cuda/a.cuh", "rounds", 150, 1), ("cli/b.cpp", "run", 130, 2)], [], [1])
    case("an entry for a file not read is not judged",
         [("cuda/a.cuh", "rounds", 172, 1), ("cli/b.cpp", "run", 130, 2), ("tests/gpu/d.cu", "main", 233, 3)], [], [])
    return cases


def self_test():
    cases = [
        ("function with a lambda and braces in literals", r'''
int f(int x) {
  auto g = [&](int y) { return y + x; };   // } in a comment
  const char* s = "}}{ \" }";
  const char* r = R"raw(}})" {)raw";
  char c = '}';
  /* { */
  return g(1);
}
''', [("f", 2, 9)]),
        ("class with an inline member and a ctor with an init list", '''
class Foo : public Bar<int> {
 public:
  Foo(int a) noexcept : Bar<int>{a}, a_(a), b_{a + 1} {
    init();
  }
  int get() const noexcept { return a_; }
 private:
  int a_{0};
  int b_ = 2;
};
''', [("Foo", 4, 6), ("get", 7, 7)]),
        ("struct and enum with no functions", '''
struct P {
  int x;
  int y{3};
  double z[2] = {1, 2};
  union { int i; float f; };
};
enum class E : unsigned { A, B };
static const P table[] = {{1, 2}, {3, 4}};
auto fn = [](int v) -> int { return v; };
''', []),
        ("template function", '''
template <typename T,
          typename = std::enable_if_t<(sizeof(T) > 1)>>
T twice(T v) {
  return v * 2;
}
''', [("twice", 2, 6)]),
        ("if block at function scope", '''
void g(int x) {
  if (x > 0) {
    x = 1;
  } else {
    x = 2;
  }
  for (int i = 0; i < x; ++i) { }
}
''', [("g", 2, 9)]),
        ("namespaces, extern C, qualified names, operators, preprocessor", r'''
#define OPEN { \
  {
namespace ea { namespace {
extern "C" __global__ void kernel(int* p) { p[0] = 1; }
}  // namespace
void DeviceSlot::bind(int d) {
}
DeviceSlot::~DeviceSlot() {}
struct Less {
  bool operator()(int a, int b) const { return a < b; }
  Less& operator=(const Less&) = default;
  auto size() const -> decltype(sizeof(int)) { return 4; }
};
}
''', [("kernel", 5, 5), ("DeviceSlot::bind", 7, 8), ("DeviceSlot::~DeviceSlot", 9, 9),
      ("operator()", 11, 11), ("size", 13, 13)]),
    ]
    failed = 0
    for title, src, want in cases:
        got = find_functions(src)
        ok = got == want
        failed += not ok
        print("%s  %s" % ("ok  " if ok else "FAIL", title))
        if not ok:
            print("      want %s\n      got  %s" % (want, got))
    for title, ok, got in allow_self_test():
        failed += not ok
        print("%s  allow list: %s" % ("ok  " if ok else "FAIL", title))
        if not ok:
            print("      got (over, stale lines) %s" % (got,))
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description="Lists the longest C++/CUDA function bodies.")
    ap.add_argument("--top", type=int, default=10, metavar="N", help="how many to list (10)")
    ap.add_argument("--max", type=int, metavar="LINES",
                    help="also list every function longer than LINES; exit 1 if any")
    ap.add_argument("--allow", metavar="FILE",
                    help="with --max: the functions allowed to stay longer (PATH NAME LINES reason)")
    ap.add_argument("--self-test", action="store_true", help="check the parser and exit")
    ap.add_argument("dirs", nargs="*", metavar="DIR")
    args = ap.parse_args()
    if args.self_test:
        return self_test()
    if args.dirs:
        paths = [resolve(d) for d in args.dirs]
    else:
        paths = [os.path.join(ROOT, d) for d in DEFAULT_DIRS if os.path.isdir(os.path.join(ROOT, d))]
    if args.allow and args.max is None:
        ap.error("--allow needs --max")
    found, read_files = [], set()
    for path in source_files(paths):
        with open(path, encoding="utf-8", errors="replace") as f:
            src = f.read()
        read_files.add(display(path))
        for name, first, last in find_functions(src):
            found.append((last - first + 1, display(path), first, name))
    found.sort(key=lambda r: (-r[0], r[1], r[2]))

    def show(rows):
        for lines, path, first, name in rows:
            print("%5d  %s:%d  %s" % (lines, path, first, name))

    show(found[: max(args.top, 0)])
    if args.max is None:
        return 0
    entries = read_allow_list(resolve(args.allow)) if args.allow else []
    over, stale = judge(found, entries, args.max, read_files, lambda p: os.path.exists(os.path.join(ROOT, p)))
    allowed = sum(1 for r in found if r[0] > args.max) - len(over)
    print("\n%d function(s) longer than %d lines" % (len(over), args.max) +
          (" besides %d on %s" % (allowed, display(resolve(args.allow))) if args.allow else "") + (":" if over else ""))
    show(over)
    for line_no, why in stale:
        print("%s:%d: stale entry: %s" % (display(resolve(args.allow)), line_no, why))
    return 1 if over or stale else 0


if __name__ == "__main__":
    sys.exit(main())
