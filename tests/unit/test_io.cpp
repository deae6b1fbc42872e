// Reading samples: widths, translation, subsets, errors.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "common/error.hpp"
#include "io/near_name.hpp"
#include "io/samples.hpp"

using namespace ea;

namespace {
std::string temp_file(const std::string& name, const std::vector<uint8_t>& bytes) {
  // (the process id in the name: ctest runs each case as its own process, side by side)
  std::string path = std::string(EA_TEST_TMP_DIR) + "/" + std::to_string(::getpid()) + "-" + name;
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                              static_cast<std::streamsize>(bytes.size()));
  return path;
}
}  // namespace

TEST_CASE("width inferred from the highest bit set, translation to ranks") {
  Dataset d = make_dataset({3, 9, 3, 12}, 0);
  CHECK(d.width == 4);
  CHECK(d.alphabet == 3);
  CHECK(d.translated);
  CHECK(d.symbols == std::vector<uint8_t>{0, 1, 0, 2});
  CHECK(d.raw_of[2] == 12);
  CHECK_FALSE(d.narrower_than_given);
}

TEST_CASE("a given width: narrower data warns, wider data is an error") {
  Dataset d = make_dataset({0, 1, 2, 3}, 6);
  CHECK(d.width == 6);
  CHECK(d.narrower_than_given);
  CHECK_THROWS_WITH_AS(make_dataset({0, 200}, 4), doctest::Contains("wider than the given 4 bits"), Error);
  CHECK_THROWS_AS(make_dataset({0, 1}, 9), Error);
}

TEST_CASE("-l INDEX,COUNT reads block INDEX (the last block may be short)") {
  std::vector<uint8_t> bytes;
  for (int i = 0; i < 10; ++i) bytes.push_back(static_cast<uint8_t>(i));
  std::string path = temp_file("io_subset.bin", bytes);
  Dataset d = load_dataset(path, 0, SubsetSpec{1, 4});
  CHECK(d.raw == std::vector<uint8_t>{4, 5, 6, 7});
  Dataset last = load_dataset(path, 0, SubsetSpec{2, 4});
  CHECK(last.raw == std::vector<uint8_t>{8, 9});
  CHECK_THROWS_WITH_AS(load_dataset(path, 0, SubsetSpec{3, 4}), doctest::Contains("past the end of the file"),
                       Error);
  CHECK(d.sha256.size() == 64);
}

TEST_CASE("one symbol only is an error (Degenerate), after a width the value does not fit") {
  std::string path = temp_file("io_one_symbol.bin", {4, 4, 4});
  CHECK_THROWS_WITH_AS(load_dataset(path, 0, std::nullopt), doctest::Contains("1 symbol"), Error);
  for (int width : {0, 3, 8}) {
    CAPTURE(width);
    try {
      load_dataset(path, width, std::nullopt);
      FAIL("no error");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Degenerate);
    }
  }
  // 4 needs 3 bits: at width 2 the width is the error, not the one symbol.
  try {
    load_dataset(path, 2, std::nullopt);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Input);
    CHECK(std::string(e.what()).find("wider than the given 2 bits") != std::string::npos);
  }
  // A one-symbol block of a file with two symbols is found alone.
  std::string two = temp_file("io_one_symbol_block.bin", {7, 7, 7, 1});
  CHECK_THROWS_WITH_AS(load_dataset(two, 0, SubsetSpec{0, 3}), doctest::Contains("1 symbol"), Error);
  CHECK(load_dataset(two, 0, SubsetSpec{0, 4}).alphabet == 2);
}

TEST_CASE("edit_distance and nearest_name: a likely typo's intended name, letter case aside") {
  CHECK(ea::edit_distance("philx", "philox") == 1);
  CHECK(ea::edit_distance("phliox", "philox") == 1);  // (an adjacent transposition is one edit)
  CHECK(ea::edit_distance("abc", "xyz") == 3);
  const std::vector<std::string> fields = {"iidClaim", "bitsPerSample", "sources"};
  CHECK(ea::nearest_name("iidclaim", fields) == "iidClaim");
  CHECK(ea::nearest_name("IIDCLAIM", fields) == "iidClaim");
  CHECK(ea::nearest_name("source", fields) == "sources");
  CHECK(ea::nearest_name("colour", fields).empty());  // 3 edits or more from every name
  // An abbreviation of exactly one name, 4 characters or more.
  const std::vector<std::string> component = {"validationNumber", "vetted", "description", "descriptor"};
  CHECK(ea::nearest_name("validationNo", component) == "validationNumber");
  CHECK(ea::nearest_name("VALIDATION", component) == "validationNumber");
  CHECK(ea::nearest_name("vali", component) == "validationNumber");
  CHECK(ea::nearest_name("val", component).empty());        // under 4 characters
  CHECK(ea::nearest_name("descr", component).empty());      // the start of two names
}
