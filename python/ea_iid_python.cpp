// The Python module `ea_iid` (pybind11) over the C++ API: assess(), assess_many(),
// assess_manifest(), list_prngs(), version(); results are the command line's JSON records as dicts
// (docs/python.md). The GIL is released while an assessment runs; Ctrl-C cancels it.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "ea_iid/ea_iid.hpp"

namespace py = pybind11;

namespace {

// One engine per process (its devices are set up once), never destroyed (a daemon thread may
// still be in a call at exit); one run at a time.
ea_iid::Assessor& assessor() {
  static ea_iid::Assessor* a = new ea_iid::Assessor;
  return *a;
}
std::mutex& run_mutex() {
  static std::mutex* m = new std::mutex;
  return *m;
}

// Takes the run lock without the GIL, checking for Ctrl-C every 100 ms while another call
// (an assess_many iterator's batch) holds it. Throws error_already_set on a signal.
std::unique_lock<std::mutex> lock_run() {
  std::unique_lock<std::mutex> lock(run_mutex(), std::defer_lock);
  while (true) {
    {
      py::gil_scoped_release release;
      for (int k = 0; k < 100 && !lock.try_lock(); ++k) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (lock.owns_lock()) return lock;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  }
}

PyObject* g_error = nullptr;        // ea_iid.Error
PyObject* g_usage_error = nullptr;  // ea_iid.UsageError: ea_iid.Error and ValueError, kind "usage"

// Text from the library (messages; paths may hold any bytes) as a Python str: bytes that are
// not UTF-8 shown as \xNN.
py::str text_of(const std::string& s) {
  PyObject* u = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "backslashreplace");
  if (u == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(u);
}

[[noreturn]] void raise_error(const std::string& kind, const std::string& message) {
  PyObject* type = kind == "usage" ? g_usage_error : g_error;
  py::object value = py::reinterpret_borrow<py::object>(type)(text_of(message));
  value.attr("error_kind") = kind;
  PyErr_SetObject(type, value.ptr());
  throw py::error_already_set();
}
[[noreturn]] void raise_error(const ea_iid::Error& e) { raise_error(e.kind(), e.what()); }

py::object loads(const std::string& json) { return py::module_::import("json").attr("loads")(text_of(json)); }

// ---- Keywords: each named in its errors. A value of the wrong type is a TypeError ("bits:
// expected int, got str"); a value of the right type is the library's to judge (UsageError,
// the command line's rules), and so is a whole number too large for the library's field: the
// call is refused with the library's message for the nearest number the field holds, naming
// the number given (see Unheld). Unknown keywords are a TypeError naming the nearest one.

std::string type_name(const py::handle& v) { return Py_TYPE(v.ptr())->tp_name; }

bool is_bool(const py::handle& v) {
  const std::string t = type_name(v);
  return PyBool_Check(v.ptr()) || t == "numpy.bool_" || t == "numpy.bool";
}

[[noreturn]] void wrong_type(const std::string& key, const std::string& expected, const py::handle& v) {
  throw py::type_error(key + ": expected " + expected + ", got " + type_name(v));
}

// str (surrogate escapes kept as the bytes they stand for, as os.fsencode does on UTF-8).
std::string text(const std::string& key, const py::handle& v) {
  if (!PyUnicode_Check(v.ptr())) wrong_type(key, "str", v);
  const py::bytes b = py::reinterpret_steal<py::bytes>(PyUnicode_AsEncodedString(v.ptr(), "utf-8", "surrogateescape"));
  if (!b) throw py::error_already_set();
  return b;
}

bool flag(const std::string& key, const py::handle& v) {
  if (!is_bool(v)) wrong_type(key, "bool", v);
  return PyObject_IsTrue(v.ptr()) == 1;
}

// A real number (int, float, numpy's; not bool or text); an int past a double's range as +-inf.
double number(const std::string& key, const py::handle& v) {
  const bool numeric = PyFloat_Check(v.ptr()) || PyIndex_Check(v.ptr()) ||
                       (Py_TYPE(v.ptr())->tp_as_number != nullptr && Py_TYPE(v.ptr())->tp_as_number->nb_float != nullptr);
  if (is_bool(v) || PyUnicode_Check(v.ptr()) || PyBytes_Check(v.ptr()) || !numeric) wrong_type(key, "a number", v);
  const double x = PyFloat_AsDouble(v.ptr());
  if (x == -1.0 && PyErr_Occurred()) {
    if (!PyErr_ExceptionMatches(PyExc_OverflowError)) throw py::error_already_set();
    PyErr_Clear();
    return PyObject_RichCompareBool(v.ptr(), py::int_(0).ptr(), Py_LT) == 1 ? -HUGE_VAL : HUGE_VAL;
  }
  return x;
}

// A whole number (int, numpy's integers; not bool) as a Python int.
py::int_ whole_number(const std::string& key, const py::handle& v) {
  if (is_bool(v) || !PyIndex_Check(v.ptr())) wrong_type(key, "int", v);
  PyObject* n = PyNumber_Index(v.ptr());
  if (n == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::int_>(n);
}

// The first whole number given that its field in ea_iid::Options cannot hold: the field got
// `held`, the nearest number it holds (past every range the settings allow), and the call is
// refused by refuse_unheld() before any work.
struct Unheld {
  std::string key, given, held, bounds;
};

template <class T>
T whole(const std::string& key, const py::handle& v, Unheld& unheld) {
  using limits = std::numeric_limits<T>;
  const py::int_ n = whole_number(key, v);
  int overflow = 0;
  const long long x = PyLong_AsLongLongAndOverflow(n.ptr(), &overflow);
  if (x == -1 && PyErr_Occurred()) throw py::error_already_set();
  const auto lo = static_cast<long long>(limits::min()), hi = static_cast<long long>(limits::max());
  if (overflow == 0 && x >= lo && x <= hi) return static_cast<T>(x);
  const T held = overflow > 0 || (overflow == 0 && x > hi) ? limits::max() : limits::min();
  if (unheld.key.empty()) {
    unheld = {key, py::repr(n).cast<std::string>(), std::to_string(held), std::to_string(limits::min()) + " to " + std::to_string(limits::max())};
  }
  return held;
}

// A number whose whole range is the setting's (seed), or that the library takes as it is
// (jobs): one outside the type is refused here.
template <class T>
T whole_in_type(const std::string& key, const py::handle& v) {
  Unheld unheld;
  const T x = whole<T>(key, v, unheld);
  if (!unheld.key.empty()) raise_error("usage", key + ": " + unheld.given + " is out of range (" + unheld.bounds + ")");
  return x;
}

template <>
uint64_t whole_in_type<uint64_t>(const std::string& key, const py::handle& v) {
  const py::int_ n = whole_number(key, v);
  const unsigned long long x = PyLong_AsUnsignedLongLong(n.ptr());
  if (x == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    if (!PyErr_ExceptionMatches(PyExc_OverflowError)) throw py::error_already_set();
    PyErr_Clear();
    raise_error("usage", key + ": " + py::repr(n).cast<std::string>() + " is out of range (0 to " +
                             std::to_string(std::numeric_limits<uint64_t>::max()) + ")");
  }
  return x;
}

std::vector<int> whole_list(const std::string& key, const py::handle& v, Unheld& unheld) {
  if (PyUnicode_Check(v.ptr()) || PyBytes_Check(v.ptr()) || PyIndex_Check(v.ptr()) || !py::isinstance<py::iterable>(v)) {
    wrong_type(key, "a list of int", v);
  }
  std::vector<int> out;
  for (const py::handle x : v) {
    if (is_bool(x) || !PyIndex_Check(x.ptr())) wrong_type(key + "[" + std::to_string(out.size()) + "]", "int", x);
    out.push_back(whole<int>(key, x, unheld));
  }
  return out;
}

// Edit distance (insert, delete, substitute), for the nearest keyword to a typo.
size_t distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// Refuses a keyword that is not in `valid` (a TypeError, as Python's own), naming the nearest
// valid one (case and '-' for '_' aside) or, when none is near, every one.
void check_keyword(const std::string& key, const std::vector<std::string>& valid) {
  if (std::find(valid.begin(), valid.end(), key) != valid.end()) return;
  std::string folded = key;
  for (char& c : folded) c = c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string nearest;
  size_t best = 3;  // at most two edits, and fewer than the keyword's length
  for (const std::string& v : valid) {
    const size_t d = distance(folded, v);
    if (d < best && d < key.size()) best = d, nearest = v;
  }
  if (!nearest.empty()) throw py::type_error("unknown keyword '" + key + "'; did you mean '" + nearest + "'?");
  std::string all;
  for (const std::string& v : valid) all += (all.empty() ? "" : ", ") + v;
  throw py::type_error("unknown keyword '" + key + "'; expected one of: " + all);
}

// The keywords of each call (the named ones, then the options).
const std::vector<std::string> kAssessKeywords = {"bits", "seed", "device", "track", "prng", "shuffle", "iterations", "conditioned",
                                                  "truncate_bitstring", "early_exit", "all_tests", "until_decided",
                                                  "gpus", "threads", "restart", "sample_format", "select_bits", "bin",
                                                  "label"};

std::vector<std::string> keywords_without(const std::string& gone, const std::string& added = "") {
  std::vector<std::string> out;
  if (!added.empty()) out.push_back(added);
  for (const std::string& k : kAssessKeywords) {
    if (k != gone) out.push_back(k);
  }
  return out;
}

// Sets the option `key` of `o` from `value` (check_keyword() first).
void set_option(ea_iid::Options& o, const std::string& key, const py::handle& value, Unheld& unheld) {
  if (key == "track") o.track = text(key, value);
  else if (key == "prng") o.prng = text(key, value);
  else if (key == "shuffle") o.shuffle = text(key, value);
  else if (key == "iterations") o.iterations = whole<uint32_t>(key, value, unheld);
  else if (key == "conditioned") o.conditioned = flag(key, value);
  else if (key == "truncate_bitstring") o.truncate_bitstring = flag(key, value);
  else if (key == "early_exit") o.early_exit = flag(key, value);
  else if (key == "all_tests") o.all_tests = flag(key, value);
  else if (key == "until_decided") o.until_decided = flag(key, value);
  else if (key == "gpus") o.gpus = whole_list(key, value, unheld);
  else if (key == "threads") o.threads = whole<int>(key, value, unheld);
  else if (key == "restart") o.restart = number(key, value);
  else if (key == "sample_format") o.sample_format = text(key, value);
  else if (key == "select_bits") o.select_bits = text(key, value);
  else if (key == "bin") o.bin = whole<int>(key, value, unheld);
}

// A number given that its field could not hold: refused with the library's message for the
// field's nearest number (the command line's words and range), naming the number given; the
// type's range where the library would take that number (no settings rule narrows it).
[[noreturn]] void refuse_unheld(const Unheld& u, const std::function<void()>& check) {
  std::string kind = "usage", message = u.key + ": " + u.given + " is out of range" + (u.bounds.empty() ? "" : " (" + u.bounds + ")");
  {
    std::unique_lock<std::mutex> lock = lock_run();
    py::gil_scoped_release release;
    try {
      check();  // the settings checked, refused before any work
    } catch (const ea_iid::Error& e) {
      kind = e.kind();
      message = e.what();
      const std::string held = u.key + ": " + u.held;
      const size_t at = message.find(held);
      if (kind == "usage" && at != std::string::npos) message.replace(at, held.size(), u.key + ": " + u.given);
    }
  }
  raise_error(kind, message);
}

// The call's Options: `valid` its keywords (the named ones bits, seed, device taken as objects
// here too, so that each is checked and named alike).
// A keyword given: present and not None (None is the default, for every keyword).
bool given(const py::kwargs& kw, const char* key) { return kw.contains(key) && !kw[key].is_none(); }

ea_iid::Options options_of(const py::object& bits, const py::object& seed, const py::object& device, const py::kwargs& kw,
                           const std::vector<std::string>& valid) {
  ea_iid::Options o;
  o.command_line = "ea_iid (Python module)";
  Unheld unheld;
  for (const auto& [key_obj, value] : kw) check_keyword(py::str(key_obj), valid);
  if (!bits.is_none()) o.bits = whole<int>("bits", bits, unheld);
  if (!seed.is_none()) o.seed = whole_in_type<uint64_t>("seed", seed);
  if (!device.is_none()) o.device = text("device", device);
  for (const auto& [key_obj, value] : kw) {
    if (!value.is_none()) set_option(o, py::str(key_obj), value, unheld);  // None: the default, as bits=None
  }
  if (!unheld.key.empty()) {
    refuse_unheld(unheld, [&] { assessor().assess_many({}, o, 1, [](size_t, const ea_iid::Result&) {}); });  // (no input)
  }
  // What the call gave, as the command line knows its flags: iterations=10000 with
  // track="non-iid", or bits=0, is refused as --iterations 10000 or --bits 0 is.
  if (!bits.is_none()) o.given.push_back("bits");
  for (const auto& [key_obj, value] : kw) {
    if (!value.is_none()) o.given.push_back(py::str(key_obj));
  }
  if (o.given.empty()) o.given.push_back("none");  // (empty would mean: those that differ from their defaults)
  return o;
}

// Runs `work` on a thread of its own with the GIL released, checking for Ctrl-C (and other
// signals) every 100 ms: a pending signal cancels the run, waits for it and raises.
template <class F>
auto without_gil(F work) -> decltype(work()) {
  std::future<decltype(work())> done;
  std::unique_lock<std::mutex> lock = lock_run();
  {
    py::gil_scoped_release release;
    done = std::async(std::launch::async, work);
    while (done.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready) {
      py::gil_scoped_acquire acquire;
      if (PyErr_CheckSignals() != 0) {
        py::error_already_set pending;  // the KeyboardInterrupt
        {
          // The call is ours (the run lock is held): cancelled until it returns, so that a
          // cancel before its run began is not lost.
          py::gil_scoped_release again;
          while (done.wait_for(std::chrono::milliseconds(20)) != std::future_status::ready) assessor().cancel();
        }
        try {
          (void)done.get();
        } catch (...) {
        }
        throw pending;
      }
    }
  }
  try {
    return done.get();
  } catch (const ea_iid::Error& e) {
    raise_error(e);
  }
}

// bytes, bytearray, memoryview or a numpy uint8 array (any object with a buffer of bytes);
// or a path (str, os.PathLike: its __fspath__ may give str or bytes).
bool is_path(const py::object& x) {
  return py::isinstance<py::str>(x) || py::hasattr(x, "__fspath__");
}

// The path's bytes as os.fsencode gives them: a str in the filesystem encoding with its
// surrogate escapes (os.fsdecode of a name that is not UTF-8) back to the bytes they stand for.
std::string path_of(const py::object& x) {
  return py::module_::import("os").attr("fsencode")(x).cast<std::string>();
}

// A buffer of samples: bytes (any one-byte items, as numpy uint8), or a numpy uint16 or
// uint32 array (values wider than a byte) in either byte order.
struct Samples {
  py::buffer_info info;
  bool big_endian = false;  // items of 2 or 4 bytes: their byte order
};

Samples samples_of(const py::object& x, const std::string& name) {
  if (!PyObject_CheckBuffer(x.ptr())) {
    throw py::type_error(name + ": expected bytes, bytearray, a numpy uint8, uint16 or uint32 array or a path, got " +
                         type_name(x));
  }
  py::buffer b = py::reinterpret_borrow<py::buffer>(x);
  Samples out{b.request()};
  const py::buffer_info& info = out.info;
  const ssize_t n = info.itemsize;
  if (info.ndim != 1 || (n != 1 && n != 2 && n != 4) || info.strides[0] != n) {
    throw py::type_error(name + ": a contiguous one-dimensional buffer of bytes (numpy uint8), or a numpy uint16 or "
                                "uint32 array, is needed");
  }
  std::string format = info.format;
  if (n == 1) {  // uint8, bytes, char; numpy bool (0 and 1: binary samples); never int8 (-1 is not 255)
    if (format.find('b') != std::string::npos) {
      throw py::type_error(name + ": items of 1 byte must be unsigned (numpy uint8 or bool), got format '" + info.format +
                           "' (signed): convert with .view(numpy.uint8) if the bytes are meant");
    }
    return out;
  }
  const char order = format.empty() ? '@' : format[0];
  if (order == '@' || order == '=' || order == '<' || order == '>' || order == '!') format.erase(0, 1);
  if (format != (n == 2 ? "H" : "I") && !(n == 4 && format == "L")) {
    throw py::type_error(name + ": items of " + std::to_string(n) + " bytes must be unsigned (numpy uint" +
                         std::to_string(8 * n) + "), got format '" + info.format + "'");
  }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  out.big_endian = order != '<';
#else
  out.big_endian = order == '>' || order == '!';
#endif
  return out;
}

// The sample format an array's items are: "u16le", "u32be", ...
std::string format_of(const Samples& s) {
  return std::string(s.info.itemsize == 2 ? "u16" : "u32") + (s.big_endian ? "be" : "le");
}

// The array's values (as numbers, whatever their byte order).
std::vector<uint32_t> values_of(const Samples& s) {
  const auto* p = static_cast<const uint8_t*>(s.info.ptr);
  const size_t bytes = static_cast<size_t>(s.info.itemsize);
  std::vector<uint32_t> v(static_cast<size_t>(s.info.size));
  for (size_t i = 0; i < v.size(); ++i, p += bytes) {
    uint32_t x = 0;
    for (size_t b = 0; b < bytes; ++b) x = (x << 8) | p[s.big_endian ? b : bytes - 1 - b];
    v[i] = x;
  }
  return v;
}

// An array wider than a byte is recorded in its own format (its dtype's width and byte order)
// unless the caller gave sample_format, whose width must then be the items'.
void set_values_format(ea_iid::Options& o, const Samples& s, bool given, const std::string& name) {
  if (!given) {
    o.sample_format = format_of(s);
    return;
  }
  const std::string width = s.info.itemsize == 2 ? "u16" : "u32";
  if (o.sample_format == width + "le" || o.sample_format == width + "be") return;
  raise_error("usage", "sample_format: \"" + o.sample_format + "\" does not match " + name + ", an array of " +
                           std::to_string(s.info.itemsize) + "-byte items (numpy uint" + std::to_string(8 * s.info.itemsize) +
                           "): give " + width + "le or " + width + "be (the layout the record's SHA-256 is of), or leave "
                           "sample_format out to take the array's own (" + format_of(s) + ")");
}

py::object assess(const py::object& samples, const py::object& bits, const py::object& seed, const py::object& device,
                  const py::kwargs& kw, const std::vector<std::string>& valid, std::optional<double> h_i = std::nullopt) {
  ea_iid::Options o = options_of(bits, seed, device, kw, valid);
  if (h_i) o.restart = h_i;
  const std::string label = given(kw, "label") ? text("label", kw["label"]) : "samples";
  if (given(kw, "label") && label.empty()) raise_error("usage", "label: an empty name; give the samples a name, or leave label out");
  ea_iid::Result r;
  if (is_path(samples)) {
    if (given(kw, "label")) {
      raise_error("usage", "label names samples in memory; a path is its own name (the record's filename): leave label out");
    }
    const std::string path = path_of(samples);
    r = without_gil([&] { return assessor().assess_file(path, o); });
  } else {
    const Samples b = samples_of(samples, "samples");  // the caller's buffer, read while the call lasts
    if (b.info.itemsize == 1) {
      const auto* data = static_cast<const uint8_t*>(b.info.ptr);
      const size_t n = static_cast<size_t>(b.info.size);
      r = without_gil([&] { return assessor().assess(data, n, o, label); });
    } else {
      set_values_format(o, b, given(kw, "sample_format"), "samples");
      const std::vector<uint32_t> values = values_of(b);
      r = without_gil([&] { return assessor().assess_values(values.data(), values.size(), o, label); });
    }
  }
  return loads(r.json);
}

// assess_many: the results as an iterator, each as its item finishes (in input order).
class Many {
 public:
  Many(std::vector<ea_iid::Input> inputs, ea_iid::Options o, int jobs) {
    worker_ = std::thread([this, inputs = std::move(inputs), o, jobs]() mutable {
      try {
        std::lock_guard<std::mutex> run_lock(run_mutex());
        if (!abandoned_) {
          running_ = true;
          assessor().assess_many(std::move(inputs), o, jobs, [this](size_t, const ea_iid::Result& r) {
            std::lock_guard<std::mutex> lock(m_);
            queue_.push_back(r.json);
            cv_.notify_one();
          });
        }
      } catch (const ea_iid::Error& e) {
        std::lock_guard<std::mutex> lock(m_);
        error_ = std::make_unique<ea_iid::Error>(e);
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(m_);
        error_ = std::make_unique<ea_iid::Error>("internal", e.what());
      } catch (...) {
        std::lock_guard<std::mutex> lock(m_);
        error_ = std::make_unique<ea_iid::Error>("internal", "unknown error");
      }
      std::lock_guard<std::mutex> lock(m_);
      finished_ = true;
      cv_.notify_one();
    });
  }
  // Dropped before its end: its batch (only: it holds the run lock while it runs) is
  // cancelled until it returns, or never starts.
  ~Many() {
    if (!worker_.joinable()) return;
    abandoned_ = true;
    py::gil_scoped_release release;
    while (true) {
      {
        std::lock_guard<std::mutex> lock(m_);
        if (finished_) break;
      }
      if (running_) assessor().cancel();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    worker_.join();
  }
  py::object next() {
    std::string json;
    while (true) {
      {
        py::gil_scoped_release release;
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait_for(lock, std::chrono::milliseconds(100), [this] { return !queue_.empty() || finished_; });
        if (!queue_.empty()) {
          json = std::move(queue_.front());
          queue_.pop_front();
        } else if (finished_) {
          lock.unlock();
          if (worker_.joinable()) worker_.join();
          if (error_) {
            const ea_iid::Error e = *error_;
            error_.reset();
            py::gil_scoped_acquire acquire;
            raise_error(e);
          }
          py::gil_scoped_acquire acquire;
          throw py::stop_iteration();
        }
      }
      if (!json.empty()) return loads(json);
      if (PyErr_CheckSignals() != 0) {
        assessor().cancel();
        throw py::error_already_set();
      }
    }
  }

 private:
  std::thread worker_;
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  bool finished_ = false;
  std::unique_ptr<ea_iid::Error> error_;
  std::atomic<bool> abandoned_{false}, running_{false};
};

// assess_many's inputs. Arrays wider than a byte take one sample_format for the batch: the
// one given (each array's width must be its), or their own when all are of one format and
// nothing else (a file, bytes: read in that format too) is in the batch.
std::vector<ea_iid::Input> inputs_of(const py::iterable& items, ea_iid::Options& o, bool format_given) {
  std::vector<ea_iid::Input> inputs;
  std::string own;  // the arrays' own format, when not given
  bool others = false;
  for (const py::handle h : items) {
    const py::object x = py::reinterpret_borrow<py::object>(h);
    const std::string name = "items[" + std::to_string(inputs.size()) + "]";
    ea_iid::Input in;
    in.label = "samples[" + std::to_string(inputs.size()) + "]";
    if (is_path(x)) {
      in.path = path_of(x);
      others = true;
    } else if (const Samples b = samples_of(x, name); b.info.itemsize == 1) {
      const auto* data = static_cast<const uint8_t*>(b.info.ptr);
      in.samples.assign(data, data + b.info.size);  // kept until the run reaches it
      others = true;
    } else {
      if (format_given) set_values_format(o, b, true, name);
      if (!format_given && !own.empty() && format_of(b) != own) {
        raise_error("usage", name + ": an array of " + format_of(b) + " samples beside arrays of " + own +
                                 ": one sample format for every item: give arrays of one dtype, or sample_format (each array's width)");
      }
      if (!format_given) own = format_of(b);
      in.values = values_of(b);
    }
    inputs.push_back(std::move(in));
  }
  if (!own.empty() && others) {
    raise_error("usage", "items: arrays of " + own + " samples beside files or bytes: give sample_format, the format "
                         "every item is read in");
  }
  if (!own.empty()) o.sample_format = own;
  return inputs;
}

std::unique_ptr<Many> assess_many(const py::iterable& items, const py::object& jobs, const py::object& bits,
                                  const py::object& seed, const py::object& device, const py::kwargs& kw) {
  static const std::vector<std::string> valid = keywords_without("label", "jobs");  // items in memory: samples[k]
  // One item where a batch is asked for: a path, or one buffer of samples (bytes, bytearray, a
  // one-dimensional array of numbers); an array of paths (dtype object) or a 2-D array's rows are items.
  bool one_buffer = false;
  if (PyObject_CheckBuffer(items.ptr())) {
    const py::buffer_info info = py::reinterpret_borrow<py::buffer>(items).request();
    one_buffer = info.ndim == 1 && info.format != "O" && (info.itemsize == 1 || info.itemsize == 2 || info.itemsize == 4);
  }
  if (is_path(items) || one_buffer) {
    throw py::type_error("items: expected an iterable of items (paths, bytes, arrays), got one " + type_name(items) +
                         ": give a list of it, [item], or call assess()");
  }
  ea_iid::Options o = options_of(bits, seed, device, kw, valid);
  const int j = jobs.is_none() ? 1 : whole_in_type<int>("jobs", jobs);
  std::vector<ea_iid::Input> inputs = inputs_of(items, o, given(kw, "sample_format"));
  return std::make_unique<Many>(std::move(inputs), o, j);
}

// assess_manifest: every source of a manifest, as `ea_iid source --manifest --jsonl` rows.
py::list assess_manifest(const py::object& manifest, const py::object& jobs, const py::object& bits,
                         const py::object& seed, const py::object& device, const py::kwargs& kw) {
  static const std::vector<std::string> valid = keywords_without("label", "jobs");
  const ea_iid::Options o = options_of(bits, seed, device, kw, valid);
  const int j = jobs.is_none() ? 1 : whole_in_type<int>("jobs", jobs);
  if (!is_path(manifest)) throw py::type_error("manifest: expected a path (str, os.PathLike), got " + type_name(manifest));
  const std::string path = path_of(manifest);
  const std::vector<ea_iid::SourceResult> results = without_gil([&] { return assessor().assess_manifest(path, o, j); });
  py::list rows;
  for (const ea_iid::SourceResult& r : results) rows.append(loads(r.json));
  return rows;
}

// health_tests' keywords, each as the command line's flag of that name.
const std::vector<std::string> kHealthKeywords = {"alpha", "bits", "simulate", "seed", "device", "gpus", "threads",
                                                  "sample_format", "select_bits", "bin"};

// simulate: a whole number of samples, also a float such as 1e9; one outside uint64_t, or a
// negative one, holds the nearest (refused by the library's range: refuse_unheld).
uint64_t simulate_of(const py::handle& v, Unheld& unheld) {
  const auto held = [&](uint64_t h) {
    if (unheld.key.empty()) unheld = {"simulate", py::repr(v).cast<std::string>(), std::to_string(h), ""};
    return h;
  };
  if (PyFloat_Check(v.ptr())) {
    const double x = number("simulate", v);
    if (x != std::floor(x)) raise_error("usage", "simulate: " + py::repr(v).cast<std::string>() + " is not a whole number of samples");
    if (x < 0) return held(0);
    if (x >= 0x1p64) return held(UINT64_MAX);
    return static_cast<uint64_t>(x);
  }
  const py::int_ n = whole_number("simulate", v);
  if (PyObject_RichCompareBool(n.ptr(), py::int_(0).ptr(), Py_LT) == 1) return held(0);
  const unsigned long long x = PyLong_AsUnsignedLongLong(n.ptr());
  if (x == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    if (!PyErr_ExceptionMatches(PyExc_OverflowError)) throw py::error_already_set();
    PyErr_Clear();
    return held(UINT64_MAX);
  }
  return x;
}


void set_health_option(ea_iid::HealthOptions& o, const std::string& key, const py::handle& v, Unheld& unheld) {
  if (key == "alpha") o.alpha = PyUnicode_Check(v.ptr()) ? text(key, v) : py::repr(py::float_(number(key, v))).cast<std::string>();
  else if (key == "bits") o.bits = whole<int>(key, v, unheld);
  else if (key == "simulate") o.simulate = simulate_of(v, unheld);
  else if (key == "seed") o.seed = whole_in_type<uint64_t>(key, v);
  else if (key == "device") o.device = text(key, v);
  else if (key == "gpus") o.gpus = whole_list(key, v, unheld);
  else if (key == "threads") o.threads = whole<int>(key, v, unheld);
  else if (key == "sample_format") o.sample_format = text(key, v);
  else if (key == "select_bits") o.select_bits = text(key, v);
  else if (key == "bin") o.bin = whole<int>(key, v, unheld);
}

// health_tests(h, files=None, **options): the record `ea_iid health-tests H ... -o` writes.
py::object health_tests(const py::object& h, const py::object& files, const py::kwargs& kw) {
  ea_iid::HealthOptions o;
  o.command_line = "ea_iid (Python module)";
  o.h = number("h", h);
  Unheld unheld;
  for (const auto& [key_obj, value] : kw) check_keyword(py::str(key_obj), kHealthKeywords);
  for (const auto& [key_obj, value] : kw) {
    if (value.is_none()) continue;  // None: the default
    set_health_option(o, py::str(key_obj), value, unheld);
    o.given.push_back(py::str(key_obj));
  }
  if (o.given.empty()) o.given.push_back("none");  // (empty would mean: those that differ from their defaults)
  std::vector<std::string> paths;
  if (is_path(files)) {
    paths.push_back(path_of(files));
  } else if (!files.is_none()) {
    if (PyBytes_Check(files.ptr()) || !py::isinstance<py::iterable>(files)) wrong_type("files", "a path or a list of paths", files);
    for (const py::handle f : files) {
      if (!is_path(py::reinterpret_borrow<py::object>(f))) wrong_type("files[" + std::to_string(paths.size()) + "]", "a path (str, os.PathLike)", f);
      paths.push_back(path_of(py::reinterpret_borrow<py::object>(f)));
    }
  }
  if (!unheld.key.empty()) refuse_unheld(unheld, [&] { (void)assessor().health_tests(o, paths); });
  const ea_iid::HealthResult r = without_gil([&] { return assessor().health_tests(o, paths); });
  return loads(r.json);
}

// A number the conditioning reads as text, as NIST's ea_conditioning reads its arguments: a str
// as given, an int in decimal, a float by its shortest repr (0.9 is "0.9", as on the command
// line).
std::string number_text(const std::string& key, const py::handle& v) {
  if (PyUnicode_Check(v.ptr())) return text(key, v);
  if (PyIndex_Check(v.ptr()) && !is_bool(v)) return py::str(whole_number(key, v)).cast<std::string>();
  return py::repr(py::float_(number(key, v))).cast<std::string>();
}

// conditioning(kind, n_in, n_out, nw, h_in, h_prime=None, *, conditioned=None,
// conditioned_iid=False, bits=None): the record `ea_iid conditioning ... -o` writes.
py::object conditioning(const py::object& kind, const py::object& n_in, const py::object& n_out, const py::object& nw,
                        const py::object& h_in, const py::object& h_prime, const py::object& conditioned,
                        const py::object& conditioned_iid, const py::object& bits) {
  ea_iid::ConditioningOptions o;
  o.command_line = "ea_iid (Python module)";
  o.kind = text("kind", kind);
  o.n_in = whole_in_type<int64_t>("n_in", n_in);  // (the library says the range: 1 to 2^24)
  o.n_out = whole_in_type<int64_t>("n_out", n_out);
  o.nw = whole_in_type<int64_t>("nw", nw);
  o.h_in = number_text("h_in", h_in);
  if (!h_prime.is_none()) o.h_prime = number_text("h_prime", h_prime);
  if (!conditioned.is_none()) {
    if (!is_path(conditioned)) wrong_type("conditioned", "a path (str, os.PathLike)", conditioned);
    o.conditioned = path_of(conditioned);
    if (o.conditioned.empty()) raise_error("usage", "conditioned: an empty path");
  }
  o.conditioned_iid = flag("conditioned_iid", conditioned_iid);
  if (!bits.is_none()) o.bits = whole_in_type<int>("bits", bits);
  const ea_iid::ConditioningResult r = without_gil([&] { return assessor().conditioning(o); });
  return loads(r.json);
}

}  // namespace

PYBIND11_MODULE(ea_iid, m) {
  m.doc() = "SP 800-90B entropy assessment (NIST ea_iid / ea_non_iid / ea_restart numbers); results are the "
            "command line's JSON records as dicts (docs/python.md).";
  static py::exception<ea_iid::Error> error(m, "Error");
  g_error = error.ptr();
  // ea_iid.UsageError: a setting refused (error_kind "usage"), so both an ea_iid.Error and a
  // ValueError.
  g_usage_error = PyErr_NewExceptionWithDoc(
      "ea_iid.UsageError", "a setting refused by the command line's rules (error_kind 'usage'); also a ValueError",
      py::make_tuple(py::handle(g_error), py::handle(PyExc_ValueError)).ptr(), nullptr);
  if (g_usage_error == nullptr) throw py::error_already_set();
  m.add_object("UsageError", py::handle(g_usage_error));
  m.def("version", &ea_iid::version, "the library's version, commit and build");
  m.def("list_prngs", [] { return loads(ea_iid::list_prngs_json()); }, "the shuffling generators");
  m.def("assess", [](const py::object& samples, const py::object& bits, const py::object& seed, const py::object& device,
                     const py::kwargs& kw) { return assess(samples, bits, seed, device, kw, kAssessKeywords); },
        py::arg("samples"), py::kw_only(), py::arg("bits") = py::none(), py::arg("seed") = py::none(),
        py::arg("device") = "auto",
        "assess(samples, *, bits=None, seed=None, device='auto', **options) -> dict\n\n"
        "samples: bytes, bytearray, a numpy uint8 array (read in place), a numpy uint16 or uint32 array (samples wider "
        "than a byte, made symbols by select_bits or bin) or a path (str, os.PathLike). options: track, prng, "
        "shuffle, iterations, conditioned, truncate_bitstring, early_exit, all_tests, until_decided, gpus, threads, restart, "
        "sample_format, select_bits, bin, label. Returns the record `ea_iid -o` writes; raises ea_iid.Error (with .error_kind; "
        "ea_iid.UsageError, also a ValueError, for a refused setting) and TypeError for a keyword of the wrong type.");
  m.def(
      "restart",
      [](const py::object& samples, const py::object& h_i, const py::object& bits, const py::object& seed,
         const py::object& device, const py::kwargs& kw) {
        if (kw.contains("restart")) throw py::type_error("restart(): h_i is the claim; no restart= option");
        static const std::vector<std::string> valid = keywords_without("restart");
        return assess(samples, bits, seed, device, kw, valid, number("h_i", h_i));
      },
      py::arg("samples"), py::arg("h_i"), py::kw_only(), py::arg("bits") = py::none(), py::arg("seed") = py::none(),
      py::arg("device") = "auto",
      "restart(samples, h_i, *, ...) -> dict: the restart tests (SP 800-90B 3.1.4) of 1000 x 1000 samples (row i = "
      "restart i) for the entropy claim h_i; track='iid' makes an IID claim (NIST ea_restart -i), the default a non-IID "
      "claim (-n). The record ea_iid --restart H_I -o writes.");
  m.def("assess_manifest", &assess_manifest, py::arg("manifest"), py::kw_only(), py::arg("jobs") = 1,
        py::arg("bits") = py::none(), py::arg("seed") = py::none(), py::arg("device") = "auto",
        "assess_manifest(manifest, *, jobs=1, seed=None, device='auto', **options) -> list of dicts\n\n"
        "Every source of a manifest (docs/manifest.md) through the flow of `ea_iid source`, `jobs` sources at once: "
        "one dict per source, in manifest order, each the line `ea_iid source --manifest --jsonl` writes (its record "
        "and \"run\"); a source that cannot be assessed is its error row (errorLevel -1). options: prng, shuffle, iterations, "
        "until_decided, gpus, threads; track, bits, restart, sample_format, select_bits and bin are the manifest's "
        "(iidClaim, bitsPerSample, restartTestPath, sampleFormat, selectBits, binBits) and raise ea_iid.UsageError, as "
        "a manifest that is not valid does.");
  m.def("health_tests", &health_tests, py::arg("h"), py::arg("files") = py::none(),
        "health_tests(h, files=None, *, alpha='2^-20', bits=None, simulate=None, seed=None, device=None, gpus=None, "
        "threads=None, sample_format=None, select_bits=None, bin=None) -> dict\n\n"
        "The Repetition Count Test's and the Adaptive Proportion Test's cutoffs (SP 800-90B 4.4) for a claimed "
        "min-entropy h per sample, both tests run over the samples of files (a path or a list of paths), and with "
        "simulate=N (at least 1e9 for a check) their Monte Carlo check: the record `ea_iid health-tests H -o` writes "
        "(type HealthTests). seed, device and gpus apply to simulate; sample_format, select_bits and bin to files. "
        "Raises ea_iid.UsageError for a refused setting and ea_iid.Error for a file that cannot be read.");
  m.def("conditioning", &conditioning, py::arg("kind"), py::arg("n_in"), py::arg("n_out"), py::arg("nw"), py::arg("h_in"),
        py::arg("h_prime") = py::none(), py::kw_only(), py::arg("conditioned") = py::none(),
        py::arg("conditioned_iid") = false, py::arg("bits") = py::none(),
        "conditioning(kind, n_in, n_out, nw, h_in, h_prime=None, *, conditioned=None, conditioned_iid=False, "
        "bits=None) -> dict\n\n"
        "A conditioning component's output entropy (SP 800-90B 3.1.5) as NIST ea_conditioning 1.1.8 computes it: "
        "kind 'vetted' or 'non-vetted'; n_in input bits per output, n_out output bits, nw the narrowest internal "
        "width, h_in the entropy of the n_in bits; a non-vetted component's h' (entropy per output bit) as h_prime, "
        "or from conditioned, a file of its conditioned output (its non-IID bitstring estimates; conditioned_iid: its "
        "MCV estimate alone; bits: its bits per sample). Numbers are read as the command line reads them (0.9 as "
        "\"0.9\"). Returns the record `ea_iid conditioning -o` writes (type Conditioning); raises "
        "ea_iid.UsageError for a refused setting and ea_iid.Error for a file that cannot be read.");
  m.def(
      "cancel", [] { assessor().cancel(); },
      "cancel() -> None: from another thread, stops the call in progress (assess, restart, assess_many's batch, "
      "assess_manifest, health_tests, conditioning), which raises ea_iid.Error with error_kind 'interrupted' and returns no "
      "result; a call that has not begun is not affected");
  py::class_<Many>(m, "AssessMany")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", &Many::next);
  m.def("assess_many", &assess_many, py::arg("items"), py::kw_only(), py::arg("jobs") = 1, py::arg("bits") = py::none(),
        py::arg("seed") = py::none(), py::arg("device") = "auto",
        "assess_many(items, *, jobs=1, ...) -> iterator of dicts, in the items' order, each as soon as it is done; an "
        "item's error is its record (errorLevel, errorKind)");
}
