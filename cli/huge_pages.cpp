// The ea_iid executable's operator new, and the Python module's (libea_iid's references bind to
// the module's definitions where nothing in the process's global scope defines operator new:
// python3 does not; a C++ program that embeds Python or links libea_iid keeps its own):
// blocks of 4 MiB and more are malloc's as always, but
// marked MADV_HUGEPAGE before their first touch, so that the kernel backs them with 2 MiB
// pages where transparent huge pages are "madvise" (Debian's default): a first touch then
// clears one 2 MiB page instead of faulting 512 4 KiB ones. The non-IID estimators allocate
// and touch a few hundred MB a run (suffix orders, LCPs, the predictors' tables), and these
// faults were a fifth of a one-thread run's time on GetTickCount_8bit (perf, session 47).
// The same effect as glibc's tunable glibc.malloc.hugetlb=1, which the library cannot set
// (it reads no environment) and which would reach child processes. Not in sanitizer builds,
// whose runtime owns operator new. Where the kernel's THP defrag is "madvise", a fault in such
// a block may compact memory first (a stall on a fragmented host), and khugepaged may fill a
// sparsely touched 2 MiB range: at most 2 MiB more a range, as with glibc's tunable.
// In the Python module, blocks cross between this operator delete and libstdc++'s operator
// new (and back): both must stay malloc/free. The aligned forms stay libstdc++'s.
#include <cstdlib>
#include <new>

#include "common/huge_pages.hpp"

// Not under AddressSanitizer (CMake leaves the file out of EA_IID_SANITIZE builds; GCC says
// __SANITIZE_ADDRESS__, clang __has_feature).
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EA_ASAN_BUILD 1
#endif
#endif
#if !defined(__SANITIZE_ADDRESS__) && !defined(EA_ASAN_BUILD)

namespace {

constexpr size_t kHugeFrom = size_t{4} << 20;  // a 2 MiB page inside the block, at least one

void* allocate(size_t size) noexcept {
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p != nullptr && size >= kHugeFrom) ea::advise_huge_pages(p, size);  // (the 2 MiB pages inside it)
  return p;
}

// The throwing forms: the new-handler until it gives up, as the standard's operator new does.
void* allocate_or_throw(size_t size) {
  for (;;) {
    if (void* p = allocate(size)) return p;
    const std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) throw std::bad_alloc();
    handler();
  }
}

}  // namespace

void* operator new(size_t size) { return allocate_or_throw(size); }
void* operator new[](size_t size) { return allocate_or_throw(size); }
void* operator new(size_t size, const std::nothrow_t&) noexcept { return allocate(size); }
void* operator new[](size_t size, const std::nothrow_t&) noexcept { return allocate(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

#endif
