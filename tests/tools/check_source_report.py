#!/usr/bin/env python3
"""Checks ea_iid source's report: the JSON's flow against its steps, the health tests'
cutoffs (healthTests) recomputed here from the entropy that stands, and the HTML page
(well-formed, every section present, nothing loaded from outside; its result in words that
fit the result: a failure never "can stand" as a pass; the JSON file it was written with
named; with --h-prime TEXT, h' as the user gave it).

usage: check_source_report.py REPORT.json REPORT.html [--no-restart] [--no-json] [--h-prime TEXT]
                              [--health-alpha-log2 N]
(--no-json: the page was written without -o; --health-alpha-log2: alpha = 2^N, default -20)
Prints "N passed, M failed"; exit 1 when M > 0.
"""
import html
import html.parser
import json
import math
import sys

VOID = {"meta", "br", "hr", "img", "input", "link", "rect", "line", "path", "circle", "polyline"}
SECTIONS = ["run", "files", "result", "sequential", "restart", "conditioning", "health", "record"]


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.errors, self.ids, self.external = [], [], set(), []

    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k == "id":
                self.ids.add(v)
            if k in ("src", "href") and v and not v.startswith("#"):
                self.external.append(f"{tag} {k}={v}")
        if tag in ("script", "link", "iframe", "object", "embed"):
            self.external.append(tag)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID and self.stack and self.stack[-1] == tag:
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else 'nothing'}>")
        else:
            self.stack.pop()


def binomial_tail(n, p, c):
    """P(Bin(n, p) >= c) in doubles, term by term in logs (SP 800-90B 4.4.2's CRITBINOM)."""
    if c <= 0:
        return 1.0
    lp, lq = math.log(p), math.log1p(-p)
    return sum(math.exp(math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * lp + (n - k) * lq)
               for k in range(c, n + 1))


def check_health(r, page, alpha_log2, check):
    """healthTests: the cutoffs of SP 800-90B 4.4 for hValidated (hI when the restart tests
    failed), recomputed from the formulas; the page's section and its health-tests command."""
    flow, ht = r["flow"], r["healthTests"]
    h = flow["hValidated"] if flow["hValidated"] > 0 else flow["hI"]
    if not h > 0:
        check(ht is None, "no health tests' cutoffs without an entropy claim")
        return
    check(ht["hFrom"] == ("hValidated" if flow["hValidated"] > 0 else "hI"), "healthTests.hFrom")
    check(ht["h"] == h, "the cutoffs are for the entropy that stands (H_I when the restart tests failed)")
    check(ht["alphaLog2"] == alpha_log2 and ht["alpha"] == 2.0 ** alpha_log2, f"alpha 2^{alpha_log2}")
    check(ht["bits"] == flow["bitsPerSample"], "the health tests' bits are the data's")
    check(ht["rct"]["cutoff"] == 1 + math.ceil(-alpha_log2 / h), "RCT C = 1 + ceil(-log2(alpha)/H)")
    w = 1024 if ht["bits"] == 1 else 512
    c = next(c for c in range(w + 2) if binomial_tail(w, 2.0 ** -h, c) <= 2.0 ** alpha_log2)
    check(ht["apt"]["window"] == w and ht["apt"]["cutoff"] == c, f"APT W = {w}, C = 1 + CRITBINOM = {c}")
    section = page[page.find('<section id="health">'):page.find('<section id="record">')]
    check(f"cutoff C = {ht['rct']['cutoff']};" in section and f"cutoff C = {ht['apt']['cutoff']};" in section,
          "the page's health tests' cutoffs")
    check(f"<code>ea_iid health-tests {json.dumps(ht['h'])} --bits {ht['bits']} --alpha 2^{alpha_log2} FILE...</code>"
          in section, "the page's health-tests command")


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
        r = json.load(f)
    with open(argv[2], encoding="utf-8") as f:
        page = f.read()
    no_restart = "--no-restart" in argv
    flow, steps = r["flow"], r["steps"]
    check(r["type"] == "Source", "type")
    check(all(len(f["sha256"]) == 64 for f in r["files"]), "every file's SHA-256")
    check(r["build"]["version"] != "", "tool version")
    check(abs(flow["hI"] - min(flow["hAssessed"], flow["hSubmitter"] or 9)) < 1e-12, "H_I = min(H_assessed, H_submitter)")
    seq = steps["sequential"]
    check(abs(seq["assessedMinEntropy"] - flow["hAssessed"]) < 1e-12, "H_assessed is the sequential record's")
    if no_restart:
        check(steps["restart"] is None and flow["restart"] is None, "no restart step")
        check(not r["forCompliance"], "not for compliance without restart data")
    else:
        rs = steps["restart"]["restart"]
        check(abs(rs["hI"] - flow["hI"]) < 1e-12, "the restart tests test H_I")
        if rs["result"] is None:  # a failed sanity check: no H_r, H_c; nothing stands
            check(not r["passed"] and flow["hValidated"] == 0, "a failed restart test: nothing stands")
        else:
            check(abs(rs["result"] - flow["hValidated"]) < 1e-12, "min(H_r, H_c, H_I) stands")
        check(r["files"][1]["sha256"] == steps["restart"]["sha256"], "restart file's SHA-256")
    if flow["conditioning"] is not None:
        chain = flow["conditioning"]
        check(len(chain) == len(steps["conditioning"]), "one step record per component")
        before, per = flow["hValidated"], flow["bitsPerSample"]  # the entropy before a component, per bits
        for k, (fc, step) in enumerate(zip(chain, steps["conditioning"])):
            check(fc["sequencePosition"] == k + 1, "components in sequence order")
            check(abs(fc["hIn"] - min(fc["nIn"], before * fc["nIn"] / per)) < 1e-9,
                  "h_in = min(n_in, entropy before x n_in / its bits)")
            if step is not None:
                c = step["conditioning"]
                check(c["hOutText"] == fc["hOutText"], "h_out is the conditioning record's")
                check(c["hInText"] == fc["hInText"], "h_in is the conditioning record's")
            else:
                check(fc["hOut"] is None and fc["hIn"] == 0, "not computed only with no entropy before it")
            before, per = (fc["hOut"] or 0.0), fc["nOut"]
        last = chain[-1]
        check(last["hOut"] is None and flow["claimed"] == 0 or abs(flow["claimed"] - (last["hOut"] or 0)) < 1e-12,
              "the last component's h_out is claimed")
    alpha_log2 = int(argv[argv.index("--health-alpha-log2") + 1]) if "--health-alpha-log2" in argv else -20
    check_health(r, page, alpha_log2, check)
    p = Page()
    p.feed(page)
    p.close()
    check(page.startswith("<!DOCTYPE html>"), "doctype")
    check(not p.errors, f"well-formed: {p.errors[:3]}")
    check(p.stack in ([], ["html"], ["html", "body"]) or not p.stack, f"every element closed: {p.stack}")
    for s in SECTIONS:
        check(s in p.ids, f"section #{s}")
    check(not p.external, f"nothing loaded from outside: {p.external[:3]}")
    bare = page.replace('xmlns="http://www.w3.org/2000/svg"', "")  # a namespace name, not a load
    check("http://" not in bare and "https://" not in bare, "no URL")
    check(r["source"] in page and (r["userSeed"] is None or r["userSeed"] in page), "the source's name and seed")
    # A seed nothing used is not recorded: the non-IID track draws no random numbers.
    check((r["userSeed"] is None) == (r["flow"]["trackChoice"] == "non-iid"), "userSeed null on the non-IID track only")
    for f in r["files"]:
        check(f["sha256"] in page, f"SHA-256 of {f['role']} on the page")
    result = page[page.find('<section id="result">'):page.find('<section id="sequential">')]
    stands = "Every step can stand as an SP 800-90B assessment" in result
    check(stands == (r["passed"] and r["forCompliance"]), f"'can stand' only for a compliant pass: {result[:300]}")
    check(("FAILED" in result) == (not r["passed"]), "FAILED only for a failure")
    if r["forCompliance"] and not r["passed"]:
        check("the failure above is the assessment's result" in result, "a compliant failure says it is the result")
    record = page[page.find('<section id="record">'):]
    if "--no-json" in argv:
        check("No JSON report was written" in record, "the record section says no JSON was written")
    else:
        check(f"<code>{html.escape(argv[1], quote=False)}</code>" in record, f"the record section names {argv[1]}")
    if "--h-prime" in argv:
        given = argv[argv.index("--h-prime") + 1]
        check(f"<tr><th>h'</th><td>{given}</td></tr>" in page, f"h' as given: {given}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
