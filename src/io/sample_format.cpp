#include "io/sample_format.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/error.hpp"
#include "io/select_bits.hpp"

namespace ea {

namespace {

struct FormatRow {
  SampleFormat format;
  const char* name;
  int bytes;
  int bits;
};

constexpr FormatRow kFormats[] = {
    {SampleFormat::U8, "u8", 1, 8},       {SampleFormat::U16LE, "u16le", 2, 16}, {SampleFormat::U16BE, "u16be", 2, 16},
    {SampleFormat::U32LE, "u32le", 4, 32}, {SampleFormat::U32BE, "u32be", 4, 32}, {SampleFormat::Text, "text", 0, 32},
};

const FormatRow& row_of(SampleFormat f) {
  for (const FormatRow& r : kFormats) {
    if (r.format == f) return r;
  }
  return kFormats[0];
}

[[noreturn]] void usage(const std::string& flag, const std::string& what) {
  throw Error(ErrorKind::Usage, flag + ": " + what);
}

int popcount(uint32_t v) {
  int n = 0;
  for (; v != 0; v &= v - 1) ++n;
  return n;
}

// An unsigned number in decimal, 0x-hex or 0b-binary; false when it is not one or
// exceeds 32 bits.
bool parse_u32(const std::string& s, uint32_t& out) {
  int base = 10;
  size_t at = 0;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) base = 16, at = 2;
  else if (s.size() > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) base = 2, at = 2;
  if (at >= s.size()) return false;
  uint64_t v = 0;
  for (; at < s.size(); ++at) {
    const char c = s[at];
    int d = -1;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    if (d < 0 || d >= base) return false;
    v = v * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
    if (v > UINT32_MAX) return false;
  }
  out = static_cast<uint32_t>(v);
  return true;
}

}  // namespace

const char* sample_format_name(SampleFormat f) { return row_of(f).name; }

std::optional<SampleFormat> sample_format_from_name(const std::string& name) {
  for (const FormatRow& r : kFormats) {
    if (name == r.name) return r.format;
  }
  return std::nullopt;
}

int sample_bytes(SampleFormat f) { return row_of(f).bytes; }
int sample_format_bits(SampleFormat f) { return row_of(f).bits; }

std::string mask_text(uint32_t mask, int format_bits) {
  int digits = std::max(2, (format_bits + 3) / 4);
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%0*x", digits, mask);
  return buf;
}

std::string sample_input_text(const SampleInput& s) {
  std::string t = sample_format_name(s.format);
  switch (s.rule.kind) {
    case SymbolRule::Kind::None: break;
    case SymbolRule::Kind::Mask: t += ", select-bits " + mask_text(s.rule.mask, sample_format_bits(s.format)); break;
    case SymbolRule::Kind::Auto: t += ", select-bits auto:" + std::to_string(s.rule.bits); break;
    case SymbolRule::Kind::Bin:
      t += ", bin " + std::to_string(s.rule.bits) + (s.rule.edges.empty() ? "" : " (edges given)");
      break;
  }
  return t;
}

SymbolRule select_bits_rule(const std::string& text, const std::string& flag) {
  SymbolRule r;
  if (text == "auto" || text.rfind("auto:", 0) == 0) {
    r.kind = SymbolRule::Kind::Auto;
    r.bits = 8;
    if (text.size() > 5) {
      uint32_t b = 0;
      if (!parse_u32(text.substr(5), b) || b < 1 || b > 8) {
        usage(flag, "'" + text + "': auto:B takes B, the most bits of the mask, from 1 to 8");
      }
      r.bits = static_cast<int>(b);
    } else if (text.size() == 5) {
      usage(flag, "'auto:' needs B, the most bits of the mask (1-8), or give auto alone (8)");
    }
    return r;
  }
  uint32_t m = 0;
  if (!parse_u32(text, m)) {
    // A range of bits ("3-1", "4-11"): the mask that keeps them, as a hint.
    std::string hint;
    const size_t dash = text.find('-');
    uint32_t a = 0, b = 0;
    if (dash != std::string::npos && parse_u32(text.substr(0, dash), a) && parse_u32(text.substr(dash + 1), b) &&
        std::max(a, b) < 32) {
      const uint32_t lo = std::min(a, b), hi = std::max(a, b);
      const uint64_t mask = ((uint64_t{1} << (hi + 1)) - 1) & ~((uint64_t{1} << lo) - 1);
      char buf[24];
      std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(mask));
      hint = "; bits " + std::to_string(lo) + " to " + std::to_string(hi) + " are the mask " + buf;
    }
    usage(flag, "'" + text + "' is neither a mask (decimal, 0x-hex or 0b-binary, at most 32 bits) nor auto[:B]" + hint);
  }
  r.kind = SymbolRule::Kind::Mask;
  r.mask = m;
  return r;
}

void check_symbol_rule(const SymbolRule& rule, SampleFormat format, const std::string& flag) {
  const int width = sample_format_bits(format);
  switch (rule.kind) {
    case SymbolRule::Kind::None: return;
    case SymbolRule::Kind::Mask: {
      const int n = popcount(rule.mask);
      if (n < 1 || n > 8) {
        usage(flag, "the mask " + mask_text(rule.mask, width) + " keeps " + std::to_string(n) +
                        " bits; a symbol has 1 to 8 bits");
      }
      if (width < 32 && (rule.mask >> width) != 0) {
        usage(flag, "the mask " + mask_text(rule.mask, width) + " has bits above the " + std::to_string(width) +
                        " of a " + sample_format_name(format) + " sample");
      }
      return;
    }
    case SymbolRule::Kind::Auto:
    case SymbolRule::Kind::Bin:
      if (rule.bits < 1 || rule.bits > 8) {
        usage(flag, "takes 1 to 8 bits, got " + std::to_string(rule.bits));
      }
      if (rule.edges.size() > (size_t{1} << rule.bits) || !std::is_sorted(rule.edges.begin(), rule.edges.end())) {
        usage(flag, "the bins' edges must be at most 2^B lowest values in increasing order");
      }
      return;
  }
}

SampleInput resolved_input(const SampleMapping& m) {
  SampleInput r = m.input;
  if (r.rule.kind == SymbolRule::Kind::Auto) {
    r.rule = SymbolRule{};
    r.rule.kind = SymbolRule::Kind::Mask;
    r.rule.mask = m.mask;
  } else if (r.rule.kind == SymbolRule::Kind::Bin) {
    r.rule.edges = m.bin_lower;
  }
  return r;
}

std::vector<uint32_t> decode_samples(const uint8_t* p, size_t n, SampleFormat f) {
  const int bytes = sample_bytes(f);
  const bool big = f == SampleFormat::U16BE || f == SampleFormat::U32BE;
  std::vector<uint32_t> v(bytes > 0 ? n / static_cast<size_t>(bytes) : 0);
  for (size_t i = 0; i < v.size(); ++i) {
    const uint8_t* s = p + i * static_cast<size_t>(bytes);
    uint32_t x = 0;
    for (int b = 0; b < bytes; ++b) {
      const int k = big ? b : bytes - 1 - b;  // most significant byte first
      x = (x << 8) | s[k];
    }
    v[i] = x;
  }
  return v;
}

namespace {

[[noreturn]] void bad_line(const std::string& path, uint64_t line, const std::string& what) {
  throw Error(ErrorKind::Input, path + ": line " + std::to_string(line) + ": " + what);
}

std::string shown(const uint8_t* b, const uint8_t* e) {
  std::string s(reinterpret_cast<const char*>(b), static_cast<size_t>(std::min<ptrdiff_t>(e - b, 40)));
  for (char& c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  }
  return "'" + s + (e - b > 40 ? "...'" : "'");
}

}  // namespace

std::vector<uint32_t> parse_text_samples(const uint8_t* p, size_t n, const std::string& path) {
  std::vector<uint32_t> out;
  out.reserve(n / 4);
  uint64_t line = 0;
  size_t at = 0;
  while (at < n) {
    ++line;
    size_t end = at;
    while (end < n && p[end] != '\n') ++end;
    const uint8_t* b = p + at;
    const uint8_t* e = p + end;
    if (e > b && e[-1] == '\r') --e;
    while (b < e && (*b == ' ' || *b == '\t')) ++b;
    while (e > b && (e[-1] == ' ' || e[-1] == '\t')) --e;
    if (b == e) bad_line(path, line, "empty line; the text format takes one integer a line");
    uint32_t v = 0;
    if (!parse_u32(std::string(reinterpret_cast<const char*>(b), static_cast<size_t>(e - b)), v)) {
      bad_line(path, line, shown(b, e) + " is not an unsigned integer of at most 32 bits (decimal, or hex after 0x)");
    }
    out.push_back(v);
    at = end + 1;
  }
  return out;
}

void ragged_capture(const std::string& path, uint64_t size, SampleFormat format) {
  const uint64_t unit = static_cast<uint64_t>(sample_bytes(format));
  throw Error(ErrorKind::Input, path + ": is " + std::to_string(size) + " bytes, not a whole number of " +
                                    std::to_string(unit) + "-byte " + sample_format_name(format) + " samples (" +
                                    std::to_string(size % unit) + (size % unit == 1 ? " byte" : " bytes") + " left over at offset " +
                                    std::to_string(size - size % unit) + ")");
}

std::vector<uint32_t> decode_capture(const uint8_t* p, size_t n, SampleFormat format, const std::string& path) {
  if (format == SampleFormat::Text) {
    std::vector<uint32_t> v = parse_text_samples(p, n, path);
    if (v.empty()) throw Error(ErrorKind::Input, path + ": has no samples (no lines)");
    return v;
  }
  if (n % static_cast<size_t>(sample_bytes(format)) != 0) ragged_capture(path, n, format);
  return decode_samples(p, n, format);
}

std::vector<uint32_t> equal_count_bins(const std::vector<uint32_t>& values, int bits) {
  std::vector<uint32_t> sorted(values);
  std::sort(sorted.begin(), sorted.end());
  // The distinct values and their counts, in increasing order.
  std::vector<std::pair<uint32_t, uint64_t>> d;
  for (uint32_t v : sorted) {
    if (d.empty() || d.back().first != v) d.emplace_back(v, 0);
    ++d.back().second;
  }
  // Bins left to right: each takes its first value, then the next ones while the next
  // value's middle stays within the bin's target (the samples left over the bins left,
  // so that a heavy value's excess is spread over the later bins), leaving a value for
  // each later bin; the last bin takes the rest.
  std::vector<uint32_t> lower;
  uint64_t left = sorted.size(), bins = uint64_t{1} << bits;
  size_t i = 0;
  while (i < d.size()) {
    lower.push_back(d[i].first);
    const double target = static_cast<double>(left) / static_cast<double>(bins);
    uint64_t take = d[i++].second;
    while (i < d.size() && (bins == 1 || (d.size() - i > bins - 1 &&
                                          static_cast<double>(take) + static_cast<double>(d[i].second) / 2 <= target))) {
      take += d[i++].second;
    }
    left -= take, --bins;
  }
  return lower;
}

std::vector<uint8_t> map_samples(const std::vector<uint32_t>& values, const SampleInput& input, const std::string& path,
                                 SampleMapping& m, int threads) {
  m = SampleMapping{};
  m.input = input;
  uint32_t all_or = 0, all_and = UINT32_MAX;
  for (uint32_t v : values) all_or |= v, all_and &= v;
  m.capture_max = values.empty() ? 0 : *std::max_element(values.begin(), values.end());
  while (m.capture_bits < 32 && (all_or >> m.capture_bits) != 0) ++m.capture_bits;
  m.varying = values.empty() ? 0 : all_or & ~all_and;
  std::vector<uint8_t> out(values.size());
  switch (input.rule.kind) {
    case SymbolRule::Kind::None:
      for (size_t i = 0; i < values.size(); ++i) {
        if (values[i] > 255) {
          throw Error(ErrorKind::Input,
                      path + ": sample " + std::to_string(i) + " is " + std::to_string(values[i]) +
                          ", wider than the 8 bits of a symbol",
                      Remedy::MapSamples);
        }
        out[i] = static_cast<uint8_t>(values[i]);
      }
      return out;
    case SymbolRule::Kind::Auto:
      m.search = search_mask(values, m.varying, input.rule.bits, threads);
      m.mask = m.search->best.empty() ? 0 : m.search->best.front().first;
      break;
    case SymbolRule::Kind::Mask: m.mask = input.rule.mask; break;
    case SymbolRule::Kind::Bin: {
      m.bin_lower = input.rule.edges.empty() ? equal_count_bins(values, input.rule.bits) : input.rule.edges;
      for (size_t i = 0; i < values.size(); ++i) {
        // A value below the first bin's lowest (possible with edges made on other data, a
        // source's restart data) goes to the first bin.
        const auto it = std::upper_bound(m.bin_lower.begin(), m.bin_lower.end(), values[i]);
        out[i] = static_cast<uint8_t>(std::max<ptrdiff_t>(0, it - m.bin_lower.begin() - 1));
      }
      return out;
    }
  }
  for (size_t i = 0; i < values.size(); ++i) out[i] = static_cast<uint8_t>(pack_bits(values[i], m.mask));
  return out;
}

std::string wide_capture_hint(const SampleMapping& m, uint64_t samples) {
  if (!m.input.is_default() || samples < 1000) return "";
  const int even = __builtin_popcount(m.varying_even), odd = __builtin_popcount(m.varying_odd);
  if (std::abs(even - odd) < 3) return "";
  char masks[64];
  std::snprintf(masks, sizeof masks, "0x%02x and 0x%02x", m.varying_even, m.varying_odd);
  return "the bytes at even and odd offsets vary in " + std::to_string(even) + " and " + std::to_string(odd) +
         " bits (" + masks + "): the file may hold 16-bit samples read as bytes; if so, give the sample format "
         "u16le or u16be with a symbol rule (docs/sample-formats.md)";
}

}  // namespace ea
