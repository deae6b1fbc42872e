// Memory for large buffers read and written at random places (hash tables, sort keys). From
// 4 MB on it is aligned to 2 MB and marked for huge pages (madvise: a hint the kernel may
// ignore), so that first touches fault in 2 MB at a time rather than 4 KB: a fifth to a
// quarter of MultiMMC's time on 8-bit symbols went to 4 KB faults, and the t-tuple's sort
// keys of an 8,000,000-bit bitstring take 7% less time (docs/performance-history.md,
// session 34). The memory is uninitialised; give it back with std::free.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace ea {

inline void* allocate_random_access(std::size_t bytes) {
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  if (bytes > SIZE_MAX - kHuge) throw std::bad_alloc();
  if (bytes < 2 * kHuge) {
    void* p = std::malloc(bytes == 0 ? 1 : bytes);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  const std::size_t whole = (bytes + kHuge - 1) / kHuge * kHuge;
  void* p = std::aligned_alloc(kHuge, whole);
  if (p == nullptr) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  (void)madvise(p, whole, MADV_HUGEPAGE);
#endif
  return p;
}

}  // namespace ea
