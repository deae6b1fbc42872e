#include "messages.hpp"

namespace ea::cli {

std::string worded(const std::string& message, Remedy remedy) {
  switch (remedy) {
    case Remedy::AllowStream:
      return message + "; pass --allow-stream to read it to its end (add -l INDEX,COUNT to read only that much)";
    case Remedy::SplitInput: return message + "; assess it in parts with -l INDEX,COUNT or --blocks COUNT";
    case Remedy::StreamRange: return message + "; save the samples to a file, or read a part with -l INDEX,COUNT";
    case Remedy::MapSamples:
      return message + "; make samples symbols with --select-bits MASK (or auto, the search for the best mask) or --bin B";
    case Remedy::KeepShort: return message + "; --keep-short assesses it";
    case Remedy::MixedWidths: return message + "; give --bits, or test them apart";
    default: return message;
  }
}

}  // namespace ea::cli
