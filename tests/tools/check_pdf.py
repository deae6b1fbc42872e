#!/usr/bin/env python3
"""Checks a report's PDF (ea_iid source --pdf) with the standard library alone (zlib).

  check_pdf.py FILE.pdf [--min-pages N] [--text PHRASE]... [--fill-color RRGGBB]...

- whole: "%PDF-" first, "%%EOF" last;
- at least --min-pages page objects (/Type /Page);
- figures as vectors: no image XObject anywhere (/Subtype /Image), and each --fill-color
  (a figure's bar colour) set as a fill colour ("r g b rg") in some page's content, followed
  by path operators;
- text selectable: every page names its fonts in /Resources /Font, every Type0 font has a
  /ToUnicode map, and the text extracted through those maps (the content streams inflated,
  each shown string mapped to Unicode) holds every --text PHRASE (compared with white space
  removed, as a PDF places words by position rather than by spaces).
Prints "FAILED: ..." for each failure and exits 1; else one line "pdf ok: ...".
"""

import re
import sys
import zlib

OBJ = re.compile(rb"(\d+)\s+0\s+obj\b(.*?)\bendobj", re.S)
REF = rb"(\d+)\s+0\s+R"


def objects(data):
    return {int(m.group(1)): m.group(2) for m in OBJ.finditer(data)}


def head(body):
    """The object's dictionary (what precedes its stream)."""
    i = body.find(b"stream")
    return body if i < 0 else body[:i]


def stream(body):
    i = body.index(b"stream") + len(b"stream")
    if body[i:i + 2] == b"\r\n":
        i += 2
    elif body[i:i + 1] in (b"\n", b"\r"):
        i += 1
    j = body.rindex(b"endstream")
    raw = body[i:j]
    m = re.search(rb"/Length\s+(\d+)(?!\s+0\s+R)", head(body))
    if m and int(m.group(1)) <= len(raw):
        raw = raw[:int(m.group(1))]
    return zlib.decompress(raw) if b"/FlateDecode" in head(body) else raw


def dict_entry(text, key):
    """The value of /key in a dictionary's text: an inline <<...>> or a reference's number."""
    m = re.search(rb"/" + key + rb"\s*(<<|" + REF + rb"|\[)", text)
    if not m:
        return None
    if m.group(1) == b"<<":
        depth, i = 1, m.end()
        while i < len(text) and depth:
            if text.startswith(b"<<", i):
                depth, i = depth + 1, i + 2
            elif text.startswith(b">>", i):
                depth, i = depth - 1, i + 2
            else:
                i += 1
        return text[m.end():i - 2]
    if m.group(1) == b"[":
        return text[m.end():text.index(b"]", m.end())]
    return int(m.group(2))


def resolve(objs, v):
    return head(objs.get(v, b"")) if isinstance(v, int) else v


def to_unicode_map(cmap):
    """A ToUnicode CMap's code -> text (bfchar and bfrange)."""
    out = {}
    text = cmap.decode("latin-1")
    for block in re.findall(r"beginbfchar(.*?)endbfchar", text, re.S):
        for src, dst in re.findall(r"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>", block):
            out[int(src, 16)] = bytes.fromhex(dst).decode("utf-16-be", "replace")
    for block in re.findall(r"beginbfrange(.*?)endbfrange", text, re.S):
        for lo, hi, dst in re.findall(r"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*(<[0-9A-Fa-f]+>|\[[^\]]*\])", block):
            lo, hi = int(lo, 16), int(hi, 16)
            if dst.startswith("["):
                for k, d in enumerate(re.findall(r"<([0-9A-Fa-f]+)>", dst)):
                    out[lo + k] = bytes.fromhex(d).decode("utf-16-be", "replace")
            else:
                base = bytearray(bytes.fromhex(dst[1:-1]))
                for code in range(lo, hi + 1):
                    b = bytearray(base)
                    b[-1] = (b[-1] + code - lo) & 0xFF
                    out[code] = bytes(b).decode("utf-16-be", "replace")
    return out


TOKEN = re.compile(rb"<([0-9A-Fa-f\s]*)>|\((?:\\.|[^\\)])*\)|/[^\s/\[\]()<>]+|[-+.\d]+|[A-Za-z'\"*]+|\[|\]", re.S)


def page_text(content, fonts):
    """The text a content stream shows, each shown string through its font's map."""
    words, font, operands = [], None, []
    for m in TOKEN.finditer(content):
        tok = m.group(0)
        if tok.startswith(b"/") or tok[:1] in b"<([]" or re.match(rb"[-+.\d]", tok):
            operands.append(m)
            continue
        if tok == b"Tf" and len(operands) >= 2:
            font = fonts.get(operands[-2].group(0)[1:])
        elif tok in (b"Tj", b"TJ", b"'", b'"'):
            piece = ""
            for o in operands:
                if o.group(1) is not None and font is not None:
                    hexs = re.sub(rb"\s", b"", o.group(1))
                    piece += "".join(font.get(int(hexs[k:k + 4], 16), "\ufffd") for k in range(0, len(hexs), 4))
            words.append(piece)
        operands = []
    return " ".join(words)


def main(argv):
    path, min_pages, phrases, colors = argv[0], 1, [], []
    i = 1
    while i < len(argv):
        if argv[i] == "--min-pages":
            min_pages = int(argv[i + 1])
        elif argv[i] == "--text":
            phrases.append(argv[i + 1])
        elif argv[i] == "--fill-color":
            colors.append(argv[i + 1])
        else:
            sys.exit("check_pdf.py: unknown argument " + argv[i])
        i += 2
    data = open(path, "rb").read()
    failures = []

    def check(ok, what):
        if not ok:
            failures.append(what)
            print("FAILED: %s: %s" % (path, what))

    check(data.startswith(b"%PDF-"), 'starts with "%PDF-"')
    check(data.rstrip(b"\r\n ").endswith(b"%%EOF"), 'ends with "%%EOF"')
    objs = objects(data)
    pages = [k for k, v in objs.items() if re.search(rb"/Type\s*/Page(?![a-zA-Z])", head(v))]
    check(len(pages) >= min_pages, "%d page objects, expected at least %d" % (len(pages), min_pages))
    check(not any(re.search(rb"/Subtype\s*/Image\b", head(v)) for v in objs.values()),
          "no image XObject (figures as vectors)")
    text, contents = "", b""
    for k in pages:
        page = head(objs[k])
        font_dict = resolve(objs, dict_entry(resolve(objs, dict_entry(page, b"Resources")) or b"", b"Font"))
        check(font_dict is not None, "page object %d names its fonts (/Resources /Font)" % k)
        fonts = {}
        for name, ref in re.findall(rb"/([^\s/<>\[\]]+)\s+" + REF, font_dict or b""):
            font = head(objs.get(int(ref), b""))
            tu = dict_entry(font, b"ToUnicode")
            check(b"/Type0" not in font or isinstance(tu, int), "font %s of page %d has a /ToUnicode map" % (name.decode(), k))
            fonts[name] = to_unicode_map(stream(objs[tu])) if isinstance(tu, int) else {}
        refs = dict_entry(page, b"Contents")
        for ref in [refs] if isinstance(refs, int) else [int(r) for r in re.findall(REF, refs or b"")]:
            content = stream(objs[ref])
            contents += content + b"\n"
            text += page_text(content, fonts) + "\n"
    bare = re.sub(r"\s", "", text)
    for p in phrases:
        check(re.sub(r"\s", "", p) in bare, "the text holds %r" % p)
    fills = [tuple(float(x) for x in m.groups()) for m in
             re.finditer(rb"([-+.\d]+)\s+([-+.\d]+)\s+([-+.\d]+)\s+rg\b\s*(?=[^T]*?\b(?:re|m)\b)", contents)]
    for c in colors:
        want = tuple(int(c[k:k + 2], 16) / 255 for k in (0, 2, 4))
        check(any(all(abs(a - b) < 0.002 for a, b in zip(f, want)) for f in fills),
              "a path filled with #%s (a figure drawn as vectors)" % c)
    if failures:
        return 1
    print("pdf ok: %s: %d pages, %d characters of text, %d fill colours" % (path, len(pages), len(bare), len(set(fills))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
