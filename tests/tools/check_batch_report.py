#!/usr/bin/env python3
"""Checks a batch's HTML report (--html, ea_iid merge --html) against the run's JSONL:
well-formed, every section present, nothing loaded from outside, one table row per item
numbered from 1 and naming its file (the filter matches a row's text), the run's tool, seed
and options, the rejection counts against chance file by file (each file's count, its own
bound and reading recomputed here from the rows; several files never called "the source",
their total no verdict), a figure of the min-entropy along each file assessed in blocks,
axes and legends on every figure.

usage: check_batch_report.py RUN.jsonl REPORT.html
Prints "N passed, M failed"; exit 1 when M > 0.
"""
import html.parser
import json
import math
import sys

VOID = {"meta", "br", "hr", "img", "input", "link", "rect", "line", "path", "circle", "polyline"}
SECTIONS = ["run", "files", "summary", "trend", "items", "details"]


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.errors, self.ids, self.external = [], [], [], []
        self.item_rows, self.first_numbers, self.svgs, self.scripts = 0, [], [], 0
        self.svg = None
        self.row_texts, self.file_rows = [], []  # item rows' text; file-rejections rows' cells
        self.row_kind, self.cell = None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        for k, v in attrs:
            if k in ("src", "href") and v and not v.startswith("#"):
                self.external.append(f"{tag} {k}={v}")
        if tag in ("link", "iframe", "object", "embed", "img"):
            self.external.append(tag)
        if tag == "script":
            self.scripts += 1
            if "src" in a:
                self.external.append("script src")
        if tag == "tr" and (a.get("class") or "").startswith("item"):
            self.item_rows += 1
            self.row_kind = "item"
            self.row_texts.append("")
        if tag == "tr" and (a.get("class") or "").startswith("file-rejections"):
            self.row_kind = "file"
            self.file_rows.append([])
        if tag == "td" and self.row_kind == "file":
            self.cell = ""
        if tag == "td" and "data-v" in a and len(self.first_numbers) < self.item_rows:
            self.first_numbers.append(a["data-v"])
        if tag == "svg":
            self.svg = {"class": a.get("class"), "lines": 0, "title": False, "rects": 0}
        elif self.svg is not None:
            if tag == "line":
                self.svg["lines"] += 1
            if tag == "rect":
                self.svg["rects"] += 1
            if tag == "title":
                self.svg["title"] = True
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID and self.stack and self.stack[-1] == tag:
            self.stack.pop()

    def handle_data(self, data):
        if self.row_kind == "item":
            self.row_texts[-1] += data
        if self.cell is not None:
            self.cell += data

    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            self.file_rows[-1].append(self.cell)
            self.cell = None
        if tag == "tr":
            self.row_kind = None
        if tag == "svg" and self.svg is not None:
            self.svgs.append(self.svg)
            self.svg = None
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else 'nothing'}>")
        else:
            self.stack.pop()


def upper_tail(n, k, p):
    """P(X >= k), X ~ Binomial(n, p)."""
    return sum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(k, n + 1)) if k > 0 else 1.0


def check_rejections(iid, p, page, check):
    """Each file's count against its own chance bound (report/rejections.hpp's rule), from the
    rows; the words never call several files "the source"; their total judges none."""
    files = {}
    for r in iid:
        perm = r["permutation"]
        n, t = perm["iterations"], perm["decisionThreshold"]
        rate = 0.003 + len(perm["tests"]) * min(1.0, 2.0 * (t + 1) / (n + 1))
        f = files.setdefault(r["filename"], [0, 0, 0.0])
        f[0] += 1
        f[1] += r["verdict"]["result"] == "not IID"
        f[2] += rate
    bad = sum(f[1] for f in files.values())
    readings = {}
    for name, (items, rejected, rate_sum) in files.items():
        p_value = upper_tail(items, rejected, min(1.0, rate_sum / items))
        readings[name] = items >= 2 and p_value < 0.01
    if len(files) == 1:
        (name, (items, rejected, _)), = files.items()
        unit = "blocks" if all("block" in r.get("input", {}) for r in iid) else "items"
        check(f"{rejected} of {items} {unit} not IID; at most" in page, "the file's rejection sentence")
        verdict = "likely not IID" if readings[name] else "consistent with IID"
        check(f"this file&#39;s {unit} are {verdict}" in page or f"this file's {unit} are {verdict}" in page,
              f"the file's reading: {verdict}")
        return
    check("the source" not in page, 'several files never called "the source"')
    check(f"In total, {len(files)} files: {bad} of {len(iid)} items not IID; at most" in page, "the total line")
    shown = {cells[0]: cells for cells in p.file_rows}
    check(len(p.file_rows) == len(files), f"a rejection row per file: {len(p.file_rows)} rows, {len(files)} files")
    for name, (items, rejected, rate_sum) in files.items():
        cells = shown.get(name)
        check(cells is not None and cells[1:3] == [str(items), str(rejected)], f"{name}: {items} items, {rejected} not IID: {cells}")
        if cells is None:
            continue
        expected = min(rate_sum, items)
        check(abs(float(cells[3]) - expected) <= 0.051 * max(1.0, expected), f"{name}: its own bound {expected:.3g}: {cells[3]}")
        if items >= 2:
            want = "more than chance explains" if readings[name] else "consistent with IID"
            check(cells[5].startswith(want), f"{name}: reading '{want}': {cells[5]}")


def main(argv):
    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAILED", what)

    with open(argv[1], encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    with open(argv[2], encoding="utf-8") as f:
        page = f.read()
    p = Page()
    p.feed(page)
    p.close()
    check(page.startswith("<!DOCTYPE html>"), "doctype")
    check(not p.errors, f"well-formed: {p.errors[:3]}")
    check(not p.stack, f"every element closed: {p.stack}")
    for s in SECTIONS:
        check(s in p.ids, f"section #{s}")
    check(len(p.ids) == len(set(p.ids)), "ids are unique")
    check(not p.external, f"nothing loaded from outside: {p.external[:3]}")
    check(p.scripts <= 1, "at most one inline script")
    bare = page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    check("http://" not in bare and "https://" not in bare, "no URL")
    check(p.item_rows == len(rows), f"one table row per item: {p.item_rows} rows, {len(rows)} items")
    check(p.first_numbers[:3] == ["1", "2", "3"][: len(rows)], f"items numbered from 1: {p.first_numbers[:3]}")
    check("item0" not in p.ids, "no item 0")
    tools = {r["toolVersion"] for r in rows if "toolVersion" in r}
    check(all(t in page for t in tools), "tool version and build")
    seeds = {r["run"]["userSeed"] for r in rows if "run" in r}
    check(all(s in page for s in seeds), "the user seed")
    iid = [r for r in rows if r.get("type") == "IID" and "verdict" in r and r.get("errorLevel", 0) == 0 and "skipped" not in r]
    if iid:
        first = iid[0]
        check(f"<td>{first['permutation']['iterations']}</td>" in page, "--iterations among the options")
        check(f"<td>{first['permutation']['prng']}</td>" in page, "--prng among the options")
    if len(iid) >= 2:
        check('class="rejections"' in page, "the rejection table")
        check_rejections(iid, p, page, check)
    for r, text in zip(rows, p.row_texts):
        check(r.get("filename", "") in text, f"item row names its file (the filter finds it): {text[:60]}")
    blocks = {}
    for r in rows:
        if "input" in r and "block" in r["input"] and r.get("errorLevel", 0) == 0 and "skipped" not in r:
            blocks.setdefault(r["filename"], 0)
            blocks[r["filename"]] += 1
    trends = sum(1 for n in blocks.values() if n >= 2)
    check(sum(1 for s in p.svgs if s["class"] == "trend") == trends, f"a min-entropy figure per file in blocks ({trends})")
    for s in p.svgs:
        check(s["title"] and s["lines"] >= 2, f"{s['class']} figure: a title and axes")
        check(s["rects"] >= 1, f"{s['class']} figure: a legend")
    for r in rows:
        check(r.get("filename", "") in page, f"file {r.get('filename')}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
