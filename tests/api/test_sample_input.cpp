// Samples wider than a byte through the C++ API: assess_values on 16-bit values with a mask
// gives the record `ea_iid --sample-format u16le|u16be --select-bits MASK` writes for the same
// samples in a file (the mapping, the SHA-256 of the file's bytes, the estimates), as do
// assess on the file's bytes and assess_file with sample_format; assess_values refuses the
// formats that are not wider than a byte, and a value wider than its format.
#include <doctest/doctest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../cli/cli_helpers.hpp"
#include "ea_iid/ea_iid.hpp"

namespace {

using nlohmann::json;

// What differs between two runs of the same assessment (when, how, where, by which build).
json stable_parts(const json& j) {
  static const char* volatile_keys[] = {"dateTimeStamp", "commandline", "timings", "toolVersion", "build",
                                        "workerThreads", "threads", "device", "deviceProfile"};
  if (j.is_object()) {
    json out = json::object();
    for (const auto& [k, v] : j.items()) {
      bool keep = true;
      for (const char* key : volatile_keys) keep = keep && k != key;
      if (keep) out[k] = stable_parts(v);
    }
    return out;
  }
  if (j.is_array()) {
    json out = json::array();
    for (const auto& v : j) out.push_back(stable_parts(v));
    return out;
  }
  return j;
}

// A 16-bit capture: 8 random bits in bits 4-11, bits 0 and 15 always set.
std::vector<uint32_t> capture(size_t n) {
  std::vector<uint32_t> v(n);
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (uint32_t& s : v) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    s = ((static_cast<uint32_t>(x >> 32) & 0xffu) << 4) | 0x8001u;
  }
  return v;
}

std::string bytes_of(const std::vector<uint32_t>& v, bool big_endian) {
  std::string b;
  for (uint32_t s : v) {
    const char lo = static_cast<char>(s & 0xff), hi = static_cast<char>(s >> 8);
    b += big_endian ? std::string{hi, lo} : std::string{lo, hi};
  }
  return b;
}

ea_iid::Options options(const std::string& format) {
  ea_iid::Options o;
  o.device = "cpu";
  o.track = "non-iid";
  o.sample_format = format;
  o.select_bits = "0x0ff0";
  return o;
}

json cli_record(const std::string& format, const std::string& path) {
  const cli_test::Result r =
      cli_test::run("-q -o - --device cpu --track non-iid --sample-format " + format + " --select-bits 0x0ff0 " + path);
  REQUIRE_MESSAGE(r.code == 0, r.err);
  return json::parse(r.out);
}

}  // namespace

TEST_CASE("assess_values gives the record of the command line on the same samples in a file") {
  const std::vector<uint32_t> values = capture(20000);
  for (const bool big : {false, true}) {
    const std::string format = big ? "u16be" : "u16le";
    CAPTURE(format);
    const std::string file = cli_test::write_bytes("api-values." + format, bytes_of(values, big));
    const json expected = cli_record(format, file);
    CHECK(expected["input"]["sampleRule"] == format + ", select-bits 0x0ff0");
    CHECK(expected["input"]["mapping"]["mask"] == "0x0ff0");
    ea_iid::Assessor assessor;
    const ea_iid::Result r = assessor.assess_values(values.data(), values.size(), options(format), file);
    CHECK(stable_parts(json::parse(r.json)) == stable_parts(expected));
    // The file's bytes in memory, and the file, read in that format: the same record.
    const std::string bytes = bytes_of(values, big);
    const ea_iid::Result from_bytes = assessor.assess(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(),
                                                      options(format), file);
    CHECK(stable_parts(json::parse(from_bytes.json)) == stable_parts(expected));
    CHECK(stable_parts(json::parse(assessor.assess_file(file, options(format)).json)) == stable_parts(expected));
  }
}

TEST_CASE("assess_many takes values wider than a byte beside files of their format") {
  const std::vector<uint32_t> values = capture(20000);
  const std::string file = cli_test::write_bytes("api-many.u16le", bytes_of(values, false));
  std::vector<ea_iid::Input> inputs(2);
  inputs[0].path = file;
  inputs[1].values = values;
  inputs[1].label = file;
  std::vector<json> got;
  ea_iid::Assessor assessor;
  assessor.assess_many(inputs, options("u16le"), 2, [&](size_t, const ea_iid::Result& r) { got.push_back(json::parse(r.json)); });
  REQUIRE(got.size() == 2);
  CHECK(got[0]["input"]["mapping"]["mask"] == "0x0ff0");
  CHECK(stable_parts(got[0]) == stable_parts(got[1]));
}

TEST_CASE("assess_values refuses formats not wider than a byte, and values wider than the format") {
  const std::vector<uint32_t> values = capture(1000);
  ea_iid::Assessor assessor;
  for (const std::string format : {"u8", "text"}) {
    ea_iid::Options o = options(format);
    o.select_bits = "0x3";  // a mask that the format holds: refused for the call, not the rule
    std::string kind, message;
    try {
      assessor.assess_values(values.data(), values.size(), o);
    } catch (const ea_iid::Error& e) {
      kind = e.kind();
      message = e.what();
    }
    CAPTURE(message);
    CHECK(kind == "usage");
    CHECK(message.find("sample_format: \"" + format + "\"") != std::string::npos);
    CHECK(message.find("u16le, u16be, u32le or u32be") != std::string::npos);
  }
  std::vector<uint32_t> wide = values;
  wide[7] = 70000;
  std::string kind, message;
  try {
    assessor.assess_values(wide.data(), wide.size(), options("u16le"), "adc");
  } catch (const ea_iid::Error& e) {
    kind = e.kind();
    message = e.what();
  }
  CHECK(kind == "input");
  CHECK(message == "adc: sample 7 is 70000, wider than the 16 bits of a u16le sample");
}
