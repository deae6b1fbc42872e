#!/usr/bin/env python3
"""Checks a batch's HTML report (--html, ea_iid merge --html) against the run's JSONL:
well-formed, every section present, nothing loaded from outside, one table row per item
numbered from 1, the run's tool, seed and options, the rejection counts, a figure of the
min-entropy along each file assessed in blocks, axes and legends on every figure.

usage: check_batch_report.py RUN.jsonl REPORT.html
Prints "N passed, M failed"; exit 1 when M > 0.
"""
import html.parser
import json
import sys

VOID = {"meta", "br", "hr", "img", "input", "link", "rect", "line", "path", "circle", "polyline"}
SECTIONS = ["run", "files", "summary", "trend", "items", "details"]


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.errors, self.ids, self.external = [], [], [], []
        self.item_rows, self.first_numbers, self.svgs, self.scripts = 0, [], [], 0
        self.svg = None

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

    def handle_endtag(self, tag):
        if tag == "svg" and self.svg is not None:
            self.svgs.append(self.svg)
            self.svg = None
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else 'nothing'}>")
        else:
            self.stack.pop()


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
        bad = sum(1 for r in iid if r["verdict"]["result"] == "not IID")
        check(f"{bad} of {len(iid)} items not IID; at most" in page, "the rejection sentence")
        check('class="rejections"' in page, "the rejection table")
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
