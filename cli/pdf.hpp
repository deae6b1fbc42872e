// A report as PDF (ea_iid source --pdf, the ESV package's EntropyAssessmentReport.pdf): the
// HTML page the report already is, printed by a headless Chromium the machine has
// (docs/report.md "The report as PDF" says why a browser and not a PDF library). Its text
// stays text (selectable, searchable) and its SVG figures stay vectors.
//
// How: the browser runs with fork/exec (arguments as a vector, no shell) in a process group
// of its own, with a private profile (--user-data-dir) in a hidden temporary folder beside the
// PDF and no network; it is killed (the whole group) at the timeout or when
// `interrupt` is set. Its output must start with "%PDF-" and end with "%%EOF"; it then goes to
// the target as every ea_iid output does (cli/output.hpp: a temporary file in the target's
// folder, renamed; never onto an input, a link or anything but a regular file). The temporary
// folder is removed whatever happens.
#pragma once

#include <atomic>
#include <string>

#include "output.hpp"

namespace ea::cli {

// The browser's time limit (start-up included: about 2 s on an idle 2-core machine).
constexpr int kPdfTimeoutSeconds = 120;

// The browser to run: `browser` (--browser: a path, or a name looked up on PATH) or, when
// empty, the first of chromium, chromium-browser, google-chrome on PATH. Its absolute path;
// Error{Usage} naming `what` (or --browser) when there is none.
std::string find_browser(const std::string& browser, const std::string& what = "--pdf");

// Before any work: `pdf_path` as an output (check_output_path: absent or a regular file, not
// an input, not a link), not standard output or a descriptor (the browser writes a file), and
// an existing non-empty file that is not a PDF (its first bytes) replaced only with `force`.
// Throws Error{Output} or Error{Usage} naming `what`.
void check_pdf_output(const std::string& pdf_path, const InputSet& inputs, bool force, const std::string& what = "--pdf");

// Prints the HTML page `html_path` to `pdf_path` (A4, the page's print stylesheet, no header
// or footer). `browser`: as find_browser takes it ("" = search PATH). `timeout_seconds`: the
// browser is killed after it (Error{Output}). `interrupt` (may be null): polled; when set the
// browser is killed and Error{Interrupted} thrown, nothing written. `what` names the output in
// messages ("--pdf"). Throws Error{Input} (no such page), Error{Usage} (no browser),
// Error{Output} (the browser failed, its output is no PDF, the target cannot be written).
void write_pdf_from_html(const std::string& html_path, const std::string& pdf_path, const std::string& browser = "",
                         int timeout_seconds = kPdfTimeoutSeconds, const InputSet& inputs = InputSet{},
                         const std::atomic<bool>* interrupt = nullptr, const std::string& what = "--pdf");

// The same for a page held in memory (`html`, a whole self-contained page): written into the
// private temporary folder first.
void write_pdf_from_page(const std::string& html, const std::string& pdf_path, const std::string& browser = "",
                         int timeout_seconds = kPdfTimeoutSeconds, const InputSet& inputs = InputSet{},
                         const std::atomic<bool>* interrupt = nullptr, const std::string& what = "--pdf");

}  // namespace ea::cli
