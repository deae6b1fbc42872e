// ea_iid's entry: the process's descriptors and signals, then one table lookup: a NIST-name
// link by the program's name (cli/links.hpp), else a subcommand by the first argument
// (cli/commands.hpp; none: assess). Each runs to its exit status.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <string>
#include <vector>

#include "commands.hpp"
#include "links.hpp"
#include "logging.hpp"
#include "options.hpp"
#include "outcome.hpp"

namespace {

// SIGINT/SIGTERM: the first asks the run to stop between rounds (finished results are
// kept); a second one ends the process at once. No SA_RESTART: a blocking call returns
// EINTR and the run sees the flag.
std::atomic<bool> g_interrupt{false};
std::atomic<int> g_signal{0};

extern "C" void on_signal(int sig) {
  if (g_interrupt.load()) _exit(128 + sig);
  g_signal.store(sig);  // before the flag, so that whoever sees the flag sees the signal
  g_interrupt.store(true);
}

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

// Descriptors 0-2 closed at start (cron, some CI wrappers: `2>&-`) would be taken by the
// first files opened, and diagnostics would go into a JSONL file: they are opened on
// /dev/null first. SIGPIPE (a reader that went away) makes a write fail (exit 2) instead of
// ending the process with 141.
void standard_descriptors() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
      const int got = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
      if (got != fd && got >= 0) ::close(got);
    }
  }
  std::signal(SIGPIPE, SIG_IGN);
}

// A link's ea_iid command line, run as ea_iid's assess with the link's program name.
int assess_strings(const std::vector<std::string>& given, const ea::cli::CommandEnv& env, const char* program) {
  std::vector<std::string> words = given;
  std::vector<char*> args = {const_cast<char*>(program)};
  for (std::string& w : words) args.push_back(w.data());
  return ea::cli::assess_main(args, env);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ea;
  standard_descriptors();
  cli::CommandEnv env;
  env.command_line = cli::join_command_line(argc, argv);
  env.interrupt = &g_interrupt;
  env.signal_number = &g_signal;
  env.install_signal_handlers = install_signal_handlers;
  std::vector<char*> args(argv, argv + argc);
  const char* slash = std::strrchr(argv[0], '/');
  const char* program = slash ? slash + 1 : argv[0];
  if (const cli::NistLink* link = cli::find_link(program)) {
    cli::LinkEnv le;
    le.command_line = env.command_line;
    le.interrupt = &g_interrupt;
    le.signal_number = &g_signal;
    le.install_signal_handlers = install_signal_handlers;
    le.assess = [&](const std::vector<std::string>& words) { return assess_strings(words, env, argv[0]); };
    return cli::run_link(*link, std::vector<std::string>(argv, argv + argc), le);
  }
  if (argc > 1 && std::strcmp(argv[1], "--conditioning") == 0) {  // the subcommand as an option
    static char name[] = "conditioning";
    args[1] = name;
  }
  const cli::Subcommand* sub = args.size() > 1 ? cli::find_subcommand(args[1]) : nullptr;
  if (!sub && argc > 2) {
    // A mistyped subcommand ("mrege") would be read as a missing sample file.
    struct stat st {};
    const cli::Subcommand* near = cli::near_subcommand(argv[1]);
    if (near && ::stat(argv[1], &st) != 0) {
      cli::logger().error("'{}' is neither a file nor a subcommand; did you mean '{} {}'?", argv[1], argv[0], near->name);
      return cli::exit_status(cli::Outcome::error(), {}, 0);
    }
  }
  if (!sub) return cli::assess_main(args, env);
  // The subcommand's own arguments follow its name: "ea_iid merge" is their program.
  static std::string name = std::string(argv[0]) + " " + sub->name;
  args.erase(args.begin() + 1);
  args[0] = name.data();
  return sub->run(args, env);
}
