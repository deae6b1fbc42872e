// The report layer (report/): the one JSON record of each kind of result, read back through
// the one row reader with the same verdict and row; damaged rows refused with their field;
// and the declared list of settings (pipeline/settings_fields.hpp) complete.
#include <doctest/doctest.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/sha256.hpp"
#include "lab.hpp"
#include "permutation/counters.hpp"
#include "record.hpp"
#include "rejections.hpp"
#include "report.hpp"
#include "runner.hpp"
#include "settings_fields.hpp"
#include "settings_rules.hpp"
#include "summary.hpp"

using namespace ea;
using nlohmann::ordered_json;

namespace {

Settings quick() {
  Settings s;
  s.seed = 11;
  s.iterations = 200;
  s.device = DeviceChoice::Cpu;
  s.threads = 1;
  return s;
}

// Item 0: IID-looking bytes; item 1: a ramp (not IID); item 2: an input error.
// A dataset made in memory with the SHA-256 of its bytes, as every front door records it
// (the schema the record reader checks wants one).
Dataset hashed(std::vector<uint8_t> bytes, int width) {
  const std::string sha = to_hex(sha256(bytes.data(), bytes.size()));
  Dataset d = make_dataset(std::move(bytes), width);
  d.sha256 = sha;
  return d;
}

std::vector<Item> three_items() {
  std::vector<Item> items(3);
  for (size_t k = 0; k < items.size(); ++k) {
    items[k].path = "generated " + std::to_string(k);
    items[k].generate = [k] {
      if (k == 2) throw Error(ErrorKind::Input, "item 2 cannot be made");
      std::vector<uint8_t> bytes(4000);
      std::mt19937 rng(5);
      for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(k == 0 ? rng() : i / 7);
      return hashed(std::move(bytes), 8);
    };
  }
  return items;
}

std::vector<ItemResult> run_three() {
  std::vector<ItemResult> out;
  RunObserver obs;
  obs.finished = [&](size_t, const Item&, ItemResult& r) { out.push_back(std::move(r)); };
  std::atomic<bool> stop{false};
  run_items(three_items(), quick(), 1, stop, obs);
  return out;
}

ReportOptions report_options() {
  ReportOptions o;
  o.started = "20261125000000";
  o.command_line = "ea_iid test";
  o.first_file = "generated 0";
  return o;
}

std::string error_of(ordered_json j) {
  try {
    read_record(std::move(j), "rows.jsonl:7");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::Input);
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("every member of Settings is classified once in settings_fields") {
  CHECK(settings_fields().size() == kSettingsMembers);
  std::set<std::string> names;
  for (const auto& f : settings_fields()) {
    CHECK(names.insert(f.field).second);
    if (f.effect == SettingEffect::Result && f.record) CHECK((f.value != nullptr));
    if (f.effect == SettingEffect::Result && !f.record) CHECK(std::string(f.why).size() > 0);
  }
}

TEST_CASE("a run needs a seed exactly where it draws random numbers") {
  Settings s;
  CHECK(draws_random_numbers(s));  // auto: the IID tests' shuffles
  s.track = TrackChoice::Iid;
  CHECK(draws_random_numbers(s));
  s.track = TrackChoice::NonIid;
  CHECK_FALSE(draws_random_numbers(s));
  s.restart = RestartSpec{7.5};
  CHECK_FALSE(draws_random_numbers(s));  // a non-IID claim, the exact cutoff
  s.restart->cutoff = CutoffMethod::Simulation;
  CHECK(draws_random_numbers(s));  // the cutoff's simulation is seeded (on the non-IID track too)
  s.track = TrackChoice::Iid;
  s.restart->cutoff = CutoffMethod::Exact;
  CHECK(draws_random_numbers(s));  // an IID claim: the IID tests of rows and columns
}

TEST_CASE("the settings rules name each setting by the front door's names") {
  Settings s;
  s.track = TrackChoice::NonIid;
  SettingsGiven g;
  g.iterations = true;
  auto message = [&](const SettingNames& names) {
    try {
      check_settings(s, g, names);
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::Usage);
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(message(keyword_name) == "iterations applies to the IID tests, which track=\"non-iid\" does not run");
  const SettingNames flags = [](const std::string& key, const std::string& value) {
    return "--" + key + (value.empty() ? "" : " " + value);
  };
  CHECK(message(flags) == "--iterations applies to the IID tests, which --track non-iid does not run");
  s.restart = RestartSpec{1e-320};  // a subnormal H_I, as the API may pass it
  g = SettingsGiven{};
  CHECK(message(keyword_name).find("restart: '") == 0);
  CHECK(message(keyword_name).find("normal number") != std::string::npos);
  s.restart = RestartSpec{7.5};
  s.track = TrackChoice::Auto;
  g.conditioned = true;
  CHECK(message(keyword_name) == "restart: conditioned=true does not apply (the restart tests estimate the literal samples)");
}

TEST_CASE("each result's record reads back with its result's verdict, compliance and row") {
  const auto results = run_three();
  REQUIRE(results.size() == 3);
  const ReportOptions o = report_options();
  for (size_t k = 0; k < 2; ++k) {
    const ItemResult& r = results[k];
    REQUIRE(r.assessed());
    const Record rec = record_of(r, "generated " + std::to_string(k), -1, o);
    CHECK(rec.kind == Record::Kind::Assessment);
    CHECK(*rec.verdict == r.verdict());
    CHECK(rec.for_compliance == r.for_compliance());
    CHECK(rec.row.verdict == verdict_name(r.verdict()));
    CHECK(*rec.user_seed == "11");
    // Every result-changing setting the record holds is where settings_fields says.
    for (const auto& f : settings_fields()) {
      if (f.effect != SettingEffect::Result || !f.record) continue;
      CHECK_MESSAGE(rec.json.contains(ordered_json::json_pointer("/" + [&] {
                      std::string p = f.record;
                      for (auto& c : p) c = c == '.' ? '/' : c;
                      return p;
                    }())),
                    f.record);
    }
  }
  CHECK(results[1].verdict() == Verdict::NotIid);
  const Record err = record_of(results[2], "generated 2", -1, o);
  CHECK(err.kind == Record::Kind::Error);
  CHECK(err.row.verdict == "error: item 2 cannot be made");
  Tally t;
  for (size_t k = 0; k < 3; ++k) t.add(record_of(results[k], "x", -1, o));
  CHECK(t.results == 2);
  CHECK(t.errors == 1);
  CHECK(t.not_iid);
}

TEST_CASE("damaged or edited rows are refused with FILE:LINE and the field") {
  const auto results = run_three();
  const ordered_json good = result_json(results[1], "generated 1", -1, report_options());
  CHECK(error_of(good).empty());
  auto damaged = [&](const std::function<void(ordered_json&)>& edit) {
    ordered_json j = good;
    edit(j);
    return error_of(j);
  };
  std::string e = damaged([](ordered_json& j) { j["permutation"].erase("userSeed"); });
  CHECK(e.find("rows.jsonl:7: permutation.userSeed: missing") == 0);
  e = damaged([](ordered_json& j) { j["input"]["bitsPerSymbol"] = 40; });
  CHECK(e.find("input.bitsPerSymbol: 40 is not one of [1,2,3,4,5,6,7,8]") != std::string::npos);
  e = damaged([](ordered_json& j) { j["surprise"] = 1; });  // the schema's additionalProperties
  CHECK(e.find("rows.jsonl:7: surprise: not a field of this kind of row") == 0);
  e = damaged([](ordered_json& j) { j["permutation"]["userSeed"] = "12a"; });
  CHECK(e.find("permutation.userSeed: \"12a\" does not match") != std::string::npos);
  e = damaged([](ordered_json& j) { j["input"]["valueCounts"][0] = ordered_json::array({300, 1}); });
  CHECK(e.find("input.valueCounts: expected [value, count] pairs with values 0-255") != std::string::npos);
  e = damaged([](ordered_json& j) { j["verdict"]["result"] = "IID"; });
  CHECK(e.find("verdict.") != std::string::npos);
  e = damaged([](ordered_json& j) {
    j["verdict"]["result"] = "IID";
    j["verdict"]["iid"] = true;
  });
  CHECK(e.find("verdict.result: contradicts the results of its tests") != std::string::npos);
  e = damaged([](ordered_json& j) { j["permutation"]["tests"][0]["C0"] = -3; });
  CHECK(e.find("permutation.tests.0.C0") != std::string::npos);
  e = damaged([](ordered_json& j) { j["estimates"] = 3; });
  CHECK(e.find("rows.jsonl:7: estimates: expected type \"object\", found 3") == 0);
  e = damaged([](ordered_json& j) { j["type"] = "Conditioning"; });  // read against the conditioning row's schema
  CHECK(e.find("rows.jsonl:7: conditioning: missing") == 0);
  e = damaged([](ordered_json& j) { j["type"] = "Batch"; });
  CHECK(e.find("type: 'Batch' is not a result ea_iid reads") != std::string::npos);
  e = damaged([](ordered_json& j) { j["type"] = "Non-IID"; });  // an IID row called non-IID
  CHECK(e.find("rows.jsonl:7: IID: expected false, found true (and ") == 0);
  CHECK(error_of(ordered_json::array()).find("not a JSON object") != std::string::npos);
}

TEST_CASE("read_jsonl_rows: a cut-off last line is left out and said; a bad line names its line") {
  const auto results = run_three();
  const ReportOptions o = report_options();
  const std::string path = std::string(EA_TEST_TMP_DIR) + "/report-rows.jsonl";
  const std::string a = result_json(results[0], "generated 0", -1, o).dump();
  const std::string b = result_json(results[2], "generated 2", -1, o).dump();
  {
    std::ofstream(path, std::ios::binary) << a << "\n" << b << "\n" << a.substr(0, 40);
  }
  JsonlRows rows = read_jsonl_rows(path);
  CHECK(rows.rows.size() == 2);
  CHECK(rows.torn);
  CHECK(rows.lines == std::vector<size_t>{1, 2});
  {
    std::ofstream(path, std::ios::binary) << a << "\n" << a.substr(0, 40) << "\n" << b << "\n";
  }
  try {
    read_jsonl_rows(path);
    FAIL("a damaged middle line was read");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("report-rows.jsonl:2: not a JSON line") != std::string::npos);
  }
  std::remove(path.c_str());
}

TEST_CASE("non-IID results: --non-iid rows and the estimates after a 'not IID' verdict read back and are checked") {
  std::atomic<bool> stop{false};
  std::vector<ItemResult> out;
  RunObserver obs;
  obs.finished = [&](size_t, const Item&, ItemResult& r) { out.push_back(std::move(r)); };
  Settings s = quick();
  s.track = TrackChoice::NonIid;
  auto items = three_items();
  items.resize(2);
  run_items(items, s, 1, stop, obs);
  REQUIRE(out.size() == 2);
  const ReportOptions o = report_options();
  for (const auto& r : out) {
    REQUIRE(r.non_iid());
    CHECK_FALSE(r.has_verdict());
    const Record rec = record_of(r, "generated", -1, o);
    CHECK(rec.kind == Record::Kind::NonIid);
    CHECK_FALSE(rec.verdict);
    CHECK(rec.json["assessedMinEntropy"].get<double>() == r.non_iid()->min_entropy());
    CHECK(rec.json["trackChoice"] == "non-iid");
    CHECK(rec.row.verdict.find("non-IID estimate") == 0);
    ordered_json edited = rec.json;
    edited["assessedMinEntropy"] = 7.5;  // not the minimum of its estimates
    CHECK(error_of(edited).find("nonIid.hAssessed: contradicts assessedMinEntropy") != std::string::npos);
    edited = rec.json;
    edited["nonIid"]["estimators"][0]["literal"]["minEntropy"] = 0.001;  // lower than the minimum
    CHECK(error_of(edited).find("contradicts the estimates") != std::string::npos);
    Tally t;
    t.add(rec);
    CHECK(t.results == 1);
    CHECK(t.all_iid());  // no IID verdict to fail
  }
  // The ramp (item 1) with the default track and the reference's iteration count: not IID,
  // then the non-IID estimates give the assessed min-entropy.
  out.clear();
  s = quick();
  s.iterations = 10000;
  items = three_items();
  std::vector<Item> ramp{items[1]};
  run_items(ramp, s, 1, stop, obs);
  REQUIRE(out.size() == 1);
  const Assessment* a = out[0].iid();
  REQUIRE(a);
  CHECK(a->verdict() == Verdict::NotIid);
  REQUIRE(a->non_iid);
  CHECK(a->min_entropy() == a->non_iid->h_assessed);
  CHECK(a->min_entropy() < a->h_assessed);
  const Record rec = record_of(out[0], "generated 1", -1, o);
  CHECK(rec.json["assessedMinEntropy"].get<double>() == a->non_iid->h_assessed);
  ordered_json edited = rec.json;
  edited["assessedMinEntropy"] = a->h_assessed;  // the IID track's estimate instead
  CHECK(error_of(edited).find("assessedMinEntropy: contradicts nonIid.hAssessed") != std::string::npos);
  // --track iid stops at the verdict.
  out.clear();
  s.track = TrackChoice::Iid;
  run_items(ramp, s, 1, stop, obs);
  REQUIRE(out.size() == 1);
  CHECK_FALSE(out[0].iid()->non_iid);
}

TEST_CASE("binomial_upper_tail: exact values (Python fractions) and the edges") {
  CHECK(binomial_upper_tail(256, 9, 0.0258) == doctest::Approx(0.2187893392310955).epsilon(1e-9));
  CHECK(binomial_upper_tail(10, 2, 0.192) == doctest::Approx(0.5995515537252514).epsilon(1e-9));
  CHECK(binomial_upper_tail(10000, 3, 0.0001) == doctest::Approx(0.0802921992422427).epsilon(1e-9));
  CHECK(binomial_upper_tail(1000, 109, 0.19) == doctest::Approx(0.9999999999988587).epsilon(1e-9));
  CHECK(binomial_upper_tail(10, 0, 0.3) == 1.0);
  CHECK(binomial_upper_tail(10, 11, 0.3) == 0.0);
  CHECK(binomial_upper_tail(10, 10, 0.5) == doctest::Approx(1.0 / 1024));
}

TEST_CASE("permutation_false_rejection_rate: 2(t+1)/(N+1), SP 800-90B's 12/10001") {
  CHECK(permutation_false_rejection_rate(10000, 5) == doctest::Approx(12.0 / 10001));
  CHECK(permutation_false_rejection_rate(200, decision_threshold(200)) == doctest::Approx(2.0 / 201));
  CHECK(permutation_false_rejection_rate(1, 0) == 1.0);
}

namespace {
// A minimal IID-track record for count_rejections: which tests failed and ran.
nlohmann::ordered_json fake_row(bool chi_fail, int failed_perm_test, bool compression_ran, uint32_t iterations = 10000) {
  nlohmann::ordered_json r;
  r["type"] = "IID";
  r["verdict"]["result"] = chi_fail || failed_perm_test >= 0 ? "not IID" : "IID";
  r["chiSquare"]["independence"] = {{"evaluable", true}, {"result", chi_fail ? "failed" : "passed"}};
  r["chiSquare"]["goodnessOfFit"] = {{"evaluable", false}, {"result", "not evaluated: not enough samples"}};
  r["longestRepeatedSubstring"]["passed"] = true;
  r["permutation"]["iterations"] = iterations;
  r["permutation"]["decisionThreshold"] = decision_threshold(iterations);
  auto tests = nlohmann::ordered_json::array();
  for (int t = 0; t < 19; ++t) {
    const bool ran = t < 18 || compression_ran;
    tests.push_back({{"name", "t" + std::to_string(t)}, {"ran", ran},
                     {"result", !ran ? "not run" : t == failed_perm_test ? "failed" : "passed"}});
  }
  r["permutation"]["tests"] = tests;
  return r;
}
}  // namespace

TEST_CASE("count_rejections: counts per test where it ran, expectations from the rule, other rows aside") {
  std::vector<nlohmann::ordered_json> rows;
  for (int i = 0; i < 97; ++i) rows.push_back(fake_row(false, -1, true));
  rows.push_back(fake_row(true, -1, true));
  rows.push_back(fake_row(false, 4, false));
  rows.push_back(fake_row(false, 4, false));
  rows.push_back({{"skipped", "shorter than --blocks"}});
  rows.push_back({{"errorLevel", 1}, {"errorMessage", "x"}});
  const auto r = count_rejections(rows);
  REQUIRE(r.has_value());
  CHECK(r->items == 100);
  CHECK(r->rejected == 3);
  CHECK_FALSE(r->mixed);
  const double perm = 12.0 / 10001;
  CHECK(r->item_rate == doctest::Approx(0.003 + 19 * perm));
  CHECK(r->expected == doctest::Approx(100 * (0.003 + 19 * perm)));
  CHECK(r->p_value == doctest::Approx(binomial_upper_tail(100, 3, 0.003 + 19 * perm)));
  REQUIRE(r->tests.size() == 22);
  CHECK(r->tests[0].tested == 100);  // independence
  CHECK(r->tests[0].rejected == 1);
  CHECK(r->tests[1].tested == 0);    // goodness of fit: never evaluable here
  CHECK(r->tests[3 + 4].rejected == 2);
  CHECK(r->tests[3 + 18].tested == 98);  // compression ran where the others passed
  CHECK(r->tests[3 + 18].expected == doctest::Approx(98 * perm));
  CHECK(rejections_sentence(*r).find("3 of 100 items not IID; at most") == 0);
  CHECK(count_rejections({rows.back()}) == std::nullopt);
  rows.push_back(fake_row(false, -1, true, 200));
  CHECK(count_rejections(rows)->mixed);
}

TEST_CASE("count_rejections: many more rejections than chance are called so") {
  std::vector<nlohmann::ordered_json> rows;
  for (int i = 0; i < 90; ++i) rows.push_back(fake_row(false, -1, true));
  for (int i = 0; i < 10; ++i) rows.push_back(fake_row(false, 2, false));
  const auto r = count_rejections(rows);
  CHECK(r->more_than_chance());
  CHECK(rejections_sentence(*r).find("more than chance explains") != std::string::npos);
  CHECK(test_rejections_line(r->tests[3 + 2]).find("t2: 10 of 100 (at most 0.12 expected, p < 1e-12)") == 0);
}

TEST_CASE("headline numbers edited against their own fields are refused (IID, non-IID rows)") {
  const auto results = run_three();
  const ordered_json good = result_json(results[0], "generated 0", -1, report_options());
  REQUIRE(error_of(good).empty());
  const double width = good["input"]["bitsPerSymbol"].get<double>();
  const double h_original = good["estimates"]["hOriginal"]["minEntropy"].get<double>();
  REQUIRE(h_original < width);
  // Raised above H_original, NIST's field edited with it: the estimates say otherwise.
  ordered_json j = good;
  j["assessedMinEntropy"] = width;
  j["testCases"][0]["hAssessed"] = width;
  CHECK(error_of(j).find("rows.jsonl:7: assessedMinEntropy: contradicts min(H_original") == 0);
  j = good;  // one of the two: they contradict each other
  j["assessedMinEntropy"] = h_original + 0.1;
  CHECK(error_of(j).find("testCases.0.hAssessed: contradicts assessedMinEntropy") != std::string::npos);
  j = good;  // the estimate raised with the headline: NIST's test case still holds the old one
  j["estimates"]["hOriginal"]["minEntropy"] = width;
  j["assessedMinEntropy"] = j["testCases"][0]["hAssessed"] = std::min(width, 8 * good["estimates"]["hBitstring"]["minEntropy"].get<double>());
  CHECK(error_of(j).find("testCases.0.hOriginal: contradicts estimates.hOriginal") != std::string::npos);
}

TEST_CASE("headline numbers of non-IID estimates edited against their estimators are refused") {
  std::atomic<bool> stop{false};
  std::vector<ItemResult> out;
  RunObserver obs;
  obs.finished = [&](size_t, const Item&, ItemResult& r) { out.push_back(std::move(r)); };
  const ReportOptions o = report_options();
  // A --non-iid row.
  Settings s = quick();
  s.track = TrackChoice::NonIid;
  auto items = three_items();
  items.resize(1);
  run_items(items, s, 1, stop, obs);
  REQUIRE(out.size() == 1);
  const ordered_json row = record_of(out[0], "generated 0", -1, o).json;
  ordered_json j = row;
  j["testCases"][10]["hAssessed"] = 8.0;
  CHECK(error_of(j).find("testCases.10.hAssessed: contradicts assessedMinEntropy") != std::string::npos);
  j = row;
  j["nonIid"]["hOriginal"] = 8.0;
  CHECK(error_of(j).find("nonIid.hOriginal: contradicts the literal estimates") != std::string::npos);
  j = row;
  j["nonIid"]["hBitstring"] = 1.0;
  CHECK(error_of(j).find("nonIid.hBitstring: contradicts the bitstring estimates") != std::string::npos);
  // An IID row whose "not IID" verdict brought non-IID estimates: every headline raised
  // together still contradicts the estimators; and none may exceed the IID track's minimum.
  out.clear();
  s = quick();
  s.iterations = 10000;
  items = three_items();
  std::vector<Item> ramp{items[1]};
  run_items(ramp, s, 1, stop, obs);
  REQUIRE(out.size() == 1);
  const ordered_json iid = record_of(out[0], "generated 1", -1, o).json;
  REQUIRE_FALSE(iid["nonIid"].is_null());
  j = iid;
  const double raised = iid["assessedMinEntropy"].get<double>() + 0.25;
  j["assessedMinEntropy"] = j["testCases"][0]["hAssessed"] = j["nonIid"]["hAssessed"] = raised;
  CHECK(error_of(j).find("nonIid.hAssessed: contradicts the estimates in nonIid.estimators") != std::string::npos);
  j = iid;  // the IID track's estimate lowered below the non-IID minimum
  const double low = iid["assessedMinEntropy"].get<double>() / 2;
  j["estimates"]["hOriginal"]["minEntropy"] = j["testCases"][0]["hOriginal"] = low;
  j["estimates"]["hBitstring"]["minEntropy"] = j["testCases"][0]["hBitstring"] = low / 8;
  j["estimates"]["hBitstringPerSymbol"] = low;
  CHECK(error_of(j).find("assessedMinEntropy: above the IID track's") != std::string::npos);
}

TEST_CASE("a restart row's result, validation and verdict are checked against its numbers") {
  std::atomic<bool> stop{false};
  std::vector<ItemResult> out;
  RunObserver obs;
  obs.finished = [&](size_t, const Item&, ItemResult& r) { out.push_back(std::move(r)); };
  Item it;
  it.path = "restarts";
  it.generate = [] {
    std::vector<uint8_t> bits(1000000);
    std::mt19937 rng(9);
    for (auto& b : bits) b = static_cast<uint8_t>(rng() & 1);
    return hashed(std::move(bits), 1);
  };
  for (const TrackChoice claim : {TrackChoice::Auto, TrackChoice::Iid}) {  // a non-IID claim, an IID claim
    CAPTURE(static_cast<int>(claim));
    Settings s = quick();
    s.track = claim;
    s.iterations = 20;
    s.compression_test = false;
    s.restart = RestartSpec{0.9};
    out.clear();
    run_items({it}, s, 1, stop, obs);
    REQUIRE(out.size() == 1);
    REQUIRE(out[0].restart());
    const Record rec = record_of(out[0], "restarts", -1, report_options());
    REQUIRE(rec.kind == Record::Kind::Restart);
    // A pass/fail check, not an IID verdict: the tally counts it apart from "not IID".
    CHECK_FALSE(rec.verdict);
    REQUIRE(rec.check);
    CHECK(*rec.check == out[0].check());
    CHECK(rec.json["verdict"]["result"] == check_name(*rec.check));
    CHECK_FALSE(out[0].has_verdict());
    Tally tally;
    tally.add(rec);
    CHECK(tally.judged == 1);
    CHECK_FALSE(tally.not_iid);
    CHECK(tally.failed == (*rec.check == Check::Failed));
    const ordered_json row = rec.json;
    REQUIRE(row["restart"]["sanityCheck"] == "passed");
    ordered_json j = row;
    j["restart"]["result"] = 0.95;  // above H_I
    CHECK(error_of(j).find("restart.result: is not min(hR, hC, hI)") != std::string::npos);
    j = row;
    j["restart"]["hI"] = 9.0;
    CHECK(error_of(j).find("restart.hI: out of range") != std::string::npos);
    j = row;  // H_I raised past twice H_r with the result: the validation would fail
    j["restart"]["hI"] = 2 * row["restart"]["hR"].get<double>() + 0.5;
    j["restart"]["result"] = std::min(row["restart"]["hR"].get<double>(), row["restart"]["hC"].get<double>());
    CHECK(error_of(j).find("restart.validation: contradicts hR, hC and hI") != std::string::npos);
    j = row;
    j["restart"]["hR"] = 0.1;  // the validation now fails, yet the row says passed
    j["restart"]["result"] = 0.1;
    CHECK(error_of(j).find("restart.hR: contradicts") != std::string::npos);
    j = row;
    j["restart"]["validation"] = "failed";
    CHECK(error_of(j).find("restart.validation: contradicts hR, hC and hI") != std::string::npos);
  }
}

// Every record is written with kSchemaVersion (report.hpp), and docs/ea_iid.schema.json, which
// schema/outputs checks every written file against, requires that same version: a version
// bumped on one side only fails here.
TEST_CASE("the schema version: one constant, the schema's own") {
  std::ifstream in(EA_TEST_DATA_DIR "/../docs/ea_iid.schema.json");
  REQUIRE(in);
  const auto schema = nlohmann::json::parse(in);
  int found = 0;
  std::vector<const nlohmann::json*> todo{&schema};
  while (!todo.empty()) {
    const nlohmann::json* j = todo.back();
    todo.pop_back();
    if (j->is_object() && j->contains("schemaVersion") && (*j)["schemaVersion"].is_object() &&
        (*j)["schemaVersion"].contains("const")) {
      CHECK((*j)["schemaVersion"]["const"] == kSchemaVersion);
      ++found;
    }
    if (j->is_structured()) {
      for (const auto& v : *j) todo.push_back(&v);
    }
  }
  CHECK(found >= 2);  // the single record and the batch document at least
  const auto results = run_three();
  for (size_t k = 0; k < results.size(); ++k) {
    CHECK(result_json(results[k], "generated " + std::to_string(k), -1, report_options())["schemaVersion"] ==
          kSchemaVersion);
  }
}

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  for (size_t at = 0; at < text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

// The character (not byte) where `what` starts in `line` (of valid UTF-8: the bytes that do
// not continue a character, counted here apart from text_cells).
size_t cell_of(const std::string& line, const std::string& what) {
  const size_t at = line.find(what);
  REQUIRE(at != std::string::npos);
  size_t cells = 0;
  for (size_t k = 0; k < at; ++k) cells += (static_cast<unsigned char>(line[k]) & 0xC0) != 0x80;
  return cells;
}

}  // namespace

TEST_CASE("text cells count UTF-8 characters: cut and padded by them, never inside one") {
  const std::string s = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80" "b";  // a, e-acute, euro, an emoji, b
  CHECK(text_cells(s) == 5);
  CHECK(first_cells(s, 3) == "a\xc3\xa9\xe2\x82\xac");
  CHECK(last_cells(s, 2) == "\xf0\x9f\x98\x80" "b");
  CHECK(first_cells(s, 9) == s);
  CHECK(text_cells("\xff\xc3") == 2);  // bytes that are not UTF-8: one cell each
}

TEST_CASE("the summary table cuts a UTF-8 file name by characters and aligns its columns by them") {
  std::string name;
  for (int k = 0; k < 60; ++k) name += "\xc3\xa9";  // 60 x e-acute: 120 bytes, 60 characters
  std::vector<Row> rows(2);
  rows[0] = Row{"d/" + name + "-25.bin", "-", "1000000", "8", "-", "-", "7.9", "-", "-", "-", "-", "IID", "1.00"};
  rows[1] = Row{"d/" + name + "-85.bin", "-", "2000000", "8", "-", "-", "7.8", "-", "-", "-", "-", "IID", "2.00"};
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  print_summary(f, rows);
  std::rewind(f);
  std::string text;
  for (int c; (c = std::fgetc(f)) != EOF;) text += static_cast<char>(c);
  std::fclose(f);
  CHECK(valid_utf8(text));  // report.hpp's check
  const std::vector<std::string> lines = lines_of(text);
  REQUIRE(lines.size() >= 3);
  CHECK(lines[1].find("...") != std::string::npos);  // cut (60 characters do not fit beside the others)
  CHECK(lines[1].find("-25.bin") != std::string::npos);
  CHECK(cell_of(lines[1], "1000000") == cell_of(lines[0], "samples"));
  CHECK(cell_of(lines[2], "2000000") == cell_of(lines[0], "samples"));
}

TEST_CASE("the lab table pads UTF-8 source names by characters: its columns line up") {
  std::vector<LabRow> rows;
  rows.push_back({"r\xc3\xb6hre-\xe2\x82\xac", ordered_json::object(), "", std::nullopt});  // "röhre-€": 7 characters, 10 bytes
  rows.push_back({"plain-source", ordered_json::object(), "", std::nullopt});
  const std::vector<std::string> lines = lines_of(lab_text(rows));
  REQUIRE(lines.size() >= 3);
  CHECK(cell_of(lines[1], "-  ") == cell_of(lines[0], "Track"));
  CHECK(cell_of(lines[2], "-  ") == cell_of(lines[0], "Track"));
}
