#include "logging.hpp"

#include <spdlog/sinks/stdout_sinks.h>

#include "common/error.hpp"

namespace ea::cli {

namespace {
std::shared_ptr<spdlog::logger>& instance() {
  static std::shared_ptr<spdlog::logger> l;
  return l;
}
std::string& program() {
  static std::string name = "ea_iid";
  return name;
}
}  // namespace

const std::string& program_name() { return program(); }

void set_program_name(const std::string& name) {
  program() = name;
  if (instance()) instance() = std::make_shared<spdlog::logger>(name, instance()->sinks().begin(), instance()->sinks().end());
}

void init_logging(const std::string& level) {
  auto& l = instance();
  if (!l) {
    l = std::make_shared<spdlog::logger>(program(), std::make_shared<spdlog::sinks::stderr_sink_mt>());
    l->set_pattern("%n: %l: %v");
    l->flush_on(spdlog::level::trace);
  }
  const std::string name = level == "warn" ? "warning" : level;
  const auto lvl = spdlog::level::from_str(name);
  if (lvl == spdlog::level::off && name != "off") {
    throw Error(ErrorKind::Usage, "--log-level: unknown level '" + level +
                                      "' (trace, debug, info, warning, error, critical, off)");
  }
  l->set_level(lvl);
}

spdlog::logger& logger() {
  if (!instance()) init_logging("info");
  return *instance();
}

}  // namespace ea::cli
