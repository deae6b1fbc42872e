// The Python module `ea_iid` (pybind11) over the C++ API: assess(), assess_many(),
// list_prngs(), version(); results are the command line's JSON records as dicts
// (docs/python.md). The GIL is released while an assessment runs; Ctrl-C cancels it.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>
#include <optional>
#include <thread>

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

PyObject* g_error = nullptr;  // ea_iid.Error

[[noreturn]] void raise_error(const ea_iid::Error& e) {
  py::object type = py::reinterpret_borrow<py::object>(g_error);
  py::object value = type(e.what());
  value.attr("error_kind") = e.kind();
  PyErr_SetObject(g_error, value.ptr());
  throw py::error_already_set();
}

py::object loads(const std::string& json) { return py::module_::import("json").attr("loads")(json); }

ea_iid::Options options_of(const py::object& bits, const py::object& seed, const std::string& device, const py::kwargs& kw) {
  ea_iid::Options o;
  o.command_line = "ea_iid (Python module)";
  if (!bits.is_none()) o.bits = bits.cast<int>();
  if (!seed.is_none()) o.seed = seed.cast<uint64_t>();
  o.device = device;
  for (const auto& [key_obj, value] : kw) {
    const std::string key = py::str(key_obj);
    if (key == "track") o.track = value.cast<std::string>();
    else if (key == "prng") o.prng = value.cast<std::string>();
    else if (key == "iterations") o.iterations = value.cast<uint32_t>();
    else if (key == "conditioned") o.conditioned = value.cast<bool>();
    else if (key == "truncate_bitstring") o.truncate_bitstring = value.cast<bool>();
    else if (key == "early_exit") o.early_exit = value.cast<bool>();
    else if (key == "all_tests") o.all_tests = value.cast<bool>();
    else if (key == "until_decided") o.until_decided = value.cast<bool>();
    else if (key == "gpus") o.gpus = value.cast<std::vector<int>>();
    else if (key == "threads") o.threads = value.cast<int>();
    else if (key == "restart") o.restart = value.cast<double>();
    else if (key != "label") {
      throw py::type_error("unexpected option '" + key + "' (track, prng, iterations, conditioned, truncate_bitstring, "
                           "early_exit, all_tests, until_decided, gpus, threads, restart, label)");
    }
  }
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
// or a path (str, os.PathLike).
bool is_path(const py::object& x) {
  return py::isinstance<py::str>(x) || py::hasattr(x, "__fspath__");
}

std::string path_of(const py::object& x) {
  return py::str(py::module_::import("os").attr("fspath")(x)).cast<std::string>();
}

py::buffer_info bytes_of(const py::object& x) {
  py::buffer b = py::reinterpret_borrow<py::buffer>(x);
  py::buffer_info info = b.request();
  if (info.itemsize != 1 || info.ndim != 1 || (info.ndim == 1 && info.strides[0] != 1)) {
    throw py::type_error("samples: a contiguous one-dimensional buffer of bytes (numpy uint8) is needed");
  }
  return info;
}

py::object assess(const py::object& samples, const py::object& bits, const py::object& seed, const std::string& device,
                  const py::kwargs& kw, std::optional<double> restart = std::nullopt) {
  ea_iid::Options o = options_of(bits, seed, device, kw);
  if (restart) o.restart = restart;
  const std::string label = kw.contains("label") ? kw["label"].cast<std::string>() : "samples";
  ea_iid::Result r;
  if (is_path(samples)) {
    const std::string path = path_of(samples);
    r = without_gil([&] { return assessor().assess_file(path, o); });
  } else {
    if (!PyObject_CheckBuffer(samples.ptr())) {
      throw py::type_error("samples: bytes, bytearray, a numpy uint8 array or a path");
    }
    const py::buffer_info info = bytes_of(samples);  // the caller's buffer, read while the call lasts
    const auto* data = static_cast<const uint8_t*>(info.ptr);
    const size_t n = static_cast<size_t>(info.size);
    r = without_gil([&] { return assessor().assess(data, n, o, label); });
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

std::unique_ptr<Many> assess_many(const py::iterable& items, int jobs, const py::object& bits, const py::object& seed,
                                  const std::string& device, const py::kwargs& kw) {
  const ea_iid::Options o = options_of(bits, seed, device, kw);
  std::vector<ea_iid::Input> inputs;
  size_t k = 0;
  for (const py::handle h : items) {
    const py::object x = py::reinterpret_borrow<py::object>(h);
    ea_iid::Input in;
    if (is_path(x)) {
      in.path = path_of(x);
    } else {
      const py::buffer_info info = bytes_of(x);
      const auto* data = static_cast<const uint8_t*>(info.ptr);
      in.samples.assign(data, data + info.size);  // kept until the run reaches it
      in.label = "samples[" + std::to_string(k) + "]";
    }
    inputs.push_back(std::move(in));
    ++k;
  }
  return std::make_unique<Many>(std::move(inputs), o, jobs);
}

}  // namespace

PYBIND11_MODULE(ea_iid, m) {
  m.doc() = "SP 800-90B entropy assessment (NIST ea_iid / ea_non_iid / ea_restart numbers); results are the "
            "command line's JSON records as dicts (docs/python.md).";
  static py::exception<ea_iid::Error> error(m, "Error");
  g_error = error.ptr();
  m.def("version", &ea_iid::version, "the library's version, commit and build");
  m.def("list_prngs", [] { return loads(ea_iid::list_prngs_json()); }, "the shuffling generators");
  m.def("assess", [](const py::object& samples, const py::object& bits, const py::object& seed, const std::string& device,
                     const py::kwargs& kw) { return assess(samples, bits, seed, device, kw); },
        py::arg("samples"), py::kw_only(), py::arg("bits") = py::none(), py::arg("seed") = py::none(),
        py::arg("device") = "auto",
        "assess(samples, *, bits=None, seed=None, device='auto', **options) -> dict\n\n"
        "samples: bytes, bytearray, a numpy uint8 array (read in place) or a path. options: track, prng, "
        "iterations, conditioned, truncate_bitstring, early_exit, all_tests, until_decided, gpus, threads, "
        "restart, label. Returns the record `ea_iid -o` writes; raises ea_iid.Error (with .error_kind).");
  m.def(
      "restart",
      [](const py::object& samples, double h_i, const py::object& bits, const py::object& seed, const std::string& device,
         const py::kwargs& kw) {
        if (kw.contains("restart")) throw py::type_error("restart(): h_i is the claim; no restart= option");
        return assess(samples, bits, seed, device, kw, h_i);
      },
      py::arg("samples"), py::arg("h_i"), py::kw_only(), py::arg("bits") = py::none(), py::arg("seed") = py::none(),
      py::arg("device") = "auto",
      "restart(samples, h_i, *, ...) -> dict: the restart tests (SP 800-90B 3.1.4) of 1000 x 1000 samples (row i = "
      "restart i) for the entropy claim h_i; track='iid' makes an IID claim (NIST ea_restart -i), the default a non-IID "
      "claim (-n). The record ea_iid --restart H_I -o writes.");
  py::class_<Many>(m, "AssessMany")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", &Many::next);
  m.def("assess_many", &assess_many, py::arg("items"), py::kw_only(), py::arg("jobs") = 1, py::arg("bits") = py::none(),
        py::arg("seed") = py::none(), py::arg("device") = "auto",
        "assess_many(items, *, jobs=1, ...) -> iterator of dicts, in the items' order, each as soon as it is done; an "
        "item's error is its record (errorLevel, errorKind)");
}
