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

// Marks the whole 2 MB pages inside [p, p + bytes) for huge pages (a hint; nothing else
// changes): the one place this project gives madvise's advice.
inline void advise_huge_pages(const void* p, std::size_t bytes) {
#ifdef MADV_HUGEPAGE
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  const std::uintptr_t lo = (reinterpret_cast<std::uintptr_t>(p) + kHuge - 1) / kHuge * kHuge;
  const std::uintptr_t hi = (reinterpret_cast<std::uintptr_t>(p) + bytes) / kHuge * kHuge;
  if (hi > lo) (void)madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

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
  advise_huge_pages(p, whole);
  return p;
}

}  // namespace ea
