// CHECK_CUDA for the GPU test programs: a failed CUDA call ends the test with exit 1.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#define CHECK_CUDA(x)                                               \
  do {                                                              \
    cudaError_t e_ = (x);                                           \
    if (e_ != cudaSuccess) {                                        \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                 \
    }                                                               \
  } while (0)

// 77 (ctest: skipped) after saying so when no GPU is usable, else 0: main() returns it.
inline int skip_status_without_gpu() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no usable GPU: test skipped\n");
    return 77;
  }
  return 0;
}

// The options of the kernel tests: --no-timing (the checks only) and --small (only the
// small cases, for compute-sanitizer; no timing either).
struct KernelTestOptions {
  bool timing = true, small = false;
};
inline KernelTestOptions kernel_test_options(int argc, char** argv) {
  KernelTestOptions o;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    o.timing = o.timing && a != "--no-timing";
    o.small = o.small || a == "--small";
  }
  o.timing = o.timing && !o.small;
  return o;
}
