// Runs one CLI case file of tests/cli/cases (tests/cli/README.md has the format): the
// executable with the case's arguments, then every expectation; prints each failure and
// exits 1 if any, 0 if all hold.
//
// usage: run_case CASE_FILE EXE TESTDATA_DIR TMP_DIR
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

std::string substitute(std::string s, const std::vector<std::pair<std::string, std::string>>& vars) {
  for (const auto& [k, v] : vars) {
    for (size_t at; (at = s.find(k)) != std::string::npos;) s.replace(at, k.size(), v);
  }
  return s;
}

// "0a0b*3" -> the bytes 0a 0b 0a 0b 0a 0b; "" -> no bytes.
std::string bytes_of(const std::string& spec) {
  const size_t star = spec.find('*');
  const std::string hex = spec.substr(0, star);
  const long times = star == std::string::npos ? 1 : std::stol(spec.substr(star + 1));
  if (hex.size() % 2) throw std::runtime_error("odd number of hex digits: " + spec);
  std::string one;
  for (size_t i = 0; i < hex.size(); i += 2) one.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  std::string all;
  for (long k = 0; k < times; ++k) all += one;
  return all;
}

// a.b.0.c: object keys and array indexes; nullptr when absent.
const nlohmann::json* at_path(const nlohmann::json& j, const std::string& path) {
  const nlohmann::json* cur = &j;
  std::stringstream ss(path);
  for (std::string part; std::getline(ss, part, '.');) {
    if (cur->is_array()) {
      char* end = nullptr;
      const unsigned long i = std::strtoul(part.c_str(), &end, 10);
      if (part.empty() || *end || i >= cur->size()) return nullptr;
      cur = &(*cur)[i];
    } else if (cur->is_object() && cur->contains(part)) {
      cur = &(*cur)[part];
    } else {
      return nullptr;
    }
  }
  return cur;
}

// "PATH OP [VALUE]" against the JSON document; "" when it holds, else why not.
std::string check_json(const nlohmann::json& doc, const std::string& expr) {
  std::stringstream ss(expr);
  std::string path, op;
  ss >> path >> op;
  std::string value;
  std::getline(ss, value);
  value = trim(value);
  const nlohmann::json* v = at_path(doc, path);
  if (op == "missing") return v ? path + " exists: " + v->dump() : "";
  if (!v) return path + " is missing";
  if (op == "exists") return "";
  if (op == "is-string") return v->is_string() ? "" : path + " is not a string: " + v->dump();
  if (op == "is-number") return v->is_number() ? "" : path + " is not a number: " + v->dump();
  const nlohmann::json want = nlohmann::json::parse(value);
  if (op == "==") return *v == want ? "" : path + " = " + v->dump() + ", expected " + want.dump();
  if (op == "!=") return *v != want ? "" : path + " = " + v->dump() + ", expected anything else";
  if (op == "<") return *v < want ? "" : path + " = " + v->dump() + ", expected < " + want.dump();
  if (op == ">") return *v > want ? "" : path + " = " + v->dump() + ", expected > " + want.dump();
  if (op == "size") return v->size() == want.get<size_t>() ? "" : path + " has " + std::to_string(v->size()) + " elements";
  if (op == "contains") {
    if (v->is_string() && want.is_string()) {
      return v->get<std::string>().find(want.get<std::string>()) != std::string::npos ? "" : path + " = " + v->dump() + " lacks " + want.dump();
    }
    if (v->is_array()) {
      for (const auto& e : *v) {
        if (e == want) return "";
      }
    }
    return path + " = " + v->dump() + " does not contain " + want.dump();
  }
  if (op == "lacks") {  // a string without the substring
    if (!v->is_string() || !want.is_string()) return path + ": lacks compares strings, got " + v->dump() + " and " + want.dump();
    return v->get<std::string>().find(want.get<std::string>()) == std::string::npos ? "" : path + " = " + v->dump() + " contains " + want.dump();
  }
  return "unknown operator '" + op + "'";
}

// One case file as read: the command and what it must do.
struct Case {
  std::string args, program;
  int want_exit = 0;
  std::vector<std::pair<std::string, std::string>> checks;  // (key, value)
};

// Reads CASE_FILE (writing its file: lines as it goes); returns false with a message on stderr.
bool read_case(const std::string& case_file, const std::vector<std::pair<std::string, std::string>>& vars, Case& c) {
  std::ifstream in(case_file);
  if (!in) {
    std::cerr << case_file << ": cannot open\n";
    return false;
  }
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    line = trim(line);
    if (line.empty() || line[0] == '#') continue;
    const size_t colon = line.find(':');
    if (colon == std::string::npos) {
      std::cerr << case_file << ":" << line_no << ": expected 'key: value'\n";
      return false;
    }
    const std::string key = trim(line.substr(0, colon));
    const std::string value = substitute(trim(line.substr(colon + 1)), vars);
    if (key == "args") {
      c.args = value;
    } else if (key == "program") {  // run as this name: a link to the executable (ea_non_iid, ...)
      c.program = value;
    } else if (key == "exit") {
      c.want_exit = std::stoi(value);
    } else if (key == "file") {  // file: PATH HEX[*COUNT]
      const size_t sp = value.find(' ');
      std::ofstream(value.substr(0, sp), std::ios::binary) << bytes_of(sp == std::string::npos ? "" : trim(value.substr(sp)));
    } else {
      c.checks.emplace_back(key, value);
    }
  }
  return true;
}

// One expectation against the run's output: "" when it holds, else why not.
std::string check_one(const std::string& key, const std::string& value, const std::string& sout, const std::string& serr) {
  if (key == "stdout" || key == "stderr" || key == "stdout-not" || key == "stderr-not") {
    const std::string& text = key.rfind("stdout", 0) == 0 ? sout : serr;
    const bool found = std::regex_search(text, std::regex(value));
    const bool negated = key.size() > 6 && key.compare(key.size() - 4, 4, "-not") == 0;
    return found == negated ? key + ": /" + value + "/ " + (negated ? "found" : "not found") : "";
  }
  if (key == "no-file") {
    struct stat st {};
    return ::stat(value.c_str(), &st) == 0 ? value + " exists" : "";
  }
  if (key == "json") {  // json: FILE PATH OP VALUE
    const size_t sp = value.find(' ');
    const std::string file = value.substr(0, sp);
    const std::string text = slurp(file);
    if (text.empty()) return file + ": missing or empty";
    const std::string why = check_json(nlohmann::json::parse(text), trim(value.substr(sp + 1)));
    return why.empty() ? "" : file + ": " + why;
  }
  return "unknown key '" + key + "'";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: run_case CASE_FILE EXE TESTDATA_DIR TMP_DIR\n";
    return 2;
  }
  // Absolute paths: the command runs in the case's folder.
  auto absolute = [](const char* p) {
    char* r = ::realpath(p, nullptr);
    std::string s = r ? r : p;
    std::free(r);
    return s;
  };
  const std::string case_file = argv[1], exe = absolute(argv[2]), testdata = absolute(argv[3]);
  // A fresh folder per case: {tmp}.
  std::string stem = case_file.substr(case_file.find_last_of('/') + 1);
  const std::string dir = std::string(argv[4]) + "/" + stem.substr(0, stem.rfind('.'));
  if (std::system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "'").c_str()) != 0) {
    std::cerr << dir << ": cannot make the case's folder\n";
    return 2;
  }
  const std::vector<std::pair<std::string, std::string>> vars = {
      {"{exe}", exe}, {"{samples}", testdata + "/samples"}, {"{testdata}", testdata}, {"{tmp}", dir}};
  Case c;
  if (!read_case(case_file, vars, c)) return 2;

  const std::string out = dir + "/.stdout", err = dir + "/.stderr";
  // Standard input is empty unless the arguments redirect it.
  const std::string stdin_redirect = c.args.find('<') == std::string::npos ? " </dev/null" : "";
  std::string run = exe;
  if (!c.program.empty()) {
    run = dir + "/" + c.program;
    if (::symlink(exe.c_str(), run.c_str()) != 0) {
      std::cerr << run << ": cannot make the link\n";
      return 2;
    }
  }
  const std::string cmd = "cd '" + dir + "' && '" + run + "' " + c.args + " >'" + out + "' 2>'" + err + "'" + stdin_redirect;
  const int status = std::system(cmd.c_str());
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  const std::string sout = slurp(out), serr = slurp(err);

  std::vector<std::string> failures;
  if (code != c.want_exit) failures.push_back("exit " + std::to_string(code) + ", expected " + std::to_string(c.want_exit));
  for (const auto& [key, value] : c.checks) {
    try {
      std::string why = check_one(key, value, sout, serr);
      if (!why.empty()) failures.push_back(std::move(why));
    } catch (const std::exception& e) {
      failures.push_back(key + ": " + value + ": " + e.what());
    }
  }
  if (failures.empty()) {
    std::cout << stem << ": passed\n";
    return 0;
  }
  std::cout << stem << ": FAILED\n$ " << cmd << "\n";
  for (const auto& f : failures) std::cout << "  " << f << "\n";
  std::cout << "--- stdout\n" << sout << "--- stderr\n" << serr;
  return 1;
}
