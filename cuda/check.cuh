// EA_CUDA_CHECK(call): turns a CUDA error into ea::Error{Device} naming the call, the
// file and the line. A device failure is an error, never a verdict.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "common/error.hpp"

namespace ea::cuda {

[[noreturn]] inline void throw_cuda(cudaError_t e, const char* call, const char* file, int line) {
  throw Error(ErrorKind::Device, std::string("CUDA error: ") + cudaGetErrorString(e) + " (" +
                                     cudaGetErrorName(e) + ") in " + call + " at " + file + ":" +
                                     std::to_string(line));
}

}  // namespace ea::cuda

#define EA_CUDA_CHECK(call)                                                       \
  do {                                                                            \
    cudaError_t ea_cuda_status_ = (call);                                         \
    if (ea_cuda_status_ != cudaSuccess) {                                         \
      ::ea::cuda::throw_cuda(ea_cuda_status_, #call, __FILE__, __LINE__);         \
    }                                                                             \
  } while (0)
