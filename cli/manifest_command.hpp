// ea_iid source --manifest sources.json [-o DIR/] [--jsonl F] [--html F] [--csv F] [--resume]
// [engine options]: every source of a manifest (pipeline/manifest.hpp) through the flow of
// `ea_iid source` (cli/manifest.cpp; docs/manifest.md).
#pragma once

#include <atomic>
#include <string>
#include <vector>

namespace ea::cli {

// Whether the arguments of `ea_iid source` ask for a manifest (--manifest or --manifest=F).
bool manifest_requested(const std::vector<char*>& args);

// `args`: after the program's name (args[0] "ea_iid source"). `interrupt` and `signal_number`
// as for source_command: an interrupted run stops between sources, keeps the rows written,
// and exits 130/143.
int manifest_command(std::vector<char*> args, const std::string& command_line, const std::atomic<bool>& interrupt,
                     const std::atomic<int>& signal_number);

}  // namespace ea::cli
