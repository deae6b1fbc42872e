#include "output.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "io/samples.hpp"

namespace ea::cli {

namespace {

[[noreturn]] void output_error(const std::string& what, const std::string& path, const std::string& problem) {
  throw Error(ErrorKind::Output, (what.empty() ? "" : what + " ") + path + ": " + problem);
}

std::string os_error(int err) { return std::strerror(err); }

}  // namespace

std::string folder_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string name_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

namespace {

// The process's umask, read without changing it (other threads may be creating files).
mode_t current_umask() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "Umask:") {
      std::string value;
      status >> value;
      return static_cast<mode_t>(std::strtoul(value.c_str(), nullptr, 8));
    }
  }
  return 022;
}

void write_all(int fd, const char* p, size_t n, const std::string& what, const std::string& path) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      output_error(what, path, "write failed: " + os_error(errno));
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
}

// fsync, where the file system supports it.
void sync_fd(int fd, const std::string& what, const std::string& path) {
  if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) output_error(what, path, "fsync failed: " + os_error(errno));
}

void refuse_input(const InputSet& inputs, const struct stat& st, const std::string& what, const std::string& path) {
  if (const std::string* in = inputs.find(st)) {
    output_error(what, path,
                 "is the input file " + *in + "; ea_iid never writes over an input (name another output file)");
  }
}

bool all_digits(const std::string& s) {
  return !s.empty() && s.size() <= 9 && s.find_first_not_of("0123456789") == std::string::npos;
}

// The descriptor that the name `p` itself stands for (not following it): /dev/std{in,out,err},
// N in /dev/fd, /proc/self/fd, /proc/thread-self/fd, /proc/<our pid>/fd or
// /proc/<our pid>/task/<tid>/fd; the folder compared as written and as resolved (a relative
// name, "//dev/./stdout", a link to /dev/fd). -1 otherwise.
int descriptor_named(const std::string& p) {
  const std::string folder = folder_of(p), name = name_of(p);
  std::vector<std::string> folders{folder};
  char buf[PATH_MAX];
  if (::realpath(folder.c_str(), buf)) folders.emplace_back(buf);
  const std::string own = "/proc/" + std::to_string(::getpid());
  for (const std::string& f : folders) {
    if (f == "/dev") {
      if (name == "stdin") return 0;
      if (name == "stdout") return 1;
      if (name == "stderr") return 2;
    }
    if (!all_digits(name)) continue;
    bool fds = f == "/dev/fd" || f == "/proc/self/fd" || f == "/proc/thread-self/fd" || f == own + "/fd";
    const std::string task = own + "/task/";
    if (!fds && f.rfind(task, 0) == 0 && f.size() > task.size() + 3 && f.compare(f.size() - 3, 3, "/fd") == 0) {
      fds = all_digits(f.substr(task.size(), f.size() - 3 - task.size()));
    }
    if (fds) return std::stoi(name);
  }
  return -1;
}

// The target of the symbolic link `p`, taken from the link's folder when relative; "" when
// it cannot be read.
std::string link_step(const std::string& p) {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink(p.c_str(), buf, sizeof buf - 1);
  if (n <= 0) return "";
  const std::string target(buf, static_cast<size_t>(n));
  if (target[0] == '/' || p.find('/') == std::string::npos) return target;
  return folder_of(p) + "/" + target;
}

// Where the link `path` leads: its resolved name, or for a dangling link the last name of
// the chain.
std::string link_end(const std::string& path) {
  char buf[PATH_MAX];
  if (::realpath(path.c_str(), buf)) return buf;
  std::string p = path;
  struct stat st {};
  for (int step = 0; step < 40 && ::lstat(p.c_str(), &st) == 0 && S_ISLNK(st.st_mode); ++step) {
    const std::string next = link_step(p);
    if (next.empty()) break;
    p = next;
  }
  return p;
}

[[noreturn]] void refuse_link(const std::string& what, const std::string& path) {
  const std::string end = link_end(path);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    output_error(what, path, "is a symbolic link to " + end + ", " + file_type_name(st.st_mode) +
                                 "; ea_iid writes only regular files and never replaces a link: name a file");
  }
  output_error(what, path, "is a symbolic link to " + end + "; ea_iid does not replace links or write through them: name " +
                               end + " itself");
}

// A name of descriptor `fd` as an output: the descriptor must be open for writing and not
// be an input.
void check_descriptor(int fd, const InputSet& inputs, const std::string& what, const std::string& path) {
  const int flags = ::fcntl(fd, F_GETFL);
  const std::string named = "names descriptor " + std::to_string(fd);
  if (flags < 0) output_error(what, path, named + ", which is not open: open it for writing or name a file");
  if ((flags & O_ACCMODE) == O_RDONLY) {
    output_error(what, path, named + ", which is open only for reading: open it for writing or name a file");
  }
  struct stat st {};
  if (::fstat(fd, &st) == 0) refuse_input(inputs, st, what, path);
}

}  // namespace

int descriptor_of(const std::string& path) {
  if (path.empty() || path == "-") return -1;
  std::string p = path;
  for (int step = 0; step < 40; ++step) {  // SYMLOOP_MAX
    if (const int fd = descriptor_named(p); fd >= 0) return fd;
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return -1;
    p = link_step(p);
    if (p.empty()) return -1;
  }
  return -1;
}

std::string output_name(const std::string& path) { return descriptor_of(path) == 1 ? "-" : path; }

void InputSet::add(const std::string& path) {
  struct stat st {};
  if (path == kStdinPath) {
    // Standard input redirected from a file: that file is an input too.
    if (::fstat(STDIN_FILENO, &st) == 0) entries_.push_back(Entry{st.st_dev, st.st_ino, "standard input"});
    return;
  }
  if (::stat(path.c_str(), &st) == 0) entries_.push_back(Entry{st.st_dev, st.st_ino, path});
}

const std::string* InputSet::find(const struct stat& st) const {
  for (const auto& e : entries_) {
    if (e.dev == st.st_dev && e.ino == st.st_ino) return &e.path;
  }
  return nullptr;
}

void check_output_path(const std::string& path, const InputSet& inputs, const std::string& what) {
  if (path == "-") {  // standard output: never an input (checked by main), never replaced
    struct stat st {};
    if (::fstat(STDOUT_FILENO, &st) == 0) refuse_input(inputs, st, what, "standard output");
    return;
  }
  if (path.empty()) output_error(what, "''", "empty output path");
  if (const int fd = descriptor_of(path); fd >= 0) {  // written through, never replaced
    check_descriptor(fd, inputs, what, path);
    return;
  }
  // The name and its temporary file's, ".NAME.XXXXXX" (write_file_atomically), fit NAME_MAX.
  constexpr size_t kTempExtra = sizeof(".") - 1 + sizeof(".XXXXXX") - 1;
  if (name_of(path).size() + kTempExtra > NAME_MAX) {
    output_error(what, path, "the file name is longer than " + std::to_string(NAME_MAX - kTempExtra) +
                                 " bytes (its temporary file's name, 8 bytes longer, must fit the limit of " +
                                 std::to_string(NAME_MAX) + ")");
  }
  const std::string folder = folder_of(path);
  struct stat st {};
  if (::stat(folder.c_str(), &st) != 0) {
    output_error(what, path, "cannot use the folder " + folder + ": " + os_error(errno));
  }
  if (!S_ISDIR(st.st_mode)) output_error(what, path, folder + " is not a folder");
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    output_error(what, path, "cannot write in the folder " + folder + ": " + os_error(errno));
  }
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return;  // created
    output_error(what, path, "cannot access: " + os_error(errno));
  }
  if (S_ISLNK(st.st_mode)) {
    // Neither replaced (rename would put a file where the user keeps a link: /dev/stdout)
    // nor written through (a link may lead anywhere); a link to an input says so.
    struct stat target {};
    if (::stat(path.c_str(), &target) == 0) refuse_input(inputs, target, what, path);
    refuse_link(what, path);
  }
  if (S_ISDIR(st.st_mode)) {  // (ea_iid's own -o DIR/ is resolved to DIR/NAME.json before this)
    output_error(what, path, "is a folder; this writes one file: give a name in it, e.g. " + what + " " +
                                 (path.back() == '/' ? path : path + "/") + "NAME");
  }
  if (!S_ISREG(st.st_mode)) {
    output_error(what, path, "is " + file_type_name(st.st_mode) + "; ea_iid only creates or replaces regular files");
  }
  refuse_input(inputs, st, what, path);
}

void write_file_atomically(const std::string& path, const std::string& content, const InputSet& inputs,
                           const std::string& what) {
  if (path == "-") {  // standard output
    write_text(stdout, content, "standard output");
    flush_checked(stdout, "standard output");
    return;
  }
  if (const int fd = descriptor_of(path); fd >= 0) {  // /dev/stdout, /dev/fd/N, ...: written through
    check_output_path(path, inputs, what);
    if (fd == 1) {
      write_text(stdout, content, "standard output");
      flush_checked(stdout, "standard output");
      return;
    }
    if (fd == 2) std::fflush(stderr);
    write_all(fd, content.data(), content.size(), what, path);
    return;
  }
  check_output_path(path, inputs, what);
  const std::string folder = folder_of(path);
  std::string tmp = folder + "/." + name_of(path) + ".XXXXXX";
  // mkstemp: a random name created with O_CREAT|O_EXCL (a planted file or symlink fails it).
  const int fd = ::mkstemp(&tmp[0]);
  if (fd < 0) output_error(what, path, "cannot create a temporary file in " + folder + ": " + os_error(errno));
  try {
    struct stat old {};
    const mode_t mode = ::stat(path.c_str(), &old) == 0 ? (old.st_mode & 07777) : (0666 & ~current_umask());
    if (::fchmod(fd, mode) != 0) output_error(what, path, "cannot set the file mode: " + os_error(errno));
    write_all(fd, content.data(), content.size(), what, path);
    sync_fd(fd, what, path);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    output_error(what, path, "close failed: " + os_error(err));
  }
  try {
    check_output_path(path, inputs, what);  // again: it may have changed meanwhile
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    output_error(what, path, "cannot write: " + os_error(err));
  }
  // The new name itself must survive a crash: sync the folder.
  const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    const bool ok = ::fsync(dir) == 0 || errno == EINVAL || errno == EROFS;
    const int err = errno;
    ::close(dir);
    if (!ok) output_error(what, path, "fsync of the folder failed: " + os_error(err));
  }
}

namespace {

// An ea_iid JSON result: the fields every record opens with.
bool is_result_file(const std::string& path, off_t size) {
  if (size > (64 << 20)) return false;
  std::ifstream in(path, std::ios::binary);
  const auto j = nlohmann::json::parse(in, nullptr, false);
  return j.is_object() && j.contains("schemaVersion") && j.contains("dateTimeStamp") && j.contains("toolVersion");
}

// An earlier HTML or CSV report of ours: its opening bytes say so.
bool is_report_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head(4096, '\0');
  in.read(&head[0], static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  const bool html = head.rfind("<!DOCTYPE html>", 0) == 0 &&
                    (head.find("<title>ea_iid report") != std::string::npos ||
                     head.find("<title>SP 800-90B assessment: ") != std::string::npos);
  const bool csv = head.rfind("file,block,samples,", 0) == 0 || head.rfind("source,track,iid_tests,", 0) == 0;  // batch, lab
  return html || csv;
}

// The existing non-empty regular file at `path` (lstat: a symlink at the path is refused by
// check_output_path; a descriptor's name is a link too: written through, nothing replaced).
bool existing_file(const std::string& path, struct stat& st) {
  return path != "-" && ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

}  // namespace

void check_replaceable(const std::string& path, bool force, const std::string& what) {
  struct stat st {};
  if (force || !existing_file(path, st)) return;
  // An earlier result is replaced as asked; anything else (a sample file named by mistake,
  // another program's output) only with --force.
  if (!is_result_file(path, st.st_size)) {
    output_error(what, path, "exists and is not an ea_iid result (" + std::to_string(st.st_size) +
                                 " bytes); nothing was written. Pass --force to replace it");
  }
}

void check_replaceable_report(const std::string& path, bool force, const std::string& what) {
  struct stat st {};
  if (force || !existing_file(path, st)) return;
  // An earlier report of ours is replaced; anything else only with --force.
  if (!is_report_file(path)) {
    output_error(what, path, "exists and is not an ea_iid report (" + std::to_string(st.st_size) +
                                 " bytes); nothing was written. Pass --force to replace it");
  }
}

void check_replaceable_symbols(const std::string& path, bool force, const std::string& what) {
  struct stat st {};
  if (force || !existing_file(path, st)) return;
  if (is_result_file(path, st.st_size) || is_report_file(path)) {
    output_error(what, path, "exists and is an ea_iid result or report, not symbols (" + std::to_string(st.st_size) +
                                 " bytes); nothing was written. Pass --force to replace it");
  }
}

bool same_symbols_there(const std::string& path, const std::string& symbols, bool force, const std::string& what) {
  struct stat st {};
  if (force || !existing_file(path, st)) return false;
  std::string there;
  if (static_cast<uint64_t>(st.st_size) == symbols.size()) {
    std::ifstream in(path, std::ios::binary);
    there.resize(symbols.size());
    in.read(&there[0], static_cast<std::streamsize>(there.size()));
    there.resize(static_cast<size_t>(in.gcount()));
  }
  if (there == symbols) return true;
  output_error(what, path, "exists and holds other bytes (" + std::to_string(st.st_size) + " bytes; these symbols " +
                               std::to_string(symbols.size()) + "); nothing was written. Pass --force to replace it");
  return false;
}

std::string same_file_key(const std::string& path) {
  if (path == "-") return "-";
  char buf[PATH_MAX];
  const std::string folder = folder_of(path);
  const std::string base = ::realpath(folder.c_str(), buf) ? std::string(buf) : folder;
  return base + "/" + name_of(path);
}

void check_distinct_outputs(const std::vector<std::pair<std::string, std::string>>& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    for (size_t j = i + 1; j < outputs.size(); ++j) {
      const auto& [a_opt, a] = outputs[i];
      const auto& [b_opt, b] = outputs[j];
      struct stat sa {}, sb {};
      const bool same = same_file_key(a) == same_file_key(b) ||
                        (a != "-" && b != "-" && ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 &&
                         sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino);
      if (same) {
        throw Error(ErrorKind::Usage, a_opt + " " + a + " and " + b_opt + " " + b +
                                          (a == "-" ? " both write to standard output" : " name the same file") +
                                          "; each output needs its own");
      }
    }
  }
}

JsonlWriter::JsonlWriter(const std::string& path, Existing existing, const InputSet& inputs) : path_(path) {
  const std::string what = "--jsonl";
  struct stat st {};
  if (path == "-") {
    fd_ = 1;
    by_name_ = false;
    if (::fstat(1, &st) == 0) refuse_input(inputs, st, what, "standard output");
    regular_ = S_ISREG(st.st_mode);
    return;
  }
  if (path.empty()) output_error(what, "''", "empty output path");
  if (const int fd = descriptor_of(path); fd >= 0) {
    // /dev/fd/N, /dev/stderr, ...: lines go through that descriptor, as "-" goes through 1
    // (never truncated, never refused for what it holds: the shell opened it as asked).
    check_descriptor(fd, inputs, what, path);
    fd_ = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (fd_ < 0) output_error(what, path, "cannot use the descriptor: " + os_error(errno));
    by_name_ = false;
    regular_ = ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode);
    return;
  }
  // An input is refused before open too: opening an input FIFO for writing would wait.
  if (::stat(path.c_str(), &st) == 0) refuse_input(inputs, st, what, path);
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) refuse_link(what, path);
  while (true) {
    // O_NOFOLLOW: a link put at the name after the check above is refused too (ELOOP).
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW, 0666);
    if (fd_ >= 0) break;
    if (errno == EINTR) throw Error(ErrorKind::Interrupted, "interrupted");
    if (errno == ELOOP) refuse_link(what, path);
    output_error(what, path, "cannot open for writing: " + os_error(errno));
  }
  // What was opened is what counts (the path may have changed since the stat above).
  if (::fstat(fd_, &st) != 0) {
    const int err = errno;
    ::close(fd_);
    output_error(what, path, "cannot access: " + os_error(err));
  }
  try {
    refuse_input(inputs, st, what, path);
    if (S_ISBLK(st.st_mode) || S_ISDIR(st.st_mode) || S_ISSOCK(st.st_mode)) {
      output_error(what, path, "is " + file_type_name(st.st_mode) + "; --jsonl writes to a regular file, a FIFO or a character device");
    }
    regular_ = S_ISREG(st.st_mode);
    if (regular_ && st.st_size > 0 && existing == Existing::Append) {
      // A line cut off by a crash is never glued to: the new row would join its fragment.
      char last = '\n';
      // The file this descriptor opened (write-only), read through /proc; else by its name.
      int rfd = ::open(("/proc/self/fd/" + std::to_string(fd_)).c_str(), O_RDONLY | O_CLOEXEC);
      if (rfd < 0) rfd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
      const bool read_ok = rfd >= 0 && ::pread(rfd, &last, 1, st.st_size - 1) == 1;
      const int err = errno;
      if (rfd >= 0) ::close(rfd);
      if (!read_ok) output_error(what, path, "cannot read its last byte: " + os_error(err));
      if (last != '\n') {
        output_error(what, path,
                     "its last line is incomplete (cut off while it was written); nothing was changed. --resume drops "
                     "it and continues the run; --force replaces the file");
      }
    }
    if (regular_ && st.st_size > 0) {
      if (existing == Existing::Refuse) {
        output_error(what, path,
                     "exists and is not empty (" + std::to_string(st.st_size) +
                         " bytes); nothing was changed. Pass --append to add lines to it, or --force to replace "
                         "its contents");
      }
      if (existing == Existing::Truncate) {
        if (::flock(fd_, LOCK_EX) != 0 || ::ftruncate(fd_, 0) != 0) {
          output_error(what, path, "cannot empty the file: " + os_error(errno));
        }
        ::flock(fd_, LOCK_UN);
      }
    }
  } catch (...) {
    ::close(fd_);
    fd_ = -1;
    throw;
  }
}

JsonlWriter::~JsonlWriter() {
  if (fd_ > 2) ::close(fd_);
}

// Locks the file the name points to now: after the lock is taken, a descriptor whose file
// was replaced by --resume's rename (the name now points to another file) is reopened.
void JsonlWriter::lock_current() {
  while (true) {
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno != EINTR) output_error("--jsonl", path_, "cannot lock: " + os_error(errno));
    }
    struct stat mine {}, named {};
    if (!by_name_ || ::fstat(fd_, &mine) != 0 || ::stat(path_.c_str(), &named) != 0 ||
        (mine.st_dev == named.st_dev && mine.st_ino == named.st_ino) || !S_ISREG(named.st_mode)) {
      return;
    }
    const int fd = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
    if (fd < 0) return;  // keep writing where we were: the name is gone or unreadable
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
    fd_ = fd;
  }
}

void JsonlWriter::write_line(const std::string& line) {
  if (fd_ < 0) output_error("--jsonl", path_, "already closed");
  const std::string text = line + "\n";
  const std::string name = fd_ == 1 ? "standard output" : path_;
  if (regular_) lock_current();
  try {
    write_all(fd_, text.data(), text.size(), "--jsonl", name);
  } catch (...) {
    if (regular_) ::flock(fd_, LOCK_UN);
    throw;
  }
  if (regular_) ::flock(fd_, LOCK_UN);
}

void rewrite_jsonl(const std::string& path, uint64_t read_bytes, const std::string& content, const InputSet& inputs) {
  if (descriptor_of(path) >= 0) throw Error(ErrorKind::Usage, "--resume cannot rewrite --jsonl " + path + ", a descriptor");
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) output_error("--jsonl", path, "cannot open: " + os_error(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }  // also releases the lock
  } closer{fd};
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR) throw Error(ErrorKind::Interrupted, "interrupted");
    output_error("--jsonl", path, "cannot lock: " + os_error(errno));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) output_error("--jsonl", path, "cannot access: " + os_error(errno));
  if (static_cast<uint64_t>(st.st_size) != read_bytes) {
    throw Error(ErrorKind::Input, path + ": changed while --resume read it (" + std::to_string(read_bytes) + " bytes read, " +
                                      std::to_string(st.st_size) +
                                      " now; another process writing to it?); nothing was changed. Run the command again");
  }
  write_file_atomically(path, content, inputs, "--jsonl");
}

void JsonlWriter::close() {
  if (fd_ < 0 || fd_ == 1) return;
  const int fd = fd_;
  fd_ = -1;
  if (regular_) {
    try {
      sync_fd(fd, "--jsonl", path_);
    } catch (...) {
      ::close(fd);
      throw;
    }
  }
  if (::close(fd) != 0) output_error("--jsonl", path_, "close failed: " + os_error(errno));
}

void write_text(std::FILE* f, const std::string& text, const char* name) {
  if (std::fwrite(text.data(), 1, text.size(), f) != text.size()) {
    throw Error(ErrorKind::Output, std::string("cannot write to ") + name + ": " + os_error(errno));
  }
}

void flush_checked(std::FILE* f, const char* name) {
  errno = 0;
  const int rc = std::fflush(f);
  const int err = errno;
  if (rc != 0 || std::ferror(f)) {
    throw Error(ErrorKind::Output, std::string("cannot write to ") + name + ": " + (err ? os_error(err) : "write error"));
  }
}

OutputsInOrder::OutputsInOrder(std::vector<std::pair<std::string, std::string>> outputs, const InputSet& inputs,
                               const std::atomic<bool>* interrupt)
    : outputs_(std::move(outputs)), inputs_(inputs), interrupt_(interrupt) {}

void OutputsInOrder::write(const std::string& option, const std::function<std::string()>& text) {
  if (written_ >= outputs_.size() || outputs_[written_].first != option) {
    throw Error(ErrorKind::Internal, "outputs written out of order: " + option);
  }
  if (interrupt_ != nullptr && interrupt_->load()) {
    const auto list = [this](size_t from, size_t to) {
      std::string s;
      for (size_t i = from; i < to; ++i) {
        s += (i == from ? "" : i + 1 == to ? " and " : ", ") + outputs_[i].second + " (" + outputs_[i].first + ")";
      }
      return s;
    };
    throw Error(ErrorKind::Interrupted, written_ == 0 ? "interrupted before any output was written: " +
                                                            list(0, outputs_.size()) + " not written"
                                                      : "interrupted: " + list(0, written_) + " written (whole), " +
                                                            list(written_, outputs_.size()) + " not written");
  }
  write_file_atomically(outputs_[written_].second, text(), inputs_, option);
  ++written_;
}

}  // namespace ea::cli
