// EA_CUDA_CHECK(call): turns a CUDA error into ea::Error{Device} naming the call, the
// file and the line. A device failure is an error, never a verdict. select_gpu(id): the
// device check before a GPU's first call.
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

namespace ea::cuda {

// Makes GPU gpu_id current; ea::Error{Device} where no GPU is usable or the index is not one.
inline void select_gpu(int gpu_id) {
  int devices = 0;
  const cudaError_t e = cudaGetDeviceCount(&devices);
  if (e != cudaSuccess || devices == 0) {
    (void)cudaGetLastError();
    throw Error(ErrorKind::Device,
                std::string("no usable GPU: ") + (e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device found"));
  }
  if (gpu_id < 0 || gpu_id >= devices) {
    throw Error(ErrorKind::Device, "no GPU with index " + std::to_string(gpu_id) + " (" + std::to_string(devices) + " found)");
  }
  EA_CUDA_CHECK(cudaSetDevice(gpu_id));
}

}  // namespace ea::cuda
