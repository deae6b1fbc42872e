// Every file ea_iid writes goes through here (docs/outputs.md has the guarantees):
// - an output never resolves to an input (same device and inode), and never replaces
//   anything but a regular file: a symbolic link, a device, a FIFO, a socket or a folder at
//   an output's path is refused before any work; the one exception is a name of a
//   descriptor of this process (/dev/stdout, /dev/fd/N, /proc/self/fd/N, or a link to one),
//   which is written through (see descriptor_of);
// - -o files are written whole or not at all: a temp file made with mkstemp (O_EXCL, so a
//   planted symlink is never followed) in the target folder, fsync'ed, then renamed;
// - JSONL lines are appended with one write(2) under an exclusive flock(2), so two
//   processes appending to one file never interleave within a line;
// - every write, flush, fsync and close is checked: a failure is Error{Output} naming the
//   path and the OS error.
#pragma once

#include <sys/stat.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace ea::cli {

// The inputs of a run, by identity (device and inode), so that no output can touch one
// whatever name reaches it (a hard link, a symlink, "./a.bin" for "a.bin").
class InputSet {
 public:
  // Records `path` if it exists (a missing input cannot be overwritten).
  void add(const std::string& path);
  // The input with the identity of `st`, or nullptr.
  const std::string* find(const struct stat& st) const;

 private:
  struct Entry {
    dev_t dev;
    ino_t ino;
    std::string path;
  };
  std::vector<Entry> entries_;
};

// The descriptor of this process that `path` names: /dev/stdin, /dev/stdout, /dev/stderr,
// /dev/fd/N, /proc/self/fd/N, /proc/thread-self/fd/N, /proc/<our pid>/fd/N (or .../task/T/fd/N),
// reached directly or through a chain of symbolic links (each followed step by step, a
// relative target taken from the link's folder). -1 for any other path, and for "-".
// Such an output is written through that descriptor: no temp file, no rename, no truncation.
int descriptor_of(const std::string& path);
// The folder part of a path ("." for a bare name, "/" for a name at the root) and its last part.
std::string folder_of(const std::string& path);
std::string name_of(const std::string& path);
// "-" when `path` names descriptor 1 (so that -o /dev/stdout behaves as -o -), else `path`.
// The front doors pass every output path through it right after parsing.
std::string output_name(const std::string& path);

// Checks that `path` can be created or replaced: its folder exists, and it is absent or a
// regular file that is not an input; a symbolic link (to anything) is refused. A name of a
// descriptor (descriptor_of) is accepted when the descriptor is open for writing and not an
// input. `what` names the option in messages ("-o"). Throws Error{Output}.
// "-" is standard output. Names longer than NAME_MAX are refused.
void check_output_path(const std::string& path, const InputSet& inputs, const std::string& what);

// Refuses to replace an existing non-empty regular file that is not an ea_iid JSON result
// (a sample file named by mistake) unless `force`. Throws Error{Output}.
void check_replaceable(const std::string& path, bool force, const std::string& what);
// The same for an HTML or CSV report (--html, --csv): an earlier ea_iid report is replaced,
// any other non-empty regular file only with `force`.
void check_replaceable_report(const std::string& path, bool force, const std::string& what);

// --write-symbols: an existing file that is an ea_iid result or report is replaced only with
// `force` (a raw symbol file has no mark of ours: same_symbols_there decides the rest).
void check_replaceable_symbols(const std::string& path, bool force, const std::string& what);
// Whether the existing file at `path` already holds exactly `symbols` (the same run again:
// nothing to write); any other existing non-empty file is refused unless `force` (Error{Output},
// nothing written). False when there is none, or with `force`.
bool same_symbols_there(const std::string& path, const std::string& symbols, bool force, const std::string& what);

// Refuses two outputs that are one file (the same name in the same folder, or the same
// existing file under two names), or both standard output: (option, path) pairs. Throws
// Error{Usage} naming both options.
void check_distinct_outputs(const std::vector<std::pair<std::string, std::string>>& outputs);

// Writes `content` to `path` atomically (see above), re-checking the path first; a name of a
// descriptor is written through (descriptor 1 through stdout, as "-").
void write_file_atomically(const std::string& path, const std::string& content, const InputSet& inputs,
                           const std::string& what);

// A command's outputs written one after another, each whole or not at all
// (write_file_atomically). SIGINT/SIGTERM (the handlers only set the flag) stops it before
// the next one with Error{Interrupted} naming the files written and those not; once the last
// is written the command's work is done and a signal changes nothing.
class OutputsInOrder {
 public:
  // `outputs`: (option, path) in the order they are written.
  OutputsInOrder(std::vector<std::pair<std::string, std::string>> outputs, const InputSet& inputs,
                 const std::atomic<bool>* interrupt);
  // Writes the next output, which must be `option`'s; `text` is made only when it is written.
  void write(const std::string& option, const std::function<std::string()>& text);

 private:
  std::vector<std::pair<std::string, std::string>> outputs_;
  const InputSet& inputs_;
  const std::atomic<bool>* interrupt_;
  size_t written_ = 0;
};

// --resume's rewrite of a --jsonl file (dropping a cut-off line or error rows): done under
// the lock every JsonlWriter takes, and only while the file still holds exactly the
// `read_bytes` bytes that were read back; a file another process appended to meanwhile is
// left as it is (Error{Input}: run again). A writer that waited for the lock on the old file
// finds the name now points to the new one and appends there (JsonlWriter::write_line).
void rewrite_jsonl(const std::string& path, uint64_t read_bytes, const std::string& content, const InputSet& inputs);

// --jsonl: appends whole lines to a file (or to stdout for "-").
class JsonlWriter {
 public:
  enum class Existing { Refuse, Append, Truncate };
  // Opens (creating) `path`. An existing non-empty file is refused unless `existing` says
  // to append to it or truncate it. FIFOs and character devices are written, not replaced.
  // A symbolic link is refused (as for -o); a name of a descriptor (descriptor_of) is
  // written through a duplicate of that descriptor, as "-" is through descriptor 1.
  JsonlWriter(const std::string& path, Existing existing, const InputSet& inputs);
  ~JsonlWriter();
  JsonlWriter(const JsonlWriter&) = delete;
  JsonlWriter& operator=(const JsonlWriter&) = delete;

  // Appends `line` and a newline in one write under the lock; when the name was given to a
  // new file meanwhile (--resume's rewrite), reopens it first so no line goes to the old
  // one. Throws Error{Output}.
  void write_line(const std::string& line);
  // Flushes to disk and closes (checked). Throws Error{Output}.
  void close();
  bool is_stdout() const { return fd_ == 1; }

 private:
  void lock_current();
  std::string path_;
  int fd_ = -1;
  bool regular_ = false;
  bool by_name_ = true;  // false for "-" and descriptors: the name is never reopened
};

// Writes `text` to a stdio stream, checked. Throws Error{Output} naming `name`.
void write_text(std::FILE* f, const std::string& text, const char* name);
// Flushes a stdio stream; a failure (a full disk, a closed pipe) is Error{Output}.
void flush_checked(std::FILE* f, const char* name);

}  // namespace ea::cli
