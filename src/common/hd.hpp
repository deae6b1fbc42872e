// EA_HD marks functions that are compiled for the host by g++ and for both host and
// device by nvcc, so that one implementation serves the CPU path and the kernels.
#pragma once

#if defined(__CUDACC__)
#define EA_HD __host__ __device__
#define EA_FORCEINLINE __forceinline__
#define EA_UNROLL _Pragma("unroll")
// Unrolled on the device (loads of later iterations issued early); left to the host
// compiler, which vectorises such loops.
#define EA_DEVICE_UNROLL _Pragma("unroll 16")
#else
#define EA_HD
#define EA_FORCEINLINE inline __attribute__((always_inline))
#define EA_UNROLL _Pragma("GCC unroll 32")
#define EA_DEVICE_UNROLL
#endif
