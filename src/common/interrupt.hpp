// The caller's cancel flag, as every long computation of the library takes it: a
// `const std::atomic<bool>*` (nullptr: never cancelled), the same flag as Hooks::interrupt
// and LoadOptions::interrupt. The library never reads signals: cli/ and python/ set the
// flag from their handlers, the engine copies it to its workers. A cancelled computation
// throws Error{Interrupted} and never returns a number.
#pragma once

#include <atomic>
#include <cstddef>

#include "common/error.hpp"

namespace ea {

// The flag as a parameter.
using Interrupt = const std::atomic<bool>*;

// Long loops look at the flag once in this many steps (a relaxed load, outside any
// vectorized inner loop).
constexpr size_t kInterruptStride = size_t{1} << 16;

inline bool interrupt_requested(Interrupt flag) {
  return flag != nullptr && flag->load(std::memory_order_relaxed);
}

inline void throw_if_interrupted(Interrupt flag) {
  if (interrupt_requested(flag)) throw Error(ErrorKind::Interrupted, "interrupted");
}

// In a loop over steps: throws at every kInterruptStride-th step when the flag is set.
inline void throw_if_interrupted_at(Interrupt flag, size_t step) {
  if ((step & (kInterruptStride - 1)) == 0) throw_if_interrupted(flag);
}

}  // namespace ea
