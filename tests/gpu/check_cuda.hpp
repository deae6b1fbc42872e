// CHECK_CUDA for the GPU test programs: a failed CUDA call ends the test with exit 1.
#pragma once

#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(x)                                               \
  do {                                                              \
    cudaError_t e_ = (x);                                           \
    if (e_ != cudaSuccess) {                                        \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                 \
    }                                                               \
  } while (0)
