// ea_calibrate: the same command as `ea_iid calibrate` (cli/calibrate.cpp).
#include <cstdio>
#include <exception>

#include "commands.hpp"

int main(int argc, char** argv) {
  using namespace ea;
  try {
    return cli::exit_status(cli::calibrate_command(argc, argv), cli::ExitPolicy{true, false}, 0);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ea_calibrate: %s\n", e.what());
    return cli::exit_status(cli::Outcome::error(), {}, 0);
  }
}
