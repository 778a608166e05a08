//===- CudaRuntime.cpp - the mgpu* ABI over the CUDA driver API -----------===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// The functions MLIR 22's gpu-to-llvm lowering and the gpu.binary LLVM
// translation call, with the signatures they emit (index -> intptr_t,
// i8 flags -> bool, i32 -> int32_t), written against cuda.h. No MLIR.
//
// Every entry point makes the primary context of the selected device
// current on the calling thread. Errors are fatal: a message naming the
// driver call and its error, then abort().
//
//===----------------------------------------------------------------------===//

#include "remat/Runtime/CudaRuntime.h"

#include "CudaCheck.h"

#include <cuda.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace {

using remat::cuda::check;

CUcontext primaryContext() {
  static CUcontext context = [] {
    REMAT_CHECK(cuInit(0));
    int ordinal = 0;
    if (const char *env = std::getenv("REMAT_CUDA_DEVICE"))
      ordinal = std::atoi(env);
    CUdevice device;
    REMAT_CHECK(cuDeviceGet(&device, ordinal));
    CUcontext ctx;
    REMAT_CHECK(cuDevicePrimaryCtxRetain(&ctx, device));
    return ctx;
  }();
  return context;
}

/// Makes the primary context current on this thread.
void enter() {
  thread_local bool current = false;
  if (current)
    return;
  REMAT_CHECK(cuCtxSetCurrent(primaryContext()));
  current = true;
}

std::atomic<int64_t> peakUsed{0};

int64_t usedNow() {
  size_t freeBytes = 0, totalBytes = 0;
  REMAT_CHECK(cuMemGetInfo(&freeBytes, &totalBytes));
  return static_cast<int64_t>(totalBytes - freeBytes);
}

/// Records the device memory in use now in the peak.
void sample() {
  int64_t used = usedNow();
  int64_t peak = peakUsed.load();
  while (used > peak && !peakUsed.compare_exchange_weak(peak, used)) {
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Helpers for programs calling compiled entry points.
//===----------------------------------------------------------------------===//

extern "C" int remat_cuda_init(void) {
  enter();
  return 0;
}

extern "C" void *remat_cuda_alloc_managed(size_t bytes) {
  enter();
  CUdeviceptr pointer = 0;
  REMAT_CHECK(cuMemAllocManaged(&pointer, std::max<size_t>(bytes, 1),
                                CU_MEM_ATTACH_GLOBAL));
  sample();
  return reinterpret_cast<void *>(pointer);
}

extern "C" void remat_cuda_free(void *pointer) {
  enter();
  REMAT_CHECK(cuMemFree(reinterpret_cast<CUdeviceptr>(pointer)));
}

extern "C" int64_t remat_cuda_device_used_bytes(void) {
  enter();
  return usedNow();
}

extern "C" void remat_cuda_reset_peak(void) {
  enter();
  peakUsed.store(usedNow());
}

extern "C" int64_t remat_cuda_peak_used_bytes(void) { return peakUsed.load(); }

//===----------------------------------------------------------------------===//
// Modules and kernels.
//===----------------------------------------------------------------------===//

/// A cubin (or fatbin) embedded by gpu.binary; `size` is its byte size.
extern "C" CUmodule mgpuModuleLoad(void *data, size_t size) {
  (void)size;
  enter();
  CUmodule module = nullptr;
  REMAT_CHECK(cuModuleLoadData(&module, data));
  return module;
}

/// PTX embedded by gpu.binary (format=isa), JIT-compiled at `optLevel`.
extern "C" CUmodule mgpuModuleLoadJIT(void *data, int optLevel) {
  enter();
  CUjit_option options[] = {CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {reinterpret_cast<void *>(
      static_cast<intptr_t>(std::clamp(optLevel, 0, 4)))};
  CUmodule module = nullptr;
  REMAT_CHECK(cuModuleLoadDataEx(&module, data, 1, options, values));
  return module;
}

extern "C" void mgpuModuleUnload(CUmodule module) {
  enter();
  REMAT_CHECK(cuModuleUnload(module));
}

extern "C" CUfunction mgpuModuleGetFunction(CUmodule module, const char *name) {
  enter();
  CUfunction function = nullptr;
  REMAT_CHECK(cuModuleGetFunction(&function, module, name));
  return function;
}

extern "C" void mgpuLaunchKernel(CUfunction function, intptr_t gridX,
                                 intptr_t gridY, intptr_t gridZ,
                                 intptr_t blockX, intptr_t blockY,
                                 intptr_t blockZ, int32_t sharedBytes,
                                 CUstream stream, void **params, void **extra,
                                 size_t paramsCount) {
  (void)paramsCount;
  enter();
  // CUDA's limits (compute capability 3.0+); remat-gpu-step-stream refuses
  // constant sizes beyond them at compile time.
  if (gridX < 1 || gridX > INT32_MAX || gridY < 1 || gridY > 65535 ||
      gridZ < 1 || gridZ > 65535 || blockX < 1 || blockY < 1 || blockZ < 1 ||
      blockZ > 64 || blockX * blockY * blockZ > 1024 || sharedBytes < 0) {
    std::fprintf(stderr,
                 "remat cuda runtime: kernel launch of grid (%lld, %lld, "
                 "%lld) blocks of (%lld, %lld, %lld) threads is outside "
                 "CUDA's limits\n",
                 static_cast<long long>(gridX), static_cast<long long>(gridY),
                 static_cast<long long>(gridZ), static_cast<long long>(blockX),
                 static_cast<long long>(blockY),
                 static_cast<long long>(blockZ));
    std::abort();
  }
  REMAT_CHECK(cuLaunchKernel(
      function, static_cast<unsigned>(gridX), static_cast<unsigned>(gridY),
      static_cast<unsigned>(gridZ), static_cast<unsigned>(blockX),
      static_cast<unsigned>(blockY), static_cast<unsigned>(blockZ),
      static_cast<unsigned>(sharedBytes), stream, params, extra));
}

//===----------------------------------------------------------------------===//
// Streams and events.
//===----------------------------------------------------------------------===//

extern "C" CUstream mgpuStreamCreate() {
  enter();
  CUstream stream = nullptr;
  REMAT_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  return stream;
}

extern "C" void mgpuStreamDestroy(CUstream stream) {
  enter();
  REMAT_CHECK(cuStreamDestroy(stream));
}

extern "C" void mgpuStreamSynchronize(CUstream stream) {
  enter();
  REMAT_CHECK(cuStreamSynchronize(stream));
  sample();
}

extern "C" void mgpuStreamWaitEvent(CUstream stream, CUevent event) {
  enter();
  REMAT_CHECK(cuStreamWaitEvent(stream, event, 0));
}

extern "C" CUevent mgpuEventCreate() {
  enter();
  CUevent event = nullptr;
  REMAT_CHECK(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING));
  return event;
}

extern "C" void mgpuEventDestroy(CUevent event) {
  enter();
  REMAT_CHECK(cuEventDestroy(event));
}

extern "C" void mgpuEventSynchronize(CUevent event) {
  enter();
  REMAT_CHECK(cuEventSynchronize(event));
}

extern "C" void mgpuEventRecord(CUevent event, CUstream stream) {
  enter();
  REMAT_CHECK(cuEventRecord(event, stream));
}

//===----------------------------------------------------------------------===//
// Memory.
//===----------------------------------------------------------------------===//

/// gpu.alloc: device memory, or managed memory for `host_shared`.
extern "C" void *mgpuMemAlloc(uint64_t bytes, CUstream stream,
                              bool hostShared) {
  (void)stream;
  enter();
  CUdeviceptr pointer = 0;
  size_t size = std::max<uint64_t>(bytes, 1);
  if (hostShared)
    REMAT_CHECK(cuMemAllocManaged(&pointer, size, CU_MEM_ATTACH_GLOBAL));
  else
    REMAT_CHECK(cuMemAlloc(&pointer, size));
  sample();
  return reinterpret_cast<void *>(pointer);
}

extern "C" void mgpuMemFree(void *pointer, CUstream stream) {
  enter();
  // Frees are ordered after the stream's work.
  if (stream)
    REMAT_CHECK(cuStreamSynchronize(stream));
  sample();
  REMAT_CHECK(cuMemFree(reinterpret_cast<CUdeviceptr>(pointer)));
}

extern "C" void mgpuMemcpy(void *dst, void *src, size_t bytes,
                           CUstream stream) {
  enter();
  REMAT_CHECK(cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                            reinterpret_cast<CUdeviceptr>(src), bytes, stream));
}

extern "C" void mgpuMemset32(void *dst, uint32_t value, size_t count,
                             CUstream stream) {
  enter();
  REMAT_CHECK(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                               stream));
}

extern "C" void mgpuMemset16(void *dst, uint16_t value, size_t count,
                             CUstream stream) {
  enter();
  REMAT_CHECK(cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                               stream));
}

extern "C" void mgpuMemHostRegister(void *pointer, uint64_t bytes) {
  enter();
  REMAT_CHECK(cuMemHostRegister(pointer, bytes, 0));
}

extern "C" void mgpuMemHostUnregister(void *pointer) {
  enter();
  REMAT_CHECK(cuMemHostUnregister(pointer));
}

extern "C" void mgpuSetDefaultDevice(int32_t device) {
  // The device is fixed when the first call creates the context; later
  // changes are not supported.
  (void)device;
}
