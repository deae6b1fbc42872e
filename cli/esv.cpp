// ea_iid esv DIR --manifest sources.json: an ESV submission package (docs/esv.md). Each
// source's first 1,000,000 samples become the package's data files as the server reads them
// (symbols of at most 8 bits, one a byte; its restart data mapped by the same rule; the
// conditioned outputs of non-vetted components), those files are assessed as `ea_iid source
// --manifest` assesses a source, and the registration, run.json, report and hashes are
// written from that assessment: what the package claims is what its own files give.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <omp.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>

#include "help.hpp"
#include "common/error.hpp"
#include "common/sha256.hpp"
#include "esv_check.hpp"
#include "esv_package.hpp"
#include "io/samples.hpp"
#include "lab.hpp"
#include "logging.hpp"
#include "manifest.hpp"
#include "manifest_command.hpp"
#include "manifest_run.hpp"
#include "messages.hpp"
#include "option_groups.hpp"
#include "esv.hpp"
#include "pdf.hpp"
#include "run.hpp"
#include "outcome.hpp"
#include "output.hpp"
#include "report.hpp"
#include "source_settings.hpp"
#include "version.hpp"

namespace ea::cli {

namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

constexpr const char* kMarker = "ea_iid-package.json";

using EsvFlags = EsvPackageOptions;

// DIR: absent (made), or a folder ea_iid wrote (its marker), or an empty folder; any other
// folder only with --force, and never one that holds one of m's inputs (the manifest, a
// source's files). A link or a file is refused.
void check_package_dir(const EsvFlags& f, const Manifest& m) {
  std::error_code ec;
  const fs::path here = fs::current_path(ec), dir = fs::weakly_canonical(f.dir, ec);
  const std::string rel = fs::relative(here, dir, ec).generic_string();
  if (!ec && !rel.empty() && rel.rfind("..", 0) != 0) {
    throw Error(ErrorKind::Usage, "esv: " + f.dir + " holds the current folder; the package replaces DIR whole: name "
                                                     "another folder, or run from outside it");
  }
  struct stat st {};
  if (::lstat(f.dir.c_str(), &st) != 0) return;
  if (S_ISLNK(st.st_mode)) throw Error(ErrorKind::Output, "esv: " + f.dir + ": a symbolic link: name the folder itself");
  if (!S_ISDIR(st.st_mode)) throw Error(ErrorKind::Output, "esv: " + f.dir + ": " + file_type_name(st.st_mode) + ", not a folder");
  const bool ours = fs::exists(fs::path(f.dir) / kMarker);
  if (fs::is_empty(f.dir) || (ours && !f.force)) return;  // an earlier package: refuse_losing keeps what is not ours
  if (!f.force) {
    throw Error(ErrorKind::Output, "esv: " + f.dir + " is a folder that is not an ea_iid package: it is replaced only with --force");
  }
  // --force drops what it finds in the way (another folder whole; of a package, changed and
  // orphaned files): never an input, and what goes from another folder is said.
  const InputSet inputs = manifest_inputs(m, f.manifest);
  size_t files = 0;
  std::error_code walk;
  for (auto e = fs::recursive_directory_iterator(f.dir, walk); !walk && e != fs::recursive_directory_iterator();
       e.increment(walk)) {
    struct stat est {};
    if (::lstat(e->path().c_str(), &est) != 0 || S_ISDIR(est.st_mode)) continue;
    ++files;
    if (const std::string* input = inputs.find(est)) {
      throw Error(ErrorKind::Output, "esv: " + f.dir + " holds the input " + *input + " (as " +
                                         esv_path_under(e->path(), f.dir) + "); --force may drop what DIR holds, inputs "
                                         "included: name another folder, or move the inputs out of it" +
                                         (ours ? ", or leave --force out" : ""));
    }
  }
  if (walk) throw Error(ErrorKind::Output, "esv: " + f.dir + ": " + walk.message() + " (a folder in it cannot be read)");
  if (!ours) {
    logger().warn("esv: --force: {} is not an ea_iid package; its {} file{} go when the package takes its place", f.dir,
                  files, files == 1 ? "" : "s");
  }
}

// What a source must hold to be packaged, checked before any work: 1,000,000 samples of raw
// noise, restart data, conditioned data of at least as many bytes for each non-vetted
// component, a vetted component's ACVTS name and validation.
void check_packable(const ManifestSource& s, bool command_line) {
  // The manifest's field names, or the options of `ea_iid source --esv` (one source).
  const std::string where = command_line ? "--esv" : s.where(), raw = command_line ? "SAMPLES" : "rawNoisePath",
                    restart = command_line ? "--restart-data" : "restartTestPath",
                    format_field = command_line ? "--sample-format" : "sampleFormat",
                    conditioned = command_line ? "--conditioned" : "unvettedConditionedPaths";
  const auto bytes = [](const std::string& p) { return static_cast<uint64_t>(fs::file_size(p)); };
  std::string lower = s.stem;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* name : {"README.txt", "SHA256SUMS", kMarker}) {
    std::string reserved = name;
    std::transform(reserved.begin(), reserved.end(), reserved.begin(), [](unsigned char c) { return std::tolower(c); });
    if (lower == reserved) {
      throw Error(ErrorKind::Usage, where + ": " + (command_line ? std::string("the source's name") : "primaryNoiseSource") +
                                        ": '" + s.spec.name + "' would name its folder " + name +
                                        ", a file of the package itself: give the source another name");
    }
  }
  const SampleFormat format = s.sample_input ? s.sample_input->format : SampleFormat::U8;
  if (format == SampleFormat::Text) {
    throw Error(ErrorKind::Usage, where + ": " + format_field + " text: ESV data files are binary; write the capture as bytes or as u16le/u16be/u32le/u32be "
                                      "samples first (docs/sample-formats.md)");
  }
  const uint64_t need = kEsvSamples * static_cast<uint64_t>(sample_bytes(format));
  if (bytes(s.spec.samples) < need) {
    throw Error(ErrorKind::Usage, where + ": " + raw + ": " + s.spec.samples + " has " + std::to_string(bytes(s.spec.samples)) +
                                      " bytes; an ESV raw noise file holds 1000000 samples (" + std::to_string(need) +
                                      " bytes as " + sample_format_name(format) +
                                      "; of a longer capture the first 1000000 are packaged)");
  }
  if (!s.spec.restart_data) {
    throw Error(ErrorKind::Usage, where + ": " + restart + ": an ESV submission holds restart data (1,000 restarts x "
                                            "1,000 samples): the server runs the restart tests and certifies only when "
                                            "they pass" + (command_line ? "; give --restart-data FILE" : ""));
  }
  for (size_t k = 0; k < s.spec.conditioning.size(); ++k) {
    const SourceConditioning& c = s.spec.conditioning[k];
    const std::string at = command_line ? where + ": " : where + ": conditioningComponent[" + std::to_string(k) + "].";
    if (c.vetted && (!c.description || c.description->empty())) {
      throw Error(ErrorKind::Usage, at + "description: a vetted component is registered by its ACVTS name (docs/esv.md)");
    }
    if (c.vetted && !c.validation_number) {
      throw Error(ErrorKind::Usage, at + "validationNumber: a vetted component is registered with its ACVTS validation");
    }
    if (!c.vetted && !c.conditioned) {
      throw Error(ErrorKind::Usage, at + conditioned + ": ESV takes the conditioned output of a non-vetted "
                                         "component as a data file, not hPrime");
    }
    if (c.conditioned && bytes(*c.conditioned) < kEsvSamples) {
      throw Error(ErrorKind::Usage, at + conditioned + ": " + *c.conditioned + " has " +
                                        std::to_string(bytes(*c.conditioned)) + " bytes; ESV takes exactly 1000000");
    }
  }
}

void write_bytes(const std::string& path, const uint8_t* p, size_t n) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(p), static_cast<std::streamsize>(n));
  out.close();
  if (!out) throw Error(ErrorKind::Output, "esv: cannot write " + path);
}

std::vector<uint8_t> first_bytes(const std::string& path, uint64_t n) {
  std::vector<uint8_t> b(n);
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(b.data()), static_cast<std::streamsize>(n));
  if (static_cast<uint64_t>(in.gcount()) != n) throw Error(ErrorKind::Input, "esv: " + path + ": cannot read " + std::to_string(n) + " bytes");
  return b;
}

// The package's data files of source `s` in `folder`, and the source as the package holds it:
// its files there, as u8 symbols of the width its first 1,000,000 samples were mapped to.
ManifestSource stage_source(const ManifestSource& s, const std::string& folder, int threads, EsvFiles& files) {
  LoadOptions o;
  o.width = s.bits.value_or(0);
  o.subset = SubsetSpec{0, kEsvSamples};
  if (s.sample_input) o.sample_input = *s.sample_input;
  o.threads = threads;
  const Dataset d = load_dataset(s.spec.samples, o);
  ManifestSource p = s;
  p.sample_input.reset();
  p.bits = d.width;
  p.spec.samples = folder + files.raw;
  write_bytes(p.spec.samples, d.raw.data(), d.raw.size());
  if (s.spec.restart_data) {
    LoadOptions r;
    r.width = d.width;
    r.sample_input = resolved_input(d.mapping);  // the sequential data's mask or bins
    const Dataset rd = load_dataset(*s.spec.restart_data, r);
    files.restart = "restart.bin";
    p.spec.restart_data = folder + files.restart;
    write_bytes(*p.spec.restart_data, rd.raw.data(), rd.raw.size());
  }
  for (size_t k = 0; k < p.spec.conditioning.size(); ++k) {
    SourceConditioning& c = p.spec.conditioning[k];
    if (!c.conditioned) continue;
    const std::string name = "conditioned-" + std::to_string(k + 1) + ".bin";
    const std::vector<uint8_t> b = first_bytes(*c.conditioned, kEsvSamples);
    c.conditioned = folder + name;
    write_bytes(*c.conditioned, b.data(), b.size());
    files.conditioned.push_back(name);
  }
  return p;
}

}  // namespace

std::vector<Settings> esv_settings(const EngineOptionText& text, const Manifest& m) {
  Settings base;
  const EngineChoice engine = apply_engine_options(text, base, Program::EaIid);
  Settings probe = base;
  probe.threads = engine.threads ? *engine.threads : 1;
  const SettingsGiven g = source_settings_given(text, engine, base, false, false);
  check_manifest_settings(m, probe, g, false, cli_setting_names());
  base.threads = engine.threads ? *engine.threads : omp_get_max_threads();
  std::vector<Settings> out;
  for (const ManifestSource& s : m.sources) out.push_back(manifest_source_settings(s, base, false));
  if (std::any_of(out.begin(), out.end(), draws_random_numbers)) {
    const uint64_t seed = engine.seed ? *engine.seed : os_seed();
    if (!engine.seed) logger().info("--seed {} (drawn from the OS; pass --seed to repeat this package)", seed);
    for (Settings& s : out) s.seed = seed;
  }
  return out;
}

std::vector<ordered_json> esv_assess(const Manifest& staged, const std::vector<Settings>& settings,
                                     const std::string& command_line, bool quiet, const std::atomic<bool>& interrupt) {
  std::vector<ordered_json> records(staged.sources.size());
  ReportOptions ro;
  ro.started = timestamp_now();
  ro.command_line = command_line;
  ro.quiet = true;
  ManifestHooks h;
  h.started = [&](size_t k) {
    if (!quiet) logger().info("{}: assessing the package's files", staged.sources[k].where());
  };
  h.failed = [&](size_t k, const Error& e) {
    logger().error("{}: {}", staged.sources[k].where(), worded(e));
    return worded(e);
  };
  h.finished = [&](size_t k, ordered_json record) { records[k] = std::move(record); };
  std::vector<size_t> todo(staged.sources.size());
  for (size_t k = 0; k < todo.size(); ++k) todo[k] = k;
  Engine engine;
  const ManifestSummary sum = run_manifest_sources(engine, 1, staged, todo, settings, ro, interrupt, h);
  if (sum.interrupted) throw Error(ErrorKind::Interrupted, "interrupted");
  return records;
}

namespace {

// The sources assessed on the package's own files: each one's record, in manifest order.
std::vector<ordered_json> assess_package(const Manifest& staged, const std::vector<Settings>& settings,
                                         const std::string& command_line, bool quiet, const std::atomic<bool>& interrupt) {
  std::vector<ordered_json> records = esv_assess(staged, settings, command_line, quiet, interrupt);
  for (size_t k = 0; k < records.size(); ++k) {
    if (records[k].value("type", std::string()) != "Source") {
      throw Error(ErrorKind::Input, staged.sources[k].where() + ": its assessment failed (" +
                                        records[k].value("errorMessage", std::string("no record")) + "); no package written");
    }
    const ordered_json& flow = records[k]["flow"];
    if (staged.sources[k].iid_claim.value_or(false) && flow["verdict"] != "IID") {
      throw Error(ErrorKind::Input, staged.sources[k].where() + ": iidClaim is true, but the IID tests on the package's files say " +
                                        (flow["verdict"].is_string() ? flow["verdict"].get<std::string>() : std::string("nothing")) +
                                        ": an IID claim stands only when they find the data IID (SP 800-90B 3.1.1) and esv "
                                        "check refuses it; set iidClaim false (or leave it out) to register the non-IID "
                                        "track's entropy; no package written");
    }
    const ordered_json& restart = flow["restart"];
    if (restart.is_object() && restart.value("result", std::string()) != "passed") {
      throw Error(ErrorKind::Input, staged.sources[k].where() + ": the restart tests " + restart.value("result", std::string()) +
                                        " on the package's files (sanity check " + restart.value("sanityCheck", std::string()) +
                                        "): no entropy stands to register and the server would not certify it; no package "
                                        "written (ea_iid source with this source's files shows the restart tests)");
    }
  }
  return records;
}

std::string text_of(const ordered_json& j) { return dump_json(j, 2) + "\n"; }

// The record with the staging folder's paths made the package's: "/abs/DIR.partial-N/STEM/rawNoise.bin"
// becomes "rawNoise.bin", as the source's folder names its files (the report and
// assessment.json name the files the package holds, not where they were made).
void relative_paths(ordered_json& j, const std::string& folder) {
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    if (s.rfind(folder, 0) == 0) j = s.substr(folder.size());
  } else if (j.is_structured()) {
    for (auto& v : j) relative_paths(v, folder);
  }
}

void write_text_file(const std::string& path, const std::string& text) {
  write_bytes(path, reinterpret_cast<const uint8_t*>(text.data()), text.size());
}

// A source's documents in its folder: its record, registration, run file and report.
void write_source_documents(const ManifestSource& m, const std::string& folder, const ordered_json& record,
                            const EsvFiles& files, const std::string& browser, const std::atomic<bool>& interrupt) {
  ordered_json kept = record;
  kept.erase("run");
  relative_paths(kept, folder);
  write_text_file(folder + files.record, text_of(kept));
  const ordered_json registration = esv_registration(m, kept);
  write_text_file(folder + files.registration, text_of(registration));
  write_text_file(folder + "run.json", text_of(esv_run_file(registration, files)));
  const std::string html = folder + "EntropyAssessmentReport.html";
  write_text_file(html, source_html(kept, files.record));
  write_pdf_from_html(html, folder + files.report, browser, kPdfTimeoutSeconds, InputSet{}, &interrupt, "esv: the report PDF");
}

// SHA256SUMS over every file of the package (sorted, paths relative to it), as sha256sum -c reads it.
std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  for (size_t at = 0; at < text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    if (end > at) lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

std::string sums_of(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string name = esv_path_under(e.path(), dir);
    if (e.is_regular_file() && name != "SHA256SUMS") names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  std::string t;
  for (const std::string& n : names) t += sha256_file(dir + "/" + n) + "  " + n + "\n";
  return t;
}

// An earlier package's files that a new one must not lose. The marker lists the files ea_iid
// wrote with their SHA-256 (`files`; a package of an ea_iid before it: SHA256SUMS's lines); any
// other file is the lab's (README.txt's PublicUseDocument.pdf, NIST's client's jsons/ and
// config.json, a folder of its own) and is kept in the new package, whatever SHA256SUMS says
// (esv check asks the lab to list its additions there). A file of ea_iid's whose bytes changed
// since (run.json's Certify filled in) is replaced only with --force, as are the lab's files in
// the folder of a source the manifest no longer has (the folder goes) and the lab's files that
// bear a name the new package writes (or sit in a folder so named). What a package cannot hold
// is refused too, before any work: a link that leads out of DIR or nowhere (the package would
// list a file it does not have), a FIFO, socket or device; --force leaves those out.
struct EarlierFiles {
  std::vector<std::string> added;     // kept: relative paths (files, links inside DIR, folders left empty)
  std::vector<std::string> edited;    // ea_iid's, changed since written
  std::vector<std::string> orphaned;  // the lab's, in the folder of a source no longer there
  std::vector<std::string> clashing;  // the lab's, named as a file the new package writes
  std::vector<std::string> outside;   // the lab's links out of DIR or to nothing: "path -> target"
  std::vector<std::string> special;   // the lab's FIFOs, sockets, devices
};

// A file name the package writes in a source's folder, or at its top ("" folder).
bool package_file_name(const std::string& rel) {
  const size_t slash = rel.find('/');
  const std::string name = slash == std::string::npos ? rel : rel.substr(slash + 1);
  if (slash == std::string::npos) return name == "README.txt" || name == "SHA256SUMS" || name == kMarker;
  for (const char* n : {"registration.json", "rawNoise.bin", "restart.bin", "EntropyAssessmentReport.html",
                        "EntropyAssessmentReport.pdf", "assessment.json", "run.json"}) {
    if (name == n) return true;
  }
  return false;  // (a source's conditioned-P.bin: NewPackage::writes)
}

// The paths the new package writes, known before any work: the fixed names, and each source's
// conditioned-P.bin (a non-vetted component with conditioned output).
struct NewPackage {
  std::vector<std::string> folders;
  std::vector<std::string> conditioned;  // "folder/conditioned-P.bin"

  explicit NewPackage(const Manifest& m) {
    for (const ManifestSource& s : m.sources) {
      folders.push_back(s.stem);
      for (size_t k = 0; k < s.spec.conditioning.size(); ++k) {
        if (s.spec.conditioning[k].conditioned) conditioned.push_back(s.stem + "/conditioned-" + std::to_string(k + 1) + ".bin");
      }
    }
  }
  bool folder(const std::string& top) const { return std::find(folders.begin(), folders.end(), top) != folders.end(); }
  bool writes(const std::string& rel) const {
    const size_t slash = rel.find('/');
    if (slash == std::string::npos) return package_file_name(rel);
    return folder(rel.substr(0, slash)) && (package_file_name(rel) ||
                                            std::find(conditioned.begin(), conditioned.end(), rel) != conditioned.end());
  }
  // The lab's `rel` would meet the new package's files: the same name, inside a folder named as
  // one of its files, or a file (or link) at the top named as a source's folder.
  bool clashes(const std::string& rel, bool is_folder) const {
    for (size_t p = rel.find('/'); p != std::string::npos; p = rel.find('/', p + 1)) {
      if (writes(rel.substr(0, p))) return true;
    }
    return writes(rel) || (!is_folder && rel.find('/') == std::string::npos && folder(rel));
  }
};

// The files ea_iid wrote, with their SHA-256: the marker's list, else SHA256SUMS's lines
// ("HEX  path" or sha256sum -b's "HEX *path", CRLF or LF).
std::map<std::string, std::string> written_files(const std::string& dir, const ordered_json& marker) {
  std::map<std::string, std::string> out;
  if (marker.contains("files") && marker["files"].is_object()) {
    for (const auto& [path, hash] : marker["files"].items()) {
      if (hash.is_string()) out[path] = hash.get<std::string>();
    }
    return out;
  }
  // A package of an ea_iid before the marker's list: SHA256SUMS's lines of the names the
  // package writes (the lab may have listed its own files there, as esv check advises; an
  // edit whose line the lab updated cannot be seen).
  std::ifstream in(fs::path(dir) / "SHA256SUMS");
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.size() <= 66 || (line.compare(64, 2, "  ") != 0 && line.compare(64, 2, " *") != 0)) continue;
    std::string path = line.substr(66);
    while (path.rfind("./", 0) == 0) path.erase(0, 2);
    const std::string name = path.substr(path.find('/') == std::string::npos ? 0 : path.find('/') + 1);
    const bool conditioned = path.find('/') != std::string::npos && name.rfind("conditioned-", 0) == 0 &&
                             name.find('/') == std::string::npos;
    if (package_file_name(path) || conditioned) out[path] = line.substr(0, 64);
  }
  return out;
}

// Where the lab's link `e` leads: "" inside DIR (kept as a link), else its target as written.
std::string link_out_of(const fs::directory_entry& e, const fs::path& root) {
  std::error_code ec;
  const fs::path target = fs::read_symlink(e.path(), ec);
  const fs::path to = fs::canonical(e.path(), ec);
  const std::string r = fs::canonical(root).string() + "/";
  if (!ec && to.string().rfind(r, 0) == 0) return "";
  return target.string().empty() ? "?" : target.string();
}

EarlierFiles survey_earlier(const EsvFlags& f, const NewPackage& next) {
  EarlierFiles out;
  const fs::path root(f.dir);
  std::ifstream marker_in(root / kMarker);
  if (!marker_in) return out;  // empty, or another folder under --force
  const ordered_json marker = ordered_json::parse(marker_in, nullptr, false);
  std::vector<std::string> old_sources;
  if (marker.is_object() && marker.contains("sources") && marker["sources"].is_array()) {
    for (const auto& x : marker["sources"]) {
      if (x.is_object() && x.contains("folder") && x["folder"].is_string()) {
        old_sources.push_back(x["folder"].get<std::string>());
      }
    }
  }
  const std::map<std::string, std::string> ours = written_files(f.dir, marker.is_object() ? marker : ordered_json::object());
  if (ours.empty()) {
    if (f.force) return out;  // replaced whole, as asked
    throw Error(ErrorKind::Output, "esv: " + f.dir + " lists no file ea_iid wrote (its marker's files, or SHA256SUMS), "
                                   "so they cannot be told from those added since: move the added files out and give "
                                   "--force to replace " + f.dir);
  }
  const auto listed = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  const std::vector<std::string>& sources = next.folders;
  for (auto e = fs::recursive_directory_iterator(root); e != fs::recursive_directory_iterator(); ++e) {
    const std::string rel = esv_path_under(e->path(), root);
    const bool folder = e->is_directory() && !e->is_symlink();
    if ((folder && !fs::is_empty(e->path())) || rel == kMarker || rel == "SHA256SUMS") continue;
    const auto it = ours.find(rel);
    if (it != ours.end()) {
      if (e->is_regular_file() && sha256_file(e->path().string()) != it->second) out.edited.push_back(rel);
      continue;
    }
    const size_t slash = rel.find('/');
    const std::string top = rel.substr(0, slash);
    const fs::file_status st = e->symlink_status();
    if (slash != std::string::npos && listed(old_sources, top) && !listed(sources, top)) {
      out.orphaned.push_back(rel);
    } else if (next.clashes(rel, folder)) {
      out.clashing.push_back(rel);
    } else if (fs::is_symlink(st)) {
      const std::string target = link_out_of(*e, root);
      (target.empty() ? out.added : out.outside).push_back(target.empty() ? rel : rel + " -> " + target);
    } else if (!fs::is_regular_file(st) && !fs::is_directory(st)) {
      out.special.push_back(rel);
    } else {
      out.added.push_back(rel);
    }
  }
  for (auto* list : {&out.added, &out.edited, &out.orphaned, &out.clashing, &out.outside, &out.special}) {
    std::sort(list->begin(), list->end());
  }
  return out;
}

std::string listed_paths(const std::vector<std::string>& paths) {
  std::string t;
  for (size_t i = 0; i < paths.size() && i < 5; ++i) t += (i ? ", " : "") + paths[i];
  return paths.size() > 5 ? t + " and " + std::to_string(paths.size() - 5) + " more" : t;
}

// Before any work: what a new package in DIR would replace or drop of the lab's.
void refuse_losing(const EsvFlags& f, const EarlierFiles& e) {
  if (f.force) return;
  if (!e.edited.empty()) {
    throw Error(ErrorKind::Output, "esv: " + f.dir + " holds files changed since ea_iid wrote them (" +
                                       listed_paths(e.edited) + ": their SHA-256 is not the one written); a new "
                                       "package would replace them: copy your changes out, or give --force to replace them");
  }
  if (!e.orphaned.empty()) {
    throw Error(ErrorKind::Output, "esv: " + f.dir + " holds files added to folders of sources the manifest no longer "
                                       "has (" + listed_paths(e.orphaned) + "); a new package would drop them: move "
                                       "them out, or give --force to drop them");
  }
  if (!e.clashing.empty()) {
    throw Error(ErrorKind::Output, "esv: " + f.dir + " holds files added since, named as files the new package writes or "
                                       "its folders (" + listed_paths(e.clashing) + "); move them out, or give --force to "
                                       "replace them");
  }
  if (!e.outside.empty()) {
    throw Error(ErrorKind::Output, "esv: " + f.dir + " holds links that lead out of it or to nothing (" +
                                       listed_paths(e.outside) + "); a package is uploaded as its files: put the file "
                                       "itself in their place, or give --force to leave them out");
  }
  if (!e.special.empty()) {
    throw Error(ErrorKind::Output, "esv: " + f.dir + " holds entries that are not files, folders or links (" +
                                       listed_paths(e.special) + ": a FIFO, socket or device); move them out, or give "
                                       "--force to leave them out");
  }
}

// The lab's added files (and empty folders) copied into the staged package, kept as they are.
// Returns whether any was.
bool carry_added(const std::string& dir, const std::string& staged, const EsvFlags& f, const EarlierFiles& e) {
  for (const std::string& rel : e.added) {
    const fs::path from = fs::path(dir) / rel, to = fs::path(staged) / rel;
    if (fs::exists(fs::symlink_status(to))) {  // the new package's own: it wins (the survey foresaw none)
      if (!f.force) {
        throw Error(ErrorKind::Output, "esv: " + from.string() + " was added to the earlier package, and the new one "
                                       "writes a file of that name: move it out, or give --force to replace it");
      }
      continue;
    }
    fs::create_directories(to.parent_path());
    const fs::file_status st = fs::symlink_status(from);
    if (fs::is_directory(st)) {
      fs::create_directories(to);
    } else {
      fs::copy(from, to, fs::copy_options::copy_symlinks);
      if (fs::is_regular_file(st)) fs::last_write_time(to, fs::last_write_time(from));  // as the lab left it
    }
  }
  if (!e.added.empty() && !f.quiet) {
    logger().info("esv: kept {} file{} added to the earlier package: {}", e.added.size(), e.added.size() == 1 ? "" : "s",
                  listed_paths(e.added));
  }
  return !e.added.empty();
}

// The package as written must pass `esv check`'s registration and file checks (the rehearsal
// is this run's own assessment): a finding that is an error leaves DIR as it was.
void refuse_failing(const std::string& staged) {
  for (const EsvFinding& x : check_package(staged)) {
    if (x.severity != EsvSeverity::Error) continue;
    throw Error(ErrorKind::Input, "esv: the package would not pass esv check, so it is not written: " + esv_finding_text(x));
  }
}

// The staged package takes DIR's place: an earlier package (or, with --force, folder) is
// moved aside first and removed once the new one is in place.
void put_in_place(const std::string& staged, const std::string& dir) {
  const std::string old = dir + ".replaced-" + std::to_string(::getpid());
  const bool had = fs::exists(dir);
  if (had) fs::rename(dir, old);
  try {
    fs::rename(staged, dir);
  } catch (const fs::filesystem_error&) {
    if (had) fs::rename(old, dir);  // the earlier package back where it was
    throw;
  }
  if (had) fs::remove_all(old);
}

// What an earlier run killed before its cleanup left beside DIR: DIR.partial-PID and
// DIR.replaced-PID of a process that no longer runs (a live one's are left alone).
void remove_leftovers(const std::string& dir) {
  const fs::path d = fs::absolute(dir).lexically_normal();
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(d.parent_path(), ec)) {
    const std::string name = e.path().filename().string(), base = d.filename().string();
    for (const char* tag : {".partial-", ".replaced-"}) {
      const std::string lead = base + tag;
      if (name.rfind(lead, 0) != 0) continue;
      const std::string pid = name.substr(lead.size());
      if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos || pid.size() > 9) continue;
      if (::kill(static_cast<pid_t>(std::stol(pid)), 0) != 0 && errno == ESRCH) fs::remove_all(e.path(), ec);
    }
  }
}

void write_package(const EsvFlags& f, const Manifest& m, const EarlierFiles& earlier, const std::string& command_line,
                   const std::atomic<bool>& interrupt) {
  // Absolute: the browser that prints the report is given file paths of its own working folder.
  const std::string staged = fs::absolute(f.dir).lexically_normal().string() + ".partial-" + std::to_string(::getpid());
  remove_leftovers(f.dir);
  fs::remove_all(staged);
  fs::create_directories(staged);
  struct Cleanup {
    std::string path;
    bool keep = false;
    ~Cleanup() {
      std::error_code ec;
      if (!keep) fs::remove_all(path, ec);
    }
  } cleanup{staged};
  const std::vector<Settings> settings0 = esv_settings(f.engine, m);
  Manifest inside = m;
  std::vector<EsvFiles> files(m.sources.size());
  std::vector<std::string> stems;
  for (size_t k = 0; k < m.sources.size(); ++k) {
    const std::string folder = staged + "/" + m.sources[k].stem + "/";
    fs::create_directories(folder);
    inside.sources[k] = stage_source(m.sources[k], folder, settings0[k].threads, files[k]);
    stems.push_back(m.sources[k].stem);
  }
  std::vector<Settings> settings = settings0;
  for (size_t k = 0; k < settings.size(); ++k) {
    settings[k] = manifest_source_settings(inside.sources[k], settings0[k], false);
    settings[k].sample_input = SampleInput{};  // the package's files: u8 symbols, as the server reads them
  }
  const std::vector<ordered_json> records = assess_package(inside, settings, command_line, f.quiet, interrupt);
  ordered_json marker{{"tool", "ea_iid"}, {"toolVersion", version_string()}, {"packageVersion", 1}, {"sources", ordered_json::array()}};
  for (size_t k = 0; k < m.sources.size(); ++k) {
    write_source_documents(m.sources[k], staged + "/" + stems[k] + "/", records[k], files[k], f.browser, interrupt);
    marker["sources"].push_back({{"name", m.sources[k].spec.name}, {"folder", stems[k]}});
  }
  write_text_file(staged + "/README.txt", esv_readme(stems, version_string()));
  marker["files"] = ordered_json::object();  // what ea_iid wrote: a later run tells the lab's additions by it
  for (const std::string& line : split_lines(sums_of(staged))) marker["files"][line.substr(66)] = line.substr(0, 64);
  write_text_file(staged + "/" + kMarker, text_of(marker));
  write_text_file(staged + "/SHA256SUMS", sums_of(staged));
  refuse_failing(staged);
  // The lab's files of an earlier package, listed in SHA256SUMS too (every file, as esv check asks).
  if (carry_added(f.dir, staged, f, earlier)) write_text_file(staged + "/SHA256SUMS", sums_of(staged));
  put_in_place(staged, f.dir);
  cleanup.keep = true;
  for (size_t k = 0; k < m.sources.size(); ++k) {  // said now, as esv check will say it
    if (records[k].value("forCompliance", true)) continue;
    const auto& notes = records[k]["complianceNotes"];
    logger().warn("esv: {}: not for compliance ({}): build the package again with the standard's settings before upload",
                  m.sources[k].spec.name,
                  notes.is_array() && !notes.empty() && notes[0].is_string() ? notes[0].get<std::string>() : "see its report");
  }
  if (!f.quiet) {
    std::vector<LabRow> lab;
    for (size_t k = 0; k < m.sources.size(); ++k) lab.push_back(LabRow{m.sources[k].spec.name, records[k], "", m.sources[k].iid_claim});
    std::fputs(lab_text(lab).c_str(), stdout);
    std::printf("Package: %s (%zu source%s); check it before upload: ea_iid esv check %s\n", f.dir.c_str(), m.sources.size(),
                m.sources.size() == 1 ? "" : "s", f.dir.c_str());
  }
}

}  // namespace

void make_esv_package(EsvPackageOptions f, const Manifest& m, const std::string& command_line,
                      const std::atomic<bool>& interrupt) {
  if (f.dir.size() > 1 && f.dir.back() == '/') f.dir.pop_back();
  for (const ManifestSource& s : m.sources) check_packable(s, f.command_line);
  check_package_dir(f, m);
  const EarlierFiles earlier = survey_earlier(f, NewPackage(m));
  refuse_losing(f, earlier);
  find_browser(f.browser, "esv (the report PDF)");
  write_package(f, m, earlier, command_line, interrupt);
}

int esv_package_command(std::vector<char*> args, const std::string& command_line, const std::atomic<bool>& interrupt,
                        const std::atomic<int>& signal_number) {
  EsvFlags f;
  try {
    init_logging("info");
    CLI::App app{"ea_iid esv: an ESV submission package (docs/esv.md): per source the registration JSON, the data files "
                 "as the ESV server reads them (1,000,000 samples, one a byte), the report as PDF, NIST's client's "
                 "run.json, SHA256SUMS; the numbers from an assessment of the package's own files.",
                 "ea_iid esv"};
    ea::cli::wrap_help(app);
    app.add_option("DIR", f.dir, "the package's folder (made; an earlier package is replaced)")->required()->type_name("DIR");
    app.add_option("--manifest", f.manifest, "the sources (docs/manifest.md): the registration's fields and the files")
        ->required()
        ->type_name("FILE.json");
    app.add_option("--browser", f.browser, "the browser that prints the report as PDF (default: chromium on PATH)")->type_name("PATH");
    app.add_flag("--force", f.force,
                 "replace DIR even when it is not an ea_iid package; of an earlier package, replace files changed "
                 "since it was written and drop files added to folders of sources no longer in the manifest");
    app.add_flag("-q", f.quiet, "nothing on standard output");
    add_engine_options(app, f.engine, Program::EaIid);
    app.footer("Example:\n  ea_iid esv package/ --manifest sources.json && ea_iid esv check package/\n"
               "Exit status: 0 written, 2 errors (a manifest or data error: before any work, nothing written), 130/143 "
               "interrupted (nothing written).");
    if (const int done = parse_subcommand(app, args, "ea_iid esv"); done >= 0) return done;
    make_esv_package(f, read_manifest(f.manifest), command_line, interrupt);
    return 0;
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::Interrupted || interrupt.load()) {
      logger().error("interrupted: no package written");
      return signal_number.load() == SIGTERM ? 143 : 130;
    }
    logger().error("{}", worded(e));
  } catch (const std::exception& e) {
    logger().error("esv: {}", e.what());
  }
  return 2;
}

}  // namespace ea::cli
