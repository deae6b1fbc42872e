// ea_calibrate: the same command as `ea_iid calibrate` (cli/calibrate.cpp).
#include <csignal>
#include <cstdio>
#include <exception>

#include "commands.hpp"

int main(int argc, char** argv) {
  using namespace ea;
  // A reader that went away (`| head -1`): a failed write (exit 2), as in ea_iid, not death by SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  try {
    return cli::exit_status(cli::calibrate_command(argc, argv), cli::ExitPolicy{true, false}, 0);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ea_calibrate: %s\n", e.what());
    return cli::exit_status(cli::Outcome::error(), {}, 0);
  }
}
