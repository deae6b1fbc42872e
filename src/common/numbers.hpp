// The one parser of the numbers a command line gives (every numeric option and argument of
// cli/, and the conditioning component's numbers): strict, so that whatever is not plainly a
// number of the expected form is refused, naming the option, instead of being read as
// something else (" 7", "7x", "0x1p3", "1e-320" or "010" taken as 7, 7, 8, a subnormal or 8).
#pragma once

#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "common/error.hpp"

namespace ea {

enum class IntegerForm {
  Decimal,       // digits only
  DecimalOrHex,  // digits, or 0x and hexadecimal digits (--seed)
  C,             // NIST ea_conditioning's sizes (strtoul base 0): digits, 0x hexadecimal, or 0 and octal
};

// An unsigned integer in [min, max] written in `form`: no sign, no space, no empty value, no
// trailing characters, no wrap-around. Throws Error{Usage} "WHAT: ..." with the range.
inline uint64_t parse_integer(const std::string& text, const std::string& what, uint64_t min, uint64_t max,
                              IntegerForm form = IntegerForm::Decimal) {
  const std::string range = " (" + std::to_string(min) + " to " + std::to_string(max) + ")";
  if (text.empty()) throw Error(ErrorKind::Usage, what + ": empty value; expected a number" + range);
  const bool x = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const bool is_hex = form != IntegerForm::Decimal && x;
  const bool is_octal = form == IntegerForm::C && !x && text.size() > 1 && text[0] == '0';
  const unsigned base = is_hex ? 16 : is_octal ? 8 : 10;
  uint64_t v = 0;
  bool overflow = false;
  for (size_t i = is_hex ? 2 : 0; i < text.size(); ++i) {
    const char c = text[i];
    unsigned d = base;
    if (c >= '0' && c <= '9') {
      d = static_cast<unsigned>(c - '0');
    } else if (is_hex && c >= 'a' && c <= 'f') {
      d = static_cast<unsigned>(c - 'a' + 10);
    } else if (is_hex && c >= 'A' && c <= 'F') {
      d = static_cast<unsigned>(c - 'A' + 10);
    }
    if (d >= base) {
      throw Error(ErrorKind::Usage, what + ": '" + text + "' is not " +
                                        (c == '-' && i == 0 ? "a non-negative integer"
                                         : is_octal         ? "a number (a leading 0 makes it octal: digits 0-7)"
                                                            : "a number") +
                                        range);
    }
    if (v > (UINT64_MAX - d) / base) overflow = true;
    if (!overflow) v = v * base + d;
  }
  if (overflow || v < min || v > max) throw Error(ErrorKind::Usage, what + ": " + text + " is out of range" + range);
  return v;
}

// Whether `text` is a decimal real as written by hand: [-]DIGITS[.DIGITS][e[+-]DIGITS], or
// with the digits only after the point (.5); no '+', no space, no hexadecimal, inf or nan.
inline bool decimal_real_syntax(const std::string& text) {
  size_t i = 0, digits = 0;
  auto run = [&] {
    size_t n = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i, ++n;
    return n;
  };
  if (i < text.size() && text[i] == '-') ++i;
  digits += run();
  if (i < text.size() && text[i] == '.') {
    ++i;
    digits += run();
  }
  if (digits == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (run() == 0) return false;
  }
  return i == text.size();
}

// A decimal real (decimal_real_syntax), finite and either zero or normal: a subnormal
// (1e-320) or an overflow is refused. T is double or long double, converted by strtod or
// strtold in the caller's rounding mode. Throws Error{Usage} "WHAT: 'TEXT' ...".
template <class T>
T parse_real(const std::string& text, const std::string& what) {
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, long double>);
  if (!decimal_real_syntax(text)) {
    throw Error(ErrorKind::Usage, what + ": '" + text + "' is not a decimal number (such as 7.8, 0.5 or 1e-3)");
  }
  errno = 0;
  char* end = nullptr;
  T v;
  if constexpr (std::is_same_v<T, double>) {
    v = std::strtod(text.c_str(), &end);
  } else {
    v = std::strtold(text.c_str(), &end);
  }
  if (!std::isfinite(v) || (v != 0 && std::fabs(v) < (std::is_same_v<T, double> ? DBL_MIN : LDBL_MIN))) {
    throw Error(ErrorKind::Usage, what + ": '" + text + "' is out of the range of a " +
                                      (std::is_same_v<T, double> ? "double" : "long double") +
                                      " (too large, or too small to be a normal number)");
  }
  if (v == 0 && errno == ERANGE) {  // an underflow to zero: not the zero it wrote
    throw Error(ErrorKind::Usage, what + ": '" + text + "' is too small to be a normal number");
  }
  return v;
}

// The shortest decimal text (%g, 1 to 17 digits) that reads back as exactly `v`: "0.9", not
// "0.90000000000000002" (echoes of what a user typed, in messages and reports).
inline std::string shortest_number(double v) {
  char buf[40];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

}  // namespace ea
