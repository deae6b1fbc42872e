#include "io/samples.hpp"
#include "common/huge_pages.hpp"
#include "io/near_name.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "common/error.hpp"
#include "common/sha256.hpp"
#include "io/sample_format.hpp"

namespace ea {

namespace {

[[noreturn]] void input_error(const std::string& path, const std::string& what) {
  throw Error(ErrorKind::Input, path + ": " + what);
}


}  // namespace

namespace {

// An open file descriptor, closed on scope exit (reads only: a close error loses nothing).
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

constexpr size_t kChunk = size_t{1} << 20;

// v sized to n bytes of zeros, its storage marked for huge pages first where it is large:
// the zeroing then faults in 2 MB at a time, not 4 KB (a block of 2^28 samples: 65,536
// faults, half of its load time on the 2-core machine, session 41).
void resize_large(std::vector<uint8_t>& v, size_t n) {
  constexpr size_t kHuge = size_t{2} << 20;
  if (n >= 4 * kHuge && v.capacity() < n) {
    v.clear();
    v.shrink_to_fit();
    v.reserve(n);
    advise_huge_pages(v.data(), n);
  }
  v.resize(n);
}

void check_interrupt(const std::atomic<bool>* interrupt) {
  if (interrupt && interrupt->load()) throw Error(ErrorKind::Interrupted, "interrupted");
}

// Never blocks: a FIFO without a writer opens at once (and is then refused or polled).
Fd open_input(const std::string& path) {
  if (path == kStdinPath) {
    // A duplicate, left blocking: O_NONBLOCK would change the descriptor the shell shares.
    const int fd = ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) input_error("standard input", std::string("cannot read: ") + std::strerror(errno));
    return Fd(fd);
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) {
      const std::string near = near_file_name(path);
      input_error(path, near.empty() ? std::string("no such file") : "no such file; did you mean '" + near + "'?");
    }
    input_error(path, std::string("cannot open file: ") + std::strerror(err));
  }
  return Fd(fd);
}

struct stat stat_of(const Fd& f, const std::string& path) {
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) input_error(path, std::string("cannot access: ") + std::strerror(errno));
  return st;
}

int64_t nanoseconds(const timespec& t) { return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec; }

FileFingerprint fingerprint_of(const struct stat& st) {
  FileFingerprint f;
  f.dev = st.st_dev;
  f.ino = st.st_ino;
  f.size = static_cast<uint64_t>(st.st_size);
  f.mtime_ns = nanoseconds(st.st_mtim);
  f.ctime_ns = nanoseconds(st.st_ctim);
  return f;
}

// read(2) at the current offset (offset < 0) or at `offset`, retrying EINTR; 0 at the end.
size_t read_some(const Fd& f, uint8_t* p, size_t n, int64_t offset, const std::string& path,
                 const std::atomic<bool>* interrupt) {
  while (true) {
    const ssize_t got = offset < 0 ? ::read(f.fd, p, n) : ::pread(f.fd, p, n, static_cast<off_t>(offset));
    if (got >= 0) return static_cast<size_t>(got);
    if (errno == EINTR) {
      check_interrupt(interrupt);
      continue;
    }
    input_error(path, std::string("read error: ") + std::strerror(errno));
  }
}

[[noreturn]] void too_many(const std::string& path, uint64_t count) {
  throw Error(ErrorKind::Input,
              path + ": " + std::to_string(count) + " samples to assess, more than the " + std::to_string(kMaxSamples) +
                  " one assessment supports",
              Remedy::SplitInput);
}

// The first sample of the subset (0 without one); throws when it or its end overflows.
uint64_t subset_begin(const std::string& path, const std::optional<SubsetSpec>& subset) {
  if (!subset) return 0;
  if (subset->index > 0 && subset->count > UINT64_MAX / subset->index) input_error(path, "the start of the range INDEX*COUNT overflows 64 bits");
  const uint64_t begin = subset->index * subset->count;
  if (subset->count > UINT64_MAX - begin) input_error(path, "the end of the range INDEX*COUNT+COUNT overflows 64 bits");
  return begin;
}

// The samples [begin, begin + count) of a file of `size` samples for the subset (all
// without one). Throws past the end.
void subset_range(const std::string& path, const std::optional<SubsetSpec>& subset, uint64_t size, uint64_t& begin,
                  uint64_t& count) {
  begin = subset_begin(path, subset);
  count = size;
  if (!subset) return;
  if (begin >= size) {
    input_error(path, "the range " + std::to_string(subset->index) + "," + std::to_string(subset->count) +
                          " starts at sample " + std::to_string(begin) + ", past the end of the file (" +
                          std::to_string(size) + " samples)");
  }
  count = std::min<uint64_t>(subset->count, size - begin);
}

[[noreturn]] void changed(const std::string& path) {
  input_error(path, "the file changed while it was being read (size or modification time); assess a file that "
                    "is no longer being written");
}

// Reads a whole regular file once, hashing it, keeping the samples [begin, begin + count).
std::string read_regular(const Fd& f, const std::string& path, uint64_t size, uint64_t begin, uint64_t count,
                         std::vector<uint8_t>& samples, const std::atomic<bool>* interrupt) {
  Sha256 sha;
  std::vector<uint8_t> buf(kChunk);
  resize_large(samples, count);
  uint64_t at = 0;
  while (true) {
    check_interrupt(interrupt);
    const size_t got = read_some(f, buf.data(), buf.size(), -1, path, interrupt);
    if (got == 0) break;
    if (at + got > size) changed(path);
    sha.update(buf.data(), got);
    const uint64_t lo = std::max(at, begin), hi = std::min(at + got, begin + count);
    if (lo < hi) std::memcpy(samples.data() + (lo - begin), buf.data() + (lo - at), hi - lo);
    at += got;
  }
  if (at != size) changed(path);
  return to_hex(sha.finish());
}

// Reads a FIFO, device or socket to its end (or to `cap` bytes), waiting with poll() so
// that an interrupt is seen within 200 ms, even while no writer has opened a FIFO.
uint64_t read_stream(const Fd& f, const std::string& path, uint64_t cap, uint64_t begin, std::vector<uint8_t>& kept,
                     std::string& sha256, const std::atomic<bool>* interrupt) {
  Sha256 sha;
  std::vector<uint8_t> buf(kChunk);
  uint64_t at = 0;
  while (at < cap) {
    check_interrupt(interrupt);
    pollfd p{f.fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, 200);
    if (ready < 0 && errno != EINTR) input_error(path, std::string("cannot wait for data: ") + std::strerror(errno));
    if (ready <= 0) continue;
    const size_t want = static_cast<size_t>(std::min<uint64_t>(buf.size(), cap - at));
    const ssize_t got = ::read(f.fd, buf.data(), want);
    if (got < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
      input_error(path, std::string("read error: ") + std::strerror(errno));
    }
    if (got == 0) break;
    const uint64_t n = static_cast<uint64_t>(got);
    sha.update(buf.data(), n);
    if (at + n > begin) {
      const uint64_t from = at >= begin ? 0 : begin - at;
      kept.insert(kept.end(), buf.data() + from, buf.data() + n);
    }
    at += n;
  }
  sha256 = to_hex(sha.finish());
  return at;
}

}  // namespace

FileFingerprint fingerprint_file(const std::string& path, const std::atomic<bool>* interrupt) {
  Fd f = open_input(path);
  const struct stat st = stat_of(f, path);
  if (S_ISDIR(st.st_mode)) input_error(path, "is a directory, not a sample file");
  if (!S_ISREG(st.st_mode)) input_error(path, "is " + file_type_name(st.st_mode) + ", not a regular file");
  FileFingerprint fp = fingerprint_of(st);
  std::vector<uint8_t> none;
  fp.sha256 = read_regular(f, path, fp.size, 0, 0, none, interrupt);
  if (!(fingerprint_of(stat_of(f, path)) == fp)) changed(path);
  return fp;
}

std::string sha256_file(const std::string& path) { return fingerprint_file(path).sha256; }

Dataset make_dataset(std::vector<uint8_t> samples, int width) {
  Dataset d;
  // One pass: the values' counts (their OR, the width they need, and the ranks below).
  std::array<uint64_t, 256> count{};
  for (uint8_t b : samples) ++count[b];
  uint32_t all = 0;
  for (uint32_t v = 0; v < 256; ++v) all |= count[v] ? v : 0;
  int needed = 1;
  while (needed < 8 && (all >> needed) != 0) ++needed;
  if (width == 0) {
    d.width = needed;
  } else {
    if (width < 1 || width > 8) {
      throw Error(ErrorKind::Usage, "bits per symbol must be between 1 and 8, got " + std::to_string(width));
    }
    if (needed > width) {
      throw Error(ErrorKind::Input, "data is wider than the given " + std::to_string(width) +
                                        " bits per symbol (values need " + std::to_string(needed) +
                                        " bits): incorrect bit width specification");
    }
    d.width = width;
    d.width_given = true;
    d.narrower_than_given = needed < width;
  }
  // Translation to ranks among the values present (a bijection that keeps the order).
  std::array<uint8_t, 256> rank{};
  int k = 0;
  for (int v = 0; v < 256; ++v) {
    if (count[v]) {
      rank[v] = static_cast<uint8_t>(k);
      d.raw_of[k] = static_cast<uint8_t>(v);
      d.max_raw = static_cast<uint8_t>(v);
      ++k;
    }
  }
  d.alphabet = k;
  d.translated = k < (1 << d.width);
  d.symbols.resize(samples.size());
  for (size_t i = 0; i < samples.size(); ++i) d.symbols[i] = rank[samples[i]];
  d.raw = std::move(samples);
  return d;
}

namespace {

// The bytes read of one input: the samples [begin, begin + count) of a binary format (all
// of a text file), the SHA-256 of every byte read, and the size in bytes.
struct ReadBytes {
  std::vector<uint8_t> bytes;
  std::string sha256;
  uint64_t size = 0;
  bool stream = false;
};

// A stuck source: its own kind, so that a gate can tell it from a bad file.
[[noreturn]] void degenerate(const std::string& path) {
  throw Error(ErrorKind::Degenerate, path + ": symbol alphabet consists of 1 symbol; no entropy awarded");
}

// A regular file: the bytes of the subset's samples (`unit` bytes each; 0: text, all).
void read_file_bytes(const Fd& f, const std::string& path, const struct stat& st, const LoadOptions& opt, int unit,
                     ReadBytes& r) {
  const FileFingerprint before = fingerprint_of(st);
  r.size = before.size;
  if (r.size == 0) input_error(path, "file is empty: no samples");
  uint64_t begin = 0, count = r.size;
  if (unit > 0) {
    if (r.size % static_cast<uint64_t>(unit) != 0) ragged_capture(path, r.size, opt.sample_input.format);
    subset_range(path, opt.subset, r.size / static_cast<uint64_t>(unit), begin, count);
    if (count > kMaxSamples) too_many(path, count);
    begin *= static_cast<uint64_t>(unit), count *= static_cast<uint64_t>(unit);
  }
  if (opt.known) {
    // The whole file was hashed when the batch was listed: read only this block.
    if (!(before == *opt.known)) changed(path);
    resize_large(r.bytes, count);
    for (uint64_t at = 0; at < count;) {
      check_interrupt(opt.interrupt);
      const size_t want = static_cast<size_t>(std::min<uint64_t>(kChunk, count - at));
      const size_t got = read_some(f, r.bytes.data() + at, want, static_cast<int64_t>(begin + at), path, opt.interrupt);
      if (got == 0) changed(path);
      at += got;
    }
    r.sha256 = opt.known->sha256;
  } else {
    r.sha256 = read_regular(f, path, r.size, begin, count, r.bytes, opt.interrupt);
  }
  if (!(fingerprint_of(stat_of(f, path)) == before)) changed(path);
}

// A FIFO, device or socket: read no further than the subset needs; without one, one
// sample past the limit (text: every byte, up to 4 bytes a sample of the limit).
void read_stream_bytes(const Fd& f, const std::string& path, const LoadOptions& opt, int unit, ReadBytes& r) {
  r.stream = true;
  const uint64_t u = unit > 0 ? static_cast<uint64_t>(unit) : 1;
  const bool ranged = opt.subset && unit > 0;
  const uint64_t begin = ranged ? subset_begin(path, opt.subset) : 0;
  const uint64_t cap = ranged ? (begin + opt.subset->count) * u : unit > 0 ? (kMaxStreamSamples + 1) * u
                                                                          : 4 * (kMaxStreamSamples + 1);
  r.size = read_stream(f, path, cap, begin * u, r.bytes, r.sha256, opt.interrupt);
  if (r.size == 0) input_error(path, "is empty: no samples were read");
  if (unit > 0 && r.size % u != 0) ragged_capture(path, r.size, opt.sample_input.format);
  if (unit > 0 ? !opt.subset && r.size / u > kMaxStreamSamples : r.size == cap) {
    throw Error(ErrorKind::Input,
                path + ": a stream is read up to " + std::to_string(kMaxStreamSamples) +
                    " samples unless a range of it is given (up to " + std::to_string(kMaxSamples) +
                    "), and this one has more (it may never end)",
                Remedy::StreamRange);
  }
  if (unit > 0) {
    uint64_t b = 0, count = 0;
    subset_range(path, opt.subset, r.size / u, b, count);
    if (count > kMaxSamples) too_many(path, count);
    r.bytes.resize(count * u);
  }
}

// The capture's values of the samples read (the subset's, for text after parsing).
std::vector<uint32_t> capture_values(const ReadBytes& r, const LoadOptions& opt, const std::string& path) {
  const SampleFormat fmt = opt.sample_input.format;
  std::vector<uint32_t> v = decode_capture(r.bytes.data(), r.bytes.size(), fmt, path);
  if (fmt != SampleFormat::Text) return v;  // a binary format's subset was read as bytes
  uint64_t begin = 0, count = 0;
  subset_range(path, opt.subset, v.size(), begin, count);
  if (count > kMaxSamples) too_many(path, count);
  if (begin > 0 || count < v.size()) {
    v.erase(v.begin(), v.begin() + static_cast<ptrdiff_t>(begin));
    v.resize(count);
  }
  return v;
}

// The bits set and clear each in at least 1% of the bytes at even offsets and at odd ones,
// over the first 2^20 bytes (enough to tell a 16-bit capture read as bytes; a block of 2^28
// samples is not counted again).
void parity_varying(const std::vector<uint8_t>& samples, SampleMapping& mapping) {
  std::vector<uint64_t> count(512, 0);
  const size_t n = std::min<size_t>(samples.size(), size_t{1} << 20) & ~size_t{1};
  for (size_t i = 0; i < n; i += 2) ++count[samples[i]], ++count[256 + samples[i + 1]];
  for (int p = 0; p < 2; ++p) {
    uint64_t set[8] = {}, total = 0;
    for (uint32_t v = 0; v < 256; ++v) {
      const uint64_t c = count[256 * p + v];
      total += c;
      for (int b = 0; b < 8; ++b) set[b] += (v >> b & 1) ? c : 0;
    }
    const uint64_t least = std::max<uint64_t>(1, total / 100);
    uint32_t often = 0;
    for (int b = 0; b < 8; ++b) often |= (set[b] >= least && total - set[b] >= least) ? 1u << b : 0u;
    (p == 0 ? mapping.varying_even : mapping.varying_odd) = often;
  }
}

}  // namespace

Dataset load_dataset(const std::string& file, const LoadOptions& opt) {
  if (opt.width != 0 && (opt.width < 1 || opt.width > 8)) {
    throw Error(ErrorKind::Usage, "bits per symbol must be between 1 and 8, got " + std::to_string(opt.width));
  }
  check_symbol_rule(opt.sample_input.rule, opt.sample_input.format, "the symbol rule");
  Fd f = open_input(file);
  const bool is_stdin = file == kStdinPath;
  const std::string path = is_stdin ? std::string("standard input") : file;  // as messages name it
  const struct stat st = stat_of(f, path);
  if (S_ISDIR(st.st_mode)) input_error(path, "is a directory, not a sample file");
  const int unit = sample_bytes(opt.sample_input.format);
  ReadBytes r;
  if (S_ISREG(st.st_mode)) {
    read_file_bytes(f, path, st, opt, unit, r);
  } else {
    if (!opt.allow_stream && !is_stdin) {
      throw Error(ErrorKind::Input, path + ": is " + file_type_name(st.st_mode) + ", not a regular file",
                  Remedy::AllowStream);
    }
    read_stream_bytes(f, path, opt, unit, r);
  }
  if (opt.sha256_read) *opt.sha256_read = r.sha256;
  SampleMapping mapping;
  std::vector<uint8_t> samples;
  if (opt.sample_input.is_default()) {
    samples = std::move(r.bytes);
    mapping.input = opt.sample_input;
    uint8_t all_or = 0, all_and = 0xff, max = 0;
    for (uint8_t b : samples) all_or |= b, all_and &= b, max = std::max(max, b);
    while (mapping.capture_bits < 8 && (all_or >> mapping.capture_bits) != 0) ++mapping.capture_bits;
    mapping.capture_max = max;
    mapping.varying = all_or & ~all_and;
    parity_varying(samples, mapping);
  } else {
    samples = map_samples(capture_values(r, opt, path), opt.sample_input, path, mapping, opt.threads);
  }
  // One value throughout (a stuck source, or a block of a sparse file's zeros): said before the
  // symbols are made (a block of 2^28 samples: 0.3 GB not allocated), unless the value is wider
  // than the given width (that error comes first, as make_dataset words it).
  if (mapping.varying == 0 && opt.sample_input.is_default() && !opt.allow_one_symbol &&
      (opt.width == 0 || static_cast<int>(mapping.capture_bits) <= opt.width)) {
    degenerate(path);
  }
  Dataset d;
  try {
    d = make_dataset(std::move(samples), opt.width);
  } catch (const Error& e) {
    throw Error(e.kind(), path + ": " + e.what());
  }
  if (d.alphabet <= 1 && !opt.allow_one_symbol) degenerate(path);
  d.path = file;
  d.file_size = r.size;
  d.subset = opt.subset;
  d.sha256 = r.sha256;
  d.mapping = std::move(mapping);
  return d;
}

InputFacts input_facts(const Dataset& d) {
  InputFacts f;
  f.path = d.path;
  f.sha256 = d.sha256;
  f.samples = d.size();
  f.width = d.width;
  f.alphabet = d.alphabet;
  f.binary = d.binary();
  f.translated = d.translated;
  f.narrower_than_given = d.narrower_than_given;
  f.subset = d.subset;
  f.mapping = d.mapping;
  return f;
}

Dataset load_dataset(const std::string& path, int width, const std::optional<SubsetSpec>& subset) {
  LoadOptions opt;
  opt.width = width;
  opt.subset = subset;
  return load_dataset(path, opt);
}

std::string file_type_name(mode_t m) {
  if (S_ISREG(m)) return "a regular file";
  if (S_ISDIR(m)) return "a folder";
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISLNK(m)) return "a symbolic link";
  return "not a regular file";
}

}  // namespace ea
