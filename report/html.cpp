// The batch's HTML report (--html, ea_iid merge --html) and the figures other pages share:
// a lab report made from the items' JSON records alone (docs/report.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "files.hpp"
#include "record.hpp"
#include "rejections.hpp"
#include "rows.hpp"
#include "settings_fields.hpp"

namespace ea {

// (Using-declarations, not `using namespace rows`: the sources of a unity batch share a scope.)
using rows::block_of;
using rows::html_escape;
using rows::is_assessment;
using rows::is_non_iid;
using rows::is_restart;
using rows::iso_date;
using rows::notes_of;
using rows::number;
using rows::ordered_json;
using rows::parts_of;
using rows::seed_text;
using rows::text;

namespace {

std::string num(double v, const char* f = "%g") {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

constexpr const char* kBlue = "#1f5fbf";
constexpr const char* kRed = "#c62828";
constexpr const char* kGrey = "#9e9e9e";

// A text element (SVG), escaped.
std::string text_at(double x, double y, const std::string& s, const char* anchor = "start", int size = 11) {
  return "<text x=\"" + num(x, "%.1f") + "\" y=\"" + num(y, "%.1f") + "\" font-size=\"" + std::to_string(size) +
         "\" text-anchor=\"" + anchor + "\">" + html_escape(s) + "</text>";
}

std::string line_at(double x1, double y1, double x2, double y2, const char* color = "#555") {
  return "<line x1=\"" + num(x1, "%.1f") + "\" y1=\"" + num(y1, "%.1f") + "\" x2=\"" + num(x2, "%.1f") + "\" y2=\"" +
         num(y2, "%.1f") + "\" stroke=\"" + color + "\" stroke-width=\"1\"/>";
}

std::string svg_open(const char* cls, int w, int h, const std::string& title) {
  return std::string("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"") + cls + "\" width=\"" + std::to_string(w) +
         "\" height=\"" + std::to_string(h) + "\" viewBox=\"0 0 " + std::to_string(w) + " " + std::to_string(h) +
         "\" role=\"img\"><title>" + html_escape(title) + "</title>";
}

// A legend entry: a swatch and its words; returns the x after it.
double legend(std::string& s, double x, double y, const char* color, const std::string& words) {
  s += "<rect x=\"" + num(x, "%.1f") + "\" y=\"" + num(y - 8, "%.1f") + "\" width=\"10\" height=\"10\" fill=\"" + color + "\"/>";
  s += text_at(x + 14, y, words, "start", 10);
  return x + 24 + 5.6 * static_cast<double>(words.size());
}

// "Nice" ticks from 0 (or lo) to hi: about `n` of them at 1, 2 or 5 times a power of ten.
std::vector<double> ticks(double lo, double hi, int n) {
  std::vector<double> t;
  if (!(hi > lo)) return {lo};
  const double raw = (hi - lo) / n, mag = std::pow(10, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  }
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) t.push_back(std::abs(v) < step * 1e-9 ? 0 : v);
  return t;
}

std::string tick_label(double v) {
  if (std::abs(v) >= 1e6) return num(v, "%.3g");
  return num(v, "%g");
}

}  // namespace

// ---- figures -------------------------------------------------------------------------

// A bar per non-IID estimate, literal (bits per sample) and bitstring (times the bits per
// sample), on one axis from 0 to the bits per sample; the one that sets the minimum in red.
std::string estimates_figure(const ordered_json& ni, int bits) {
  const int left = 190, bar = 300, row = 15, top = 22;
  const auto& list = ni["estimators"];
  const std::string low_key = ni["lowest"].is_null() ? "" : ni["lowest"]["estimator"].get<std::string>();
  const std::string low_in = ni["lowest"].is_null() ? "" : ni["lowest"]["input"].get<std::string>();
  int rows_n = 0;
  for (const auto& e : list)
    for (const char* in : {"literal", "bitstring"}) rows_n += e[in].is_null() ? 0 : 1;
  const int plot_h = row * rows_n, height = top + plot_h + 44;
  std::string s = svg_open("estimates", left + bar + 90, height, "non-IID estimates, bits per sample");
  double lx = 0;
  lx = legend(s, lx, 12, kBlue, "estimate (bits per sample)");
  legend(s, lx, 12, kRed, "the lowest: sets the assessed min-entropy");
  int y = top;
  for (const auto& e : list) {
    for (const char* in : {"literal", "bitstring"}) {
      const auto& x = e[in];
      if (x.is_null()) continue;
      const bool evaluated = x["evaluated"].get<bool>();
      const double h = evaluated ? x["minEntropy"].get<double>() * (std::string(in) == "bitstring" ? bits : 1) : 0;
      const bool low = e["estimator"].get<std::string>() == low_key && low_in == in;
      s += text_at(0, y + 10, e["estimator"].get<std::string>() + " (" + in + ")", "start", 10);
      s += "<rect x=\"" + std::to_string(left) + "\" y=\"" + std::to_string(y + 2) + "\" width=\"" +
           num(std::max(0.0, std::min(1.0, h / bits)) * bar, "%.1f") + "\" height=\"10\" fill=\"" + (low ? kRed : kBlue) +
           "\"/>";
      s += text_at(left + bar + 6, y + 11, evaluated ? num(h, "%.4f") : "n/a", "start", 10);
      y += row;
    }
  }
  // The axis: 0 to the bits per sample.
  const int axis_y = top + plot_h + 4;
  s += line_at(left, axis_y, left + bar, axis_y);
  for (double t : ticks(0, bits, bits == 1 ? 4 : std::min(bits, 8))) {
    const double x = left + t / bits * bar;
    s += line_at(x, axis_y, x, axis_y + 4) + text_at(x, axis_y + 15, tick_label(t), "middle", 10);
  }
  s += text_at(left + bar / 2.0, axis_y + 30, "bits per sample (bitstring estimates x " + std::to_string(bits) + ")",
               "middle", 10);
  return s + "</svg>";
}

// Where the original statistic sits among its permutations: the share of permutations below
// it (C2), ties counted half; an axis from 0 to 1, the reject zones at both ends.
std::string ranks_figure(const ordered_json& r) {
  const auto& perm = r["permutation"];
  const auto& tests = perm["tests"];
  const int row = 15, left = 130, bar = 360, top = 36;
  const int plot_h = row * static_cast<int>(tests.size()), height = top + plot_h + 46;
  std::string s = svg_open("ranks", left + bar + 60, height, "rank of each statistic among its permutations");
  double lx = 0;
  lx = legend(s, lx, 12, kBlue, "passed");
  lx = legend(s, lx, 12, kRed, "failed");
  legend(s, lx, 12, "#f3c7c7", "reject zones; IID data sits away from both ends");
  s += "<rect x=\"0\" y=\"18\" width=\"10\" height=\"10\" fill=\"white\" stroke=\"" + std::string(kBlue) + "\"/>";
  s += text_at(14, 27, "open: decided early, placed by its first n permutations", "start", 10);
  // The reject zones: (t+1)/(N+1) of the axis at each end (at least a pixel).
  const auto number_or = [&perm](const char* k, double otherwise) {
    return perm.contains(k) && perm[k].is_number() ? perm[k].get<double>() : otherwise;
  };
  const double n = number_or("iterations", 10000.0), t = number_or("decisionThreshold", 5.0);
  const double zone = std::max(1.0, (t + 1) / (n + 1) * bar);
  s += "<rect x=\"" + std::to_string(left) + "\" y=\"" + std::to_string(top) + "\" width=\"" + num(zone, "%.1f") +
       "\" height=\"" + std::to_string(plot_h) + "\" fill=\"#f3c7c7\"/>";
  s += "<rect x=\"" + num(left + bar - zone, "%.1f") + "\" y=\"" + std::to_string(top) + "\" width=\"" + num(zone, "%.1f") +
       "\" height=\"" + std::to_string(plot_h) + "\" fill=\"#f3c7c7\"/>";
  int y = top;
  for (const auto& x : tests) {
    const bool ran = x["ran"].get<bool>();
    const bool failed = x["result"].get<std::string>() == "failed";
    s += text_at(0, y + 10, x["name"].get<std::string>(), "start", 10);
    s += line_at(left, y + 7, left + bar, y + 7, "#ddd");
    if (ran) {
      const double c0 = x["C0"].get<double>(), c1 = x["C1"].get<double>(), c2 = x["C2"].get<double>();
      const double total = c0 + c1 + c2;
      const double share = total > 0 ? (c2 + c1 / 2) / total : 0.5;
      // A test decided early (its counters stopped after a few permutations) is an open
      // marker with its count: its place rests on those few.
      const bool early = total < n;
      const char* color = failed ? kRed : kBlue;
      s += "<rect x=\"" + num(left + share * bar - 2, "%.1f") + "\" y=\"" + std::to_string(y + 1) +
           "\" width=\"4\" height=\"12\" " +
           (early ? std::string("fill=\"white\" stroke=\"") + color + "\" stroke-width=\"1.2\""
                  : std::string("fill=\"") + color + "\"") + "/>";
      if (early) s += text_at(left + bar + 4, y + 10, "n=" + num(total, "%.0f"), "start", 9);
    } else {
      s += text_at(left + 4, y + 10, "not run", "start", 10);
    }
    y += row;
  }
  const int axis_y = top + plot_h + 2;
  s += line_at(left, axis_y, left + bar, axis_y);
  for (double v : {0.0, 0.25, 0.5, 0.75, 1.0}) {
    const double x = left + v * bar;
    s += line_at(x, axis_y, x, axis_y + 4) + text_at(x, axis_y + 15, tick_label(v), "middle", 10);
  }
  s += text_at(left + bar / 2.0, axis_y + 30, "share of permutations below the original (ties half)", "middle", 10);
  return s + "</svg>";
}

// The sample values' counts: bars, a count axis and a value axis.
std::string histogram_figure(const ordered_json& r) {
  const auto& counts = r["input"]["valueCounts"];
  const int bits = r["input"]["bitsPerSymbol"].get<int>();
  const int left = 56, width = 420, top = 24, height = 110;
  uint64_t most = 1;
  for (const auto& c : counts) most = std::max(most, c[1].get<uint64_t>());
  std::string s = svg_open("histogram", left + width + 20, top + height + 58, "histogram of the sample values");
  legend(s, left, 12, kBlue, "samples with each value");
  const double slot = static_cast<double>(width) / (1 << bits);
  // Every bar in one path (256 bars stay small).
  std::string d;
  for (const auto& c : counts) {
    const double h = static_cast<double>(c[1].get<uint64_t>()) / static_cast<double>(most) * height;
    const double x = left + c[0].get<int>() * slot;
    d += "M" + num(x, "%.1f") + " " + num(top + height, "%.1f") + "v-" + num(h, "%.1f") + "h" +
         num(std::max(0.8, slot - 0.6), "%.1f") + "v" + num(h, "%.1f") + "z";
  }
  s += "<path d=\"" + d + "\" fill=\"" + kBlue + "\"/>";
  s += line_at(left, top + height, left + width, top + height) + line_at(left, top, left, top + height);
  for (double t : ticks(0, static_cast<double>(most), 3)) {
    const double y = top + height - t / static_cast<double>(most) * height;
    s += line_at(left - 4, y, left, y) + text_at(left - 6, y + 4, tick_label(t), "end", 10);
  }
  const int top_value = (1 << bits) - 1;
  for (double t : ticks(0, top_value, bits <= 2 ? top_value : 4)) {
    const double x = left + (t + 0.5) * slot;
    s += line_at(x, top + height, x, top + height + 4) + text_at(x, top + height + 15, tick_label(t), "middle", 10);
  }
  s += text_at(left + width / 2.0, top + height + 32, "sample value (count on the left axis)", "middle", 10);
  return s + "</svg>";
}

namespace {

// The assessed min-entropy of each block along a file, failures marked.
struct TrendPoint {
  double block, h;
  int kind;  // 0 IID, 1 not IID, 2 other (inconclusive, non-IID estimate)
};

std::string trend_figure(const std::string& file, const std::vector<TrendPoint>& pts, int bits) {
  const int left = 56, width = 680, top = 24, height = 170;
  double lo = pts.front().block, hi = pts.front().block;
  for (const auto& p : pts) lo = std::min(lo, p.block), hi = std::max(hi, p.block);
  if (hi <= lo) hi = lo + 1;
  std::string s = svg_open("trend", left + width + 20, top + height + 44, "assessed min-entropy of each block of " + file);
  double lx = left;
  lx = legend(s, lx, 12, kBlue, "IID");
  lx = legend(s, lx, 12, kRed, "not IID");
  legend(s, lx, 12, kGrey, "other (inconclusive, non-IID estimates only)");
  auto px = [&](double b) { return left + (b - lo) / (hi - lo) * width; };
  auto py = [&](double h) { return top + height - std::max(0.0, std::min(1.0, h / bits)) * height; };
  for (double t : ticks(0, bits, bits == 1 ? 4 : std::min(bits, 8))) {
    const double y = py(t);
    s += line_at(left, y, left + width, y, "#eee") + line_at(left - 4, y, left, y) +
         text_at(left - 6, y + 4, tick_label(t), "end", 10);
  }
  s += line_at(left, top + height, left + width, top + height) + line_at(left, top, left, top + height);
  for (double t : ticks(lo, hi, 6)) {
    if (t != std::floor(t)) continue;
    const double x = px(t);
    s += line_at(x, top + height, x, top + height + 4) + text_at(x, top + height + 15, tick_label(t), "middle", 10);
  }
  // One path per kind: a dot is a zero-length segment with round caps (small at 10,000 blocks).
  const char* colors[3] = {kBlue, kRed, kGrey};
  for (int k : {0, 2, 1}) {
    std::string d;
    for (const auto& p : pts) {
      if (p.kind == k) d += "M" + num(px(p.block), "%.1f") + " " + num(py(p.h), "%.1f") + "h0";
    }
    if (d.empty()) continue;
    s += "<path d=\"" + d + "\" stroke=\"" + colors[k] + "\" stroke-width=\"" + (k == 1 ? "6" : "4") +
         "\" stroke-linecap=\"round\" fill=\"none\"/>";
  }
  s += text_at(left + width / 2.0, top + height + 32, "block (-l INDEX); assessed min-entropy, bits per sample", "middle", 10);
  return s + "</svg>";
}

// ---- the page's parts ----------------------------------------------------------------

const char* kStyle =
    "body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:1200px;color:#222;padding:0 1em}"
    "h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}"
    "table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px;"
    "vertical-align:top}th{background:#f3f3f3;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}"
    "table.items td{text-align:right;font-variant-numeric:tabular-nums}table.items td:nth-child(2),"
    "table.items td:nth-child(12),table.items td:nth-child(13),table.items td:nth-child(14){text-align:left}"
    "table.items td.file{word-break:break-all;min-width:9em;font-size:12px}tr.total td,tr.total th{border-top:2px solid #999}p.total{color:#444}tr.failed td{background:#fdecea}tr.other td{background:#f5f5f5}table.facts th{width:14em}"
    "table.items th{cursor:pointer;position:sticky;top:0}code{font-size:12px;word-break:break-all}"
    "details{margin:.4em 0;border:1px solid #ddd;padding:.2em .6em}details>summary{cursor:pointer;font-weight:600}"
    "svg{display:block;margin:.4em 0}.verdict-IID{color:#1b5e20}.verdict-not{color:#b71c1c;font-weight:600}"
    ".muted{color:#666;font-size:12px}.sentence{font-size:1.05em;font-weight:600}"
    ".banner{background:#fff4e5;border:1px solid #e65100;color:#7a2e00;padding:.5em .8em;font-weight:600}"
    "#filters{margin:.4em 0}#filters input{width:18em}"
    "@media print{#filters{display:none}details{border:none;page-break-inside:avoid}table.items th{position:static}"
    "body{max-width:none;margin:0}a{color:inherit;text-decoration:none}}";

// Sorting and filtering the items table (the filter matches any text of a row, its file name
// included; #q=TEXT after the page's address fills it in); the page reads without it.
const char* kScript =
    "(function(){var t=document.getElementById('items-table');if(!t)return;var b=t.tBodies[0];"
    "var rows=Array.prototype.slice.call(b.rows);var q=document.getElementById('q'),v=document.getElementById('v');"
    "function f(){var s=q.value.toLowerCase(),w=v.value;var n=0;rows.forEach(function(r){var ok=(!s||"
    "r.textContent.toLowerCase().indexOf(s)>=0)&&(!w||r.getAttribute('data-verdict')===w);r.style.display=ok?'':'none';"
    "if(ok)n++;});document.getElementById('shown').textContent=n+' of '+rows.length+' shown';}"
    "var m=/^#q=(.*)$/.exec(location.hash);if(m)q.value=decodeURIComponent(m[1]);"
    "q.addEventListener('input',f);v.addEventListener('change',f);f();"
    "Array.prototype.forEach.call(t.tHead.rows[0].cells,function(h,i){var up=true;h.title='sort';"
    "h.addEventListener('click',function(){var num=h.getAttribute('data-num')!==null;rows.sort(function(x,y){"
    "var a=x.cells[i].getAttribute('data-v')||x.cells[i].textContent,c=y.cells[i].getAttribute('data-v')||"
    "y.cells[i].textContent;if(num){a=parseFloat(a);c=parseFloat(c);a=isNaN(a)?-1e300:a;c=isNaN(c)?-1e300:c;}"
    "return (c>a?-1:a>c?1:0)*(up?1:-1);});up=!up;rows.forEach(function(r){b.appendChild(r);});});});"
    "window.addEventListener('beforeprint',function(){document.querySelectorAll('details').forEach(function(d){"
    "d.open=true;});});})();";

std::string date_text(const std::string& iso) {
  // 2026-11-25T19:47:00Z -> 2026-11-25 19:47:00 UTC
  if (iso.size() == 20) return iso.substr(0, 10) + " " + iso.substr(11, 8) + " UTC";
  return iso;
}

// A flag's recorded value with what it means for the flag: "--no-early-exit" recorded as
// earlyExit false was given ("false (--no-early-exit given)"); other values as recorded.
std::string flag_value_text(const std::string& option, const std::string& value) {
  const bool flag = option.rfind("--", 0) == 0 && option.find_first_of(" ,/") == std::string::npos;
  if (!flag || (value != "true" && value != "false")) return value;
  const bool negative = option.rfind("--no-", 0) == 0;  // the record holds the positive setting
  const bool given = (value == "true") != negative;
  return value + " (" + option + (given ? " given)" : " not given)");
}

// A banner above everything when the rows cannot stand as SP 800-90B assessments: an
// exploratory permutation count (not 10,000), or another compliance note, on any of them.
std::string compliance_banner(const std::vector<ordered_json>& rows) {
  std::set<std::string> counts;
  size_t exploratory = 0, not_for_compliance = 0, assessed = 0;
  for (const auto& r : rows) {
    for (const ordered_json* a : parts_of(r)) {
      ++assessed;
      if (a->value("exploratory", false)) {
        ++exploratory;
        if (a->contains("permutation")) counts.insert(number((*a)["permutation"].value("iterations", ordered_json()), "%.0f"));
      }
      if (!a->value("forCompliance", true)) ++not_for_compliance;
    }
  }
  if (assessed == 0 || not_for_compliance == 0) return "";
  std::string list;
  for (const auto& c : counts) list += (list.empty() ? "" : ", ") + c;
  const std::string what =
      exploratory > 0 ? "Exploratory run, not for compliance: " + std::to_string(exploratory) + " of " +
                            std::to_string(assessed) + " assessments ran " + list +
                            " permutations (SP 800-90B requires 10,000; the decision rule was scaled), so no verdict "
                            "below is an SP 800-90B assessment."
                      : "Not for compliance: " + std::to_string(not_for_compliance) + " of " + std::to_string(assessed) +
                            " assessments cannot stand as SP 800-90B assessments (the notes below say why).";
  return "<p class=\"banner\" role=\"alert\">" + html_escape(what) + "</p>\n";
}

// The run: tool, build, dates, command lines, seed and every result-changing option, from
// the rows themselves (so a resumed or merged run shows the options its rows were made with).
std::string run_section(const std::vector<ordered_json>& rows, const std::string& command_line) {
  std::set<std::string> tools, dates, commands, seeds;
  const ordered_json* first_iid = nullptr;
  const ordered_json* first_non_iid = nullptr;
  std::string reference;
  for (const auto& r : rows) {
    if (!text(r, "toolVersion").empty()) tools.insert(text(r, "toolVersion"));
    if (!iso_date(r).empty()) dates.insert(iso_date(r));
    if (!text(r, "commandline").empty()) commands.insert(text(r, "commandline"));
    if (r.contains("run") && !text(r["run"], "userSeed").empty()) seeds.insert(text(r["run"], "userSeed"));
    const auto parts = parts_of(r);
    if (!first_iid && !parts.empty()) first_iid = parts.front();
    if (!first_non_iid && is_non_iid(r)) first_non_iid = &r;
    if (reference.empty() && r.contains("build")) reference = text(r["build"], "reference");
  }
  std::string h = "<section id=\"run\"><h2>Run</h2><table class=\"facts\">";
  auto fact = [&h](const std::string& k, const std::string& v) {
    h += "<tr><th>" + html_escape(k) + "</th><td>" + v + "</td></tr>";
  };
  std::string tool_list;
  for (const auto& t : tools) tool_list += (tool_list.empty() ? "" : "<br/>") + html_escape("ea_iid " + t);
  fact("Tool and build", tool_list.empty() ? "-" : tool_list);
  if (!reference.empty()) fact("Numbers as", html_escape(reference));
  std::string date_list;
  if (!dates.empty()) {
    date_list = html_escape(date_text(*dates.begin()));
    if (dates.size() > 1) date_list += " to " + html_escape(date_text(*dates.rbegin())) + " (" + std::to_string(dates.size()) + " runs: resumed or merged)";
  }
  fact("Started", date_list.empty() ? "-" : date_list);
  std::string cmd_list;
  for (const auto& c : commands) cmd_list += (cmd_list.empty() ? "" : "<br/>") + ("<code>" + html_escape(c) + "</code>");
  if (cmd_list.empty() && !command_line.empty()) cmd_list = "<code>" + html_escape(command_line) + "</code>";
  fact(commands.size() > 1 ? "Command lines (of the rows)" : "Command line", cmd_list.empty() ? "-" : cmd_list);
  std::string seed_list;
  for (const auto& sd : seeds) seed_list += (seed_list.empty() ? "" : ", ") + html_escape(sd + " (" + seed_text(ordered_json(sd)) + ")");
  fact("User seed (--seed)", seed_list.empty() ? "-" : seed_list);
  // Every setting that changes results, as the first result's record holds it.
  // The option, the record's field that holds it and its value there (per-item fields: every
  // value the rows hold).
  std::string opts;
  const bool non_iid_rows = !first_iid && first_non_iid;
  for (const SettingField& f : settings_fields()) {
    if (f.effect != SettingEffect::Result) continue;
    const ordered_json* row = first_iid ? first_iid : first_non_iid;
    const char* path = f.record_in(non_iid_rows);
    if (!row || !path) continue;
    std::string value = recorded_setting(*row, f, path);
    if (f.per_item) {
      std::set<std::string> values;
      for (const auto& r : rows) {
        const auto parts = parts_of(r);
        const ordered_json* x = !parts.empty() ? parts.front() : is_non_iid(r) ? &r : nullptr;
        if (x) values.insert(recorded_setting(*x, f, path));
      }
      value.clear();
      for (const auto& v : values) value += (value.empty() ? "" : ", ") + v;
      value += " (per file)";
    }
    if (value.empty()) continue;
    opts += "<tr><td><code>" + html_escape(f.option) + "</code></td><td><code>" + html_escape(path) + "</code></td><td>" +
            html_escape(flag_value_text(f.option, value)) + "</td></tr>";
  }
  if (!opts.empty()) {
    fact("Options that change results",
         "<table><thead><tr><th>option</th><th>record field</th><th>value</th></tr></thead>" + opts + "</table>");
  }
  h += "</table></section>\n";
  return h;
}

// The files the items come from, once, with their item counts.
std::string files_section(const std::vector<ordered_json>& rows, std::map<std::string, size_t>& file_index) {
  std::vector<std::pair<std::string, size_t>> files;
  for (const auto& r : rows) {
    const std::string f = text(r, "filename");
    auto it = file_index.find(f);
    if (it == file_index.end()) {
      file_index[f] = files.size();
      files.emplace_back(f, 1);
    } else {
      ++files[it->second].second;
    }
  }
  std::string h = "<section id=\"files\"><h2>Files</h2><table><thead><tr><th>#</th><th>file</th><th>items</th></tr></thead><tbody>";
  for (size_t k = 0; k < files.size(); ++k) {
    h += "<tr><td class=\"n\">F" + std::to_string(k + 1) + "</td><td><code>" + html_escape(files[k].first) +
         "</code></td><td class=\"n\">" + std::to_string(files[k].second) + "</td></tr>";
  }
  return h + "</tbody></table></section>\n";
}

// A p-value's cell: "0.34", "0.0012", "&lt; 1e-12".
std::string p_cell(double p) {
  const std::string t = p_value_text(p);
  return html_escape(t.rfind("p = ", 0) == 0 ? t.substr(4) : t.substr(2));
}

// Each file's rejections against its own chance bound, and their total (which judges none).
std::string file_rejections_table(const Rejections& rej) {
  std::string h = "<h3>Rejections against chance, file by file</h3>\n<p class=\"muted\">Each file is judged on its own "
                  "count against its own bound: the files of a run need not come from one source, so their total "
                  "(the last row) judges none of them.</p>\n";
  h += "<table class=\"rejections-files\"><thead><tr><th>file</th><th>items with IID tests</th><th>not IID</th>"
       "<th>expected by chance (at most)</th><th>p-value</th><th>reading</th></tr></thead><tbody>";
  for (const auto& f : rej.files) {
    const std::string reading = f.items < 2              ? "one item: its verdict is in the table"
                                : f.more_than_chance() ? "more than chance explains: this file's " +
                                                             std::string(f.blocks ? "blocks" : "items") + " are likely not IID"
                                                       : "consistent with IID";
    h += std::string("<tr class=\"file-rejections") + (f.items >= 2 && f.more_than_chance() ? " failed" : "") +
         "\"><td><code>" + html_escape(f.file) + "</code></td><td class=\"n\">" + std::to_string(f.items) +
         "</td><td class=\"n\">" + std::to_string(f.rejected) + "</td><td class=\"n\">" +
         html_escape(expectation_text(f.expected)) + "</td><td class=\"n\">" + p_cell(f.p_value) + "</td><td>" +
         html_escape(reading) + "</td></tr>";
  }
  h += "<tr class=\"total\"><th>total, " + std::to_string(rej.files.size()) + " files</th><td class=\"n\">" +
       std::to_string(rej.items) + "</td><td class=\"n\">" + std::to_string(rej.rejected) + "</td><td class=\"n\">" +
       html_escape(expectation_text(rej.expected)) + "</td><td class=\"n\">&ndash;</td><td>a total, not a verdict on "
       "any file</td></tr></tbody></table>\n";
  return h + "<p class=\"total\">" + html_escape(rejections_sentence(rej)) + ".</p>\n";
}

std::string summary_section(const std::vector<ordered_json>& rows, const std::optional<Rejections>& rej,
                            const std::vector<std::pair<std::string, size_t>>& shared_notes, size_t items) {
  std::string h = "<section id=\"summary\"><h2>Summary</h2><p class=\"counts\">" + std::to_string(rows.size()) +
                   (rows.size() == 1 ? " item: " : " items: ") + html_escape(verdict_counts(rows)) + "</p>\n";
  if (rej && rej->items >= 2) {
    const bool pooled = rej->files.size() > 1;
    h += pooled ? file_rejections_table(*rej)
                : "<p class=\"sentence\">" + html_escape(rej->files.front().file) + ": " +
                      html_escape(rejections_sentence(*rej)) + "</p>\n";
    h += "<p class=\"muted\">Chance rates computed from the rules: a permutation test rejects IID data with probability "
         "at most 2(t+1)/(N+1) (" + html_escape(num(permutation_false_rejection_rate(rej->iterations, rej->threshold), "%.4g")) +
         " at N = " + std::to_string(rej->iterations) + ", t = " + std::to_string(rej->threshold) +
         "; SP 800-90B's 10,000 and 5: 0.0012), a chi-square test and LRS 0.001; an item at most their sum (a bound "
         "whatever the tests' dependence, so the p-values never overstate the evidence). Below p = " +
         num(kRejectionAlpha) + " a count is called more than chance.</p>\n";
    // Several files: each test's total over them (no p-value, no shading: it judges no file).
    if (pooled) h += "<h3>Per test, all files together (totals)</h3>\n";
    h += std::string("<table class=\"rejections\"><thead><tr><th>test</th><th>items where it ran</th><th>rejected</th>"
                     "<th>expected by chance (at most)</th>") + (pooled ? "" : "<th>p-value</th>") + "</tr></thead><tbody>";
    for (const auto& t : rej->tests) {
      h += std::string("<tr") + (!pooled && t.p_value < kRejectionAlpha ? " class=\"failed\"" : "") + "><td>" +
           html_escape(t.name) + "</td><td class=\"n\">" + std::to_string(t.tested) + "</td><td class=\"n\">" +
           std::to_string(t.rejected) + "</td><td class=\"n\">" + html_escape(expectation_text(t.expected)) + "</td>" +
           (pooled ? "" : "<td class=\"n\">" + p_cell(t.p_value) + "</td>") + "</tr>";
    }
    // The item count: the file's (several files: their table's rows, the total there).
    if (!pooled) {
      h += "<tr><th>any test (the item not IID)</th><td class=\"n\">" + std::to_string(rej->items) +
           "</td><td class=\"n\">" + std::to_string(rej->rejected) + "</td><td class=\"n\">" +
           html_escape(expectation_text(rej->expected)) + "</td><td class=\"n\">" +
           p_cell(rej->p_value) + "</td></tr>";
    }
    h += "</tbody></table>\n";
  }
  if (!shared_notes.empty()) {
    h += "<h3>Notes</h3><ul class=\"notes\">";
    for (const auto& [note, n] : shared_notes) {
      h += "<li>" + html_escape(note) + " <span class=\"muted\">(" +
           (n == items ? std::string("every item") : std::to_string(n) + " items") + ")</span></li>";
    }
    h += "</ul>\n";
  }
  return h + "</section>\n";
}

std::string fnum(const ordered_json& v, const char* f) {
  const std::string s = number(v, f);
  return s.empty() ? "-" : s;
}

// A permutation test's unpermuted statistic: "not run" when it was not computed (the
// compression test skipped by --until-decided or after another failure: no number, never "nan").
std::string statistic_cell(const ordered_json& t) {
  const ordered_json& v = t.contains("unpermuted") ? t["unpermuted"] : ordered_json();
  if (v.is_null() || (v.is_number() && !std::isfinite(v.get<double>()))) return "not run";
  return fnum(v, "%.17g");
}

const ordered_json& at(const ordered_json& j, std::initializer_list<const char*> path) {
  static const ordered_json null_value;
  const ordered_json* p = &j;
  for (const char* k : path) {
    if (!p->is_object() || !p->contains(k)) return null_value;
    p = &(*p)[k];
  }
  return *p;
}

// The numbers a reviewer checks of one IID assessment (an item, or a restart's rows or
// columns).
std::string assessment_numbers(const ordered_json& a) {
  std::string h = "<table><thead><tr><th>estimate</th><th>min-entropy</th><th>p-hat</th><th>p_u</th><th>count of the mode</th>"
                  "</tr></thead><tbody>";
  for (const auto& [key, label] : {std::pair<const char*, const char*>{"hOriginal", "H_original (bits per sample)"},
                                   {"hBitstring", "H_bitstring (bits per bit)"}}) {
    const auto& e = at(a, {"estimates", key});
    if (e.is_null()) continue;
    h += std::string("<tr><td>") + label + "</td><td class=\"n\">" + fnum(at(e, {"minEntropy"}), "%.6f") + "</td><td class=\"n\">" +
         fnum(at(e, {"pHat"}), "%.10g") + "</td><td class=\"n\">" + fnum(at(e, {"pU"}), "%.10g") + "</td><td class=\"n\">" +
         fnum(at(e, {"mode"}), "%.0f") + "</td></tr>";
  }
  h += "</tbody></table>";
  h += "<table><thead><tr><th>test</th><th>statistic</th><th>df / W</th><th>p-value</th><th>result</th></tr></thead><tbody>";
  for (const auto& [key, label] : {std::pair<const char*, const char*>{"independence", "chi-square independence"},
                                   {"goodnessOfFit", "chi-square goodness of fit"}}) {
    const auto& c = at(a, {"chiSquare", key});
    if (c.is_null()) continue;
    h += std::string("<tr><td>") + label + "</td><td class=\"n\">T = " + fnum(at(c, {"T"}), "%.4f") + "</td><td class=\"n\">" +
         fnum(at(c, {"df"}), "%.0f") + "</td><td class=\"n\">" + fnum(at(c, {"pValue"}), "%.6g") + "</td><td>" +
         html_escape(text(c, "result")) + "</td></tr>";
  }
  const auto& lrs = at(a, {"longestRepeatedSubstring"});
  if (!lrs.is_null()) {
    h += "<tr><td>longest repeated substring</td><td class=\"n\">P_col = " + fnum(at(lrs, {"pCol"}), "%.6g") +
         "</td><td class=\"n\">W = " + fnum(at(lrs, {"W"}), "%.0f") + "</td><td class=\"n\">Pr(X &gt;= 1) = " +
         fnum(at(lrs, {"prXGe1"}), "%.6g") + "</td><td>" + (at(lrs, {"passed"}) == true ? "passed" : "failed") + "</td></tr>";
  }
  h += "</tbody></table>";
  const auto& perm = at(a, {"permutation"});
  if (!perm.is_null()) {
    h += "<p class=\"muted\">Permutation tests: seed " + html_escape(text(perm, "seed")) + " (" +
         html_escape(seed_text(at(perm, {"seed"}))) + "), " + html_escape(text(perm, "prng")) +
         (text(perm, "shuffle").empty() ? std::string() : " (" + html_escape(text(perm, "shuffle")) + ")") + ", " +
         fnum(at(perm, {"permutationsRun"}), "%.0f") + " permutations run of " + fnum(at(perm, {"iterations"}), "%.0f") +
         " (threshold " + fnum(at(perm, {"decisionThreshold"}), "%.0f") + "), on " + html_escape(text(perm, "device")) +
         (text(perm, "note").empty() ? "" : "; " + html_escape(perm["note"].get<std::string>())) + "</p>";
    h += "<table><thead><tr><th>statistic</th><th>unpermuted</th><th>C0 (above)</th><th>C1 (equal)</th>"
         "<th>C2 (below)</th><th>result</th></tr></thead><tbody>";
    for (const auto& t : perm["tests"]) {
      const bool failed = t["result"] == "failed";
      h += std::string("<tr") + (failed ? " class=\"failed\"" : "") + "><td>" + html_escape(t["name"].get<std::string>()) +
           "</td><td class=\"n\">" + statistic_cell(t) + "</td><td class=\"n\">" + fnum(at(t, {"C0"}), "%.0f") +
           "</td><td class=\"n\">" + fnum(at(t, {"C1"}), "%.0f") + "</td><td class=\"n\">" + fnum(at(t, {"C2"}), "%.0f") + "</td><td>" +
           html_escape(t["result"].get<std::string>()) + "</td></tr>";
    }
    h += "</tbody></table>";
  }
  return h;
}

std::string item_title(const ordered_json& r, size_t number_1, const std::map<std::string, size_t>& file_index) {
  const std::string f = text(r, "filename");
  std::string title = std::to_string(number_1) + ". F" + std::to_string(file_index.at(f) + 1) + " " + f;
  if (!block_of(r).empty()) title += ", block " + block_of(r);
  return title + ": " + verdict_of(r);
}

std::string details_of(const ordered_json& r, size_t i, const std::map<std::string, size_t>& file_index) {
  const auto parts = parts_of(r);
  const bool estimates = r.contains("nonIid") && !r["nonIid"].is_null() && r.value("errorLevel", 0) == 0;
  const bool restart_estimates = is_restart(r) && r.contains("rowEstimates") && !r["rowEstimates"].is_null();
  std::string h = "<details id=\"item" + std::to_string(i + 1) + "\"><summary>" +
                  html_escape(item_title(r, i + 1, file_index)) + "</summary>\n";
  h += "<p class=\"muted\">SHA-256 of the file " + html_escape(text(r, "sha256")) + "; " +
       fnum(r.contains("timings") ? r["timings"]["total"] : ordered_json(), "%.2f") + " s</p>\n";
  const ordered_json* in = r.contains("input") ? &r["input"] : r.contains("rows") && r["rows"].is_object() ? &r["rows"]["input"]
                                                                                                          : nullptr;
  if (in && in->contains("mapping") && (*in)["mapping"].is_object()) {
    h += "<p>Samples: " + html_escape(text((*in)["mapping"], "summary")) + "</p>\n";
  }
  if (is_restart(r)) {
    const auto& rs = r["restart"];
    h += "<p>Restart tests (3.1.4): claim " + html_escape(text(rs, "claim")) + ", H_I = " +
         fnum(at(rs, {"hI"}), "%.6f") + ", H_r = " + fnum(at(rs, {"hR"}), "%.6f") + ", H_c = " + fnum(at(rs, {"hC"}), "%.6f") +
         ", X_max = " + fnum(at(rs, {"xMax"}), "%.0f") +
         " (cutoff " + fnum(at(rs, {"xCutoff"}), "%.0f") + "), sanity check " + html_escape(text(rs, "sanityCheck")) +
         ", min(H_r, H_c, H_I) " + fnum(at(rs, {"result"}), "%.6f") + "</p>\n";
  }
  for (const ordered_json* a : parts) {
    if (is_restart(r)) h += std::string("<h4>") + (a == &r["rows"] ? "rows" : "columns") + "</h4>\n";
    h += assessment_numbers(*a) + "\n" + ranks_figure(*a) + "\n" + histogram_figure(*a) + "\n";
  }
  if (restart_estimates) {
    const int bits = r["input"]["bitsPerSymbol"].get<int>();
    for (const char* k : {"rowEstimates", "columnEstimates"}) {
      h += std::string("<h4>") + (k[0] == 'r' ? "rows" : "columns") + ": non-IID estimates, minimum " +
           fnum(at(r[k], {"hOriginal"}), "%.6f") + " bits per sample</h4>\n" + estimates_figure(r[k], bits) + "\n";
    }
  }
  if (estimates) {
    h += "<h4>Non-IID estimates (SP 800-90B 6.3): assessed min-entropy " + fnum(at(r, {"assessedMinEntropy"}), "%.6f") +
         " bits per sample</h4>\n" + estimates_figure(r["nonIid"], r["input"]["bitsPerSymbol"].get<int>()) + "\n";
  }
  return h + "</details>\n";
}

// One row of the items table.
std::string item_row(const ordered_json& r, size_t i, bool has_details, const std::set<std::string>& shared_set) {
  std::string h;
    const std::string v = verdict_of(r);
    const bool assessed = is_assessment(r) || is_non_iid(r) || (is_restart(r) && r.contains("input"));
    const ordered_json& in = r.contains("input") ? r["input"] : r;
    const ordered_json& h_assessed = !is_restart(r) ? r.value("assessedMinEntropy", ordered_json())
                                     : r["verdict"]["result"] == "passed" ? r["restart"]["result"]
                                                                          : ordered_json();
    const ordered_json& est = is_non_iid(r) ? r["nonIid"] : at(r, {"estimates"});
    const ordered_json& h_orig = is_non_iid(r) ? est["hOriginal"] : at(est, {"hOriginal", "minEntropy"});
    const ordered_json& h_bits = is_non_iid(r) ? est["hBitstring"] : at(est, {"hBitstring", "minEntropy"});
    const auto names = failed_tests(r);
    std::string failed;
    for (const auto& f : names) failed += (failed.empty() ? "" : ", ") + f;
    std::string notes;
    for (const auto& n : notes_of(r)) {
      if (!shared_set.count(n)) notes += (notes.empty() ? "" : "; ") + n;
    }
    const char* cls = v == "IID" || v == "restart passed" || v == "non-IID estimate" ? "item"
                      : v == "skipped" || v == "inconclusive"                         ? "item other"
                                                                                      : "item failed";
    const std::string num_cell = has_details ? "<a href=\"#item" + std::to_string(i + 1) + "\">" +
                                                            std::to_string(i + 1) + "</a>"
                                                      : std::to_string(i + 1);
    h += std::string("<tr class=\"") + cls + "\" data-verdict=\"" + html_escape(v) + "\"><td data-v=\"" +
         std::to_string(i + 1) + "\">" + num_cell + "</td><td class=\"file\">" + html_escape(text(r, "filename")) +
         "</td><td>" + block_of(r) + "</td><td>" +
         (assessed && in.contains("samples") ? std::to_string(in["samples"].get<uint64_t>()) : "") + "</td><td>" +
         (assessed && in.contains("bitsPerSymbol") ? std::to_string(in["bitsPerSymbol"].get<int>()) : "") +
         "</td><td>" + number(h_orig, "%.6f") + "</td><td>" + number(h_bits, "%.6f") +
         "</td><td>" + (assessed ? number(h_assessed, "%.6f") : "") + "</td><td>" +
         number(at(r, {"chiSquare", "independence", "pValue"}), "%.4g") + "</td><td>" +
         number(at(r, {"chiSquare", "goodnessOfFit", "pValue"}), "%.4g") + "</td><td>" +
         number(at(r, {"longestRepeatedSubstring", "prXGe1"}), "%.4g") + "</td><td>" + html_escape(v) + "</td><td>" +
         html_escape(failed) + "</td><td>" + html_escape(notes) + "</td><td>" +
         number(at(r, {"timings", "total"}), "%.2f") + "</td></tr>\n";
  return h;
}

std::string items_section(const std::vector<ordered_json>& rows, const std::set<size_t>& has_details,
                          const std::set<std::string>& shared_set) {
  std::string h;
  // The items table: numbered from 1; sorts and filters with the script, reads without it.
  h += "<section id=\"items\"><h2>Items</h2>\n<p id=\"filters\">Filter <input id=\"q\" type=\"search\" "
       "placeholder=\"a file name, or any text in a row\"/> <select id=\"v\"><option value=\"\">every verdict</option>";
  std::set<std::string> verdicts;
  for (const auto& r : rows) verdicts.insert(verdict_of(r));
  for (const auto& v : verdicts) h += "<option>" + html_escape(v) + "</option>";
  h += "</select> <span id=\"shown\" class=\"muted\"></span> <span class=\"muted\">(click a heading to sort)</span></p>\n";
  h += "<table id=\"items-table\" class=\"items\"><thead><tr><th data-num>#</th><th>file</th><th data-num>block</th>"
       "<th data-num>samples</th><th data-num>bits</th><th data-num>H_original</th><th data-num>H_bitstring</th>"
       "<th data-num>H_assessed</th><th data-num>chi-square p (indep.)</th><th data-num>chi-square p (fit)</th>"
       "<th data-num>LRS Pr(X&gt;=1)</th><th>verdict</th><th>failed tests</th><th>note</th><th data-num>s</th></tr></thead><tbody>\n";
  for (size_t i = 0; i < rows.size(); ++i) h += item_row(rows[i], i, has_details.count(i) > 0, shared_set);
  h += "</tbody></table></section>\n";
  return h;
}

// The min-entropy of each block along each file.
std::string trend_section(const std::vector<ordered_json>& rows, std::map<std::string, size_t>& file_index) {
  std::string h;
  std::map<std::string, std::vector<TrendPoint>> trends;
  std::map<std::string, int> trend_bits;
  for (const auto& r : rows) {
    if (block_of(r).empty() || !(is_assessment(r) || is_non_iid(r))) continue;
    const std::string f = text(r, "filename");
    const std::string v = verdict_of(r);
    trends[f].push_back({std::stod(block_of(r)), r["assessedMinEntropy"].get<double>(),
                         v == "IID" ? 0 : v == "not IID" ? 1 : 2});
    trend_bits[f] = std::max(trend_bits[f], r["input"]["bitsPerSymbol"].get<int>());
  }
  h += "<section id=\"trend\"><h2>Min-entropy along the files</h2>\n";
  bool any_trend = false;
  for (const auto& [f, pts] : trends) {
    if (pts.size() < 2) continue;
    any_trend = true;
    h += "<h3>F" + std::to_string(file_index[f] + 1) + " " + html_escape(f) + "</h3>\n" + trend_figure(f, pts, trend_bits[f]) + "\n";
  }
  if (!any_trend) h += "<p class=\"muted\">No file was assessed in blocks (--blocks).</p>\n";
  h += "</section>\n";
  return h;
}

}  // namespace

std::string html_report(const std::vector<ordered_json>& rows, const std::string& command_line) {
  constexpr size_t kDetailed = 200;  // item sections at most (the rest: JSON/JSONL)
  std::map<std::string, size_t> file_index;
  const std::string files = files_section(rows, file_index);
  const std::optional<Rejections> rej = count_rejections(rows);
  // Notes every item (or many) shares are said once; the table keeps the rest.
  std::map<std::string, size_t> note_count;
  size_t with_notes = 0;
  for (const auto& r : rows) {
    if (r.contains("skipped") || r.value("errorLevel", 0) != 0) continue;
    ++with_notes;
    for (const auto& n : notes_of(r)) ++note_count[n];
  }
  std::vector<std::pair<std::string, size_t>> shared;
  std::set<std::string> shared_set;
  for (const auto& [n, c] : note_count) {
    if (c >= 2 && (c == with_notes || c * 2 >= with_notes)) {
      shared.emplace_back(n, c);
      shared_set.insert(n);
    }
  }
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/><title>ea_iid report: " +
                  std::to_string(rows.size()) + " items</title><style>" + kStyle + "</style></head><body>\n";
  h += "<h1>SP 800-90B entropy assessment: " + std::to_string(rows.size()) + (rows.size() == 1 ? " item" : " items") +
       "</h1>\n<p class=\"muted\">Made by ea_iid from the items' JSON records; every number below is in them "
       "(docs/json.md). Sections: <a href=\"#run\">run</a>, <a href=\"#files\">files</a>, <a href=\"#summary\">summary</a>, "
       "<a href=\"#trend\">min-entropy along the files</a>, <a href=\"#items\">items</a>, <a href=\"#details\">details</a>.</p>\n";
  h += compliance_banner(rows);
  h += run_section(rows, command_line) + files + summary_section(rows, rej, shared, with_notes);
  h += trend_section(rows, file_index);
  // Which items get a section: all of them up to kDetailed, else the ones not IID first.
  std::vector<size_t> detailed;
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string v = verdict_of(rows[i]);
    if (v != "IID" && v != "skipped" && v != "restart passed" && v != "error" && v != "degenerate") detailed.push_back(i);
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string v = verdict_of(rows[i]);
    if (v == "IID" || v == "restart passed") detailed.push_back(i);
  }
  if (detailed.size() > kDetailed) detailed.resize(kDetailed);
  std::sort(detailed.begin(), detailed.end());
  const std::set<size_t> has_details(detailed.begin(), detailed.end());
  h += items_section(rows, has_details, shared_set);
  h += "<section id=\"details\"><h2>Details</h2>\n<p class=\"muted\">";
  h += detailed.size() == rows.size()
           ? std::string("Every item, collapsed: open one for its numbers and figures (printing opens them all).")
           : std::to_string(detailed.size()) + " of " + std::to_string(rows.size()) +
                 " items have a section here (those not IID first, at most " + std::to_string(kDetailed) +
                 "); every item's numbers are in its JSON record (--jsonl).";
  h += "</p>\n";
  for (size_t i : detailed) {
    const auto& r = rows[i];
    if (r.contains("skipped") || r.value("errorLevel", 0) != 0) {
      if (!is_restart(r)) continue;
    }
    h += details_of(r, i, file_index);
  }
  h += "</section>\n<script>" + std::string(kScript) + "</script>\n</body></html>\n";
  return h;
}

}  // namespace ea
