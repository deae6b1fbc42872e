#include "pdf.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "common/error.hpp"

extern char** environ;

namespace ea::cli {

namespace {

std::string error_text(int err) { return std::strerror(err); }

// "" when `path` is a regular file this process may execute, else why not.
std::string not_executable(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return error_text(errno);
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  if (::access(path.c_str(), X_OK) != 0) return "not executable: " + error_text(errno);
  return "";
}

std::string absolute(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char buf[PATH_MAX];
  return ::getcwd(buf, sizeof buf) ? std::string(buf) + "/" + path : path;
}

// `name` on PATH (the default search path when PATH is unset), or "".
std::string on_path(const std::string& name) {
  const char* env = std::getenv("PATH");
  std::stringstream dirs(env && *env ? env : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string p = (dir.empty() ? "." : dir) + "/" + name;
    if (not_executable(p).empty()) return absolute(p);
  }
  return "";
}

// A file:// URL of an absolute path: every byte but the unreserved ones and '/' escaped.
std::string file_url(const std::string& path) {
  static const char* hex = "0123456789ABCDEF";
  std::string url = "file://";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      url += static_cast<char>(c);
    } else {
      url += '%';
      url += hex[c >> 4];
      url += hex[c & 15];
    }
  }
  return url;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The browser's work: a hidden folder beside the PDF (mode 0700, mkdtemp) holding its profile,
// its log, what it printed and, for a page in memory, the page; removed with all it holds.
class WorkFolder {
 public:
  WorkFolder(const std::string& pdf_path, const std::string& what) {
    const std::string folder = folder_of(pdf_path);
    path_ = folder + "/." + name_of(pdf_path) + ".XXXXXX";
    if (!::mkdtemp(&path_[0])) {
      throw Error(ErrorKind::Output, what + " " + pdf_path + ": cannot make a temporary folder in " + folder + ": " +
                                         error_text(errno));
    }
    path_ = absolute(path_);
  }
  WorkFolder(const WorkFolder&) = delete;
  WorkFolder& operator=(const WorkFolder&) = delete;
  ~WorkFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The browser's last line worth showing (its D-Bus complaints on a machine without a session
// bus are not), at most 300 bytes.
std::string log_tail(const std::string& log_path) {
  std::stringstream log(read_all(log_path));
  std::string line, last;
  while (std::getline(log, line)) {
    if (line.empty() || line.find("dbus") != std::string::npos || line.find("D-Bus") != std::string::npos) continue;
    last = line;
  }
  if (last.size() > 300) last = last.substr(0, 297) + "...";
  return last.empty() ? "it said nothing" : "its last words: " + last;
}

// The child's environment: the parent's, with its configuration and cache folders in `work`
// (crash reports and caches never go to the user's home).
std::vector<std::string> child_environment(const std::string& work) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string kv = *e;
    if (kv.rfind("XDG_CONFIG_HOME=", 0) == 0 || kv.rfind("XDG_CACHE_HOME=", 0) == 0) continue;
    env.push_back(kv);
  }
  env.push_back("XDG_CONFIG_HOME=" + work + "/config");
  env.push_back("XDG_CACHE_HOME=" + work + "/cache");
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& words) {
  std::vector<char*> p;
  for (std::string& w : words) p.push_back(&w[0]);
  p.push_back(nullptr);
  return p;
}

// Starts `args` (args[0] an absolute path) in a process group of its own, in `work`, its
// output into `log_path`. Only async-signal-safe calls between fork and exec (other threads
// may hold locks).
pid_t start_browser(std::vector<std::string> args, const std::string& work, const std::string& log_path,
                    const std::string& what) {
  std::vector<std::string> env = child_environment(work);
  std::vector<char*> argv = pointers(args), envp = pointers(env);
  const int in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  const int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (in < 0 || log < 0) {
    const int err = errno;
    if (in >= 0) ::close(in);
    if (log >= 0) ::close(log);
    throw Error(ErrorKind::Output, what + ": cannot prepare the browser's run: " + error_text(err));
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    if (::dup2(in, 0) < 0 || ::dup2(log, 1) < 0 || ::dup2(log, 2) < 0 || ::chdir(work.c_str()) != 0) ::_exit(127);
    ::signal(SIGPIPE, SIG_DFL);  // ignored by ea_iid (cli/main.cpp): not for the browser
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  const int err = errno;
  ::close(in);
  ::close(log);
  if (pid < 0) throw Error(ErrorKind::Output, what + ": cannot start the browser: " + error_text(err));
  ::setpgid(pid, pid);  // as the child does: whichever runs first (EACCES once it has exec'd)
  return pid;
}

// Kills the browser's process group and reaps its first process.
void kill_browser(pid_t pid) {
  ::kill(-pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

// Waits for the browser: its wait status, or an error after killing it (the timeout, an
// interrupt).
int wait_browser(pid_t pid, int timeout_seconds, const std::atomic<bool>* interrupt, const std::string& what,
                 const std::string& exe) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  while (true) {
    int status = 0;
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (r < 0 && errno != EINTR) {
      const int err = errno;
      kill_browser(pid);
      throw Error(ErrorKind::Output, what + ": cannot wait for the browser " + exe + ": " + error_text(err));
    }
    if (interrupt && interrupt->load()) {
      kill_browser(pid);
      throw Error(ErrorKind::Interrupted, "interrupted");
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      kill_browser(pid);
      throw Error(ErrorKind::Output, what + ": the browser " + exe + " did not finish within " +
                                         std::to_string(timeout_seconds) + " s and was stopped; nothing was written");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// True when `pdf` looks like a whole PDF: "%PDF-" first, "%%EOF" last (then only line ends).
bool whole_pdf(const std::string& pdf) {
  size_t end = pdf.size();
  while (end > 0 && (pdf[end - 1] == '\n' || pdf[end - 1] == '\r' || pdf[end - 1] == ' ')) --end;
  return pdf.rfind("%PDF-", 0) == 0 && end >= 10 && pdf.compare(end - 5, 5, "%%EOF") == 0;
}

// The browser's run on `page` (an absolute path): the PDF it printed.
std::string print_to_pdf(const std::string& exe, const std::string& page, const WorkFolder& work, int timeout_seconds,
                         const std::atomic<bool>* interrupt, const std::string& what, const std::string& pdf_path) {
  const std::string out = work.path() + "/printed.pdf", log = work.path() + "/browser.log";
  // New headless mode (Chromium 112+: --headless); no sandbox, as root needs (the page is
  // ea_iid's own, with no script and no external resource); no network at all. (Scripts stay
  // on: with --blink-settings=scriptEnabled=false Chromium 156 prints nothing.)
  std::vector<std::string> args = {exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                   "--no-default-browser-check", "--disable-extensions", "--disable-sync",
                                   "--disable-background-networking", "--disable-component-update",
                                   "--disable-default-apps", "--host-resolver-rules=MAP * ~NOTFOUND",
                                   "--user-data-dir=" + work.path() + "/profile",
                                   "--no-pdf-header-footer", "--print-to-pdf-no-header", "--print-to-pdf=" + out,
                                   file_url(page)};
  const pid_t pid = start_browser(std::move(args), work.path(), log, what);
  const int status = wait_browser(pid, timeout_seconds, interrupt, what, exe);
  const std::string at = what + " " + pdf_path + ": ";
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    throw Error(ErrorKind::Output, at + "the browser " + exe + " could not be started (" + log_tail(log) + ")");
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    const std::string how = WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                              : "killed by signal " + std::to_string(WTERMSIG(status));
    throw Error(ErrorKind::Output, at + "the browser " + exe + " failed (" + how + "; " + log_tail(log) +
                                       "); nothing was written");
  }
  struct stat st {};
  if (::lstat(out.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    throw Error(ErrorKind::Output, at + "the browser " + exe + " printed no PDF (" + log_tail(log) + "); nothing was written");
  }
  std::string pdf = read_all(out);
  if (!whole_pdf(pdf)) {
    throw Error(ErrorKind::Output, at + "what the browser " + exe + " printed (" + std::to_string(pdf.size()) +
                                       " bytes) is not a whole PDF (\"%PDF-\" first, \"%%EOF\" last); nothing was written");
  }
  return pdf;
}

// write_pdf_from_html and write_pdf_from_page: `page` names the page on disk, or is empty and
// `html` holds it.
void write_pdf(const std::string& page, const std::string* html, const std::string& pdf_path, const std::string& browser,
               int timeout_seconds, const InputSet& inputs, const std::atomic<bool>* interrupt, const std::string& what) {
  const std::string exe = find_browser(browser, what);
  check_pdf_output(pdf_path, inputs, true, what);
  std::string page_path;
  if (!html) {
    char buf[PATH_MAX];
    struct stat st {};
    if (!::realpath(page.c_str(), buf) || ::stat(buf, &st) != 0 || !S_ISREG(st.st_mode)) {
      throw Error(ErrorKind::Input, what + ": the page " + page + " to print is not a readable file");
    }
    page_path = buf;
  }
  if (interrupt && interrupt->load()) throw Error(ErrorKind::Interrupted, "interrupted");
  const WorkFolder work(pdf_path, what);
  if (html) {
    page_path = work.path() + "/page.html";
    std::ofstream out(page_path, std::ios::binary);
    out << *html;
    out.close();
    if (!out) throw Error(ErrorKind::Output, what + " " + pdf_path + ": cannot write the page to print in " + work.path());
  }
  const std::string pdf = print_to_pdf(exe, page_path, work, timeout_seconds, interrupt, what, pdf_path);
  write_file_atomically(pdf_path, pdf, inputs, what);
}

}  // namespace

std::string find_browser(const std::string& browser, const std::string& what) {
  if (!browser.empty()) {
    if (browser.find('/') != std::string::npos) {
      const std::string why = not_executable(browser);
      if (!why.empty()) {
        throw Error(ErrorKind::Usage, "--browser " + browser + ": " + why + "; name Chromium's program (its path, or chromium)");
      }
      return absolute(browser);
    }
    const std::string found = on_path(browser);
    if (found.empty()) throw Error(ErrorKind::Usage, "--browser " + browser + ": not found on PATH; give its path");
    return found;
  }
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    const std::string found = on_path(name);
    if (!found.empty()) return found;
  }
  throw Error(ErrorKind::Usage, what + ": no browser found (chromium, chromium-browser, google-chrome): install Debian's "
                                       "chromium or give --browser PATH");
}

void check_pdf_output(const std::string& pdf_path, const InputSet& inputs, bool force, const std::string& what) {
  if (pdf_path == "-" || descriptor_of(pdf_path) >= 0) {
    throw Error(ErrorKind::Usage, what + " " + pdf_path + ": the PDF is written to a file: name one (not standard output "
                                                          "or a descriptor)");
  }
  check_output_path(pdf_path, inputs, what);
  struct stat st {};
  if (force || ::lstat(pdf_path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) return;
  std::ifstream in(pdf_path, std::ios::binary);
  char head[5] = {};
  in.read(head, sizeof head);
  if (in.gcount() != 5 || std::string(head, 5) != "%PDF-") {
    throw Error(ErrorKind::Output, what + " " + pdf_path + ": exists and is not a PDF (" + std::to_string(st.st_size) +
                                       " bytes); nothing was written. Pass --force to replace it");
  }
}

void write_pdf_from_html(const std::string& html_path, const std::string& pdf_path, const std::string& browser,
                         int timeout_seconds, const InputSet& inputs, const std::atomic<bool>* interrupt,
                         const std::string& what) {
  write_pdf(html_path, nullptr, pdf_path, browser, timeout_seconds, inputs, interrupt, what);
}

void write_pdf_from_page(const std::string& html, const std::string& pdf_path, const std::string& browser,
                         int timeout_seconds, const InputSet& inputs, const std::atomic<bool>* interrupt,
                         const std::string& what) {
  write_pdf("", &html, pdf_path, browser, timeout_seconds, inputs, interrupt, what);
}

}  // namespace ea::cli
