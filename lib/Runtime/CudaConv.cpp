//===- CudaConv.cpp - the convolutions of compiled CUDA steps over cuDNN --===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// remat_cuda_sconv2d, remat_cuda_sconv2d_input_grad and
// remat_cuda_sconv2d_filter_grad, which
// `--remat-linalg-to-blas=target=cuda cudnn=1` calls for the convolutions of
// a CUDA step: one cudnnConvolutionForward, cudnnConvolutionBackwardData or
// cudnnConvolutionBackwardFilter (cuDNN's legacy convolution API, alpha 1,
// beta 1: the result is added to the output) on the caller's stream. Plain
// C++ over cudnn.h; no MLIR. Built only when the toolkit has cuDNN.
//
// Layouts: the operands are dense row-major f32 arrays x [N, G, C, H, W],
// w [G, F, C, KH, KW], y [N, G, F, OH, OW] (G = 1 for ungrouped
// convolutions), i.e. NCHW tensors of G*C and G*F channels and a KCRS
// filter of G*F outputs with a group count of G. The input is already
// padded (no padding in the descriptor). cuDNN derives the output size from
// the input's; where the array has more rows (columns) past the last window
// than that formula allows, the input is described with the rows the windows
// cover, (OH - 1) * SH + (KH - 1) * DH + 1, and the strides of the full array,
// so those rows are neither read nor written.
//
// Reduction order (docs/Conventions.md): one handle per thread with FMA
// math only (CUDNN_FMA_MATH: no TF32 or tensor-core paths); the algorithm
// is the first one cuDNN's heuristics (the _v7 query: no timing, so the same
// answer for the same shapes on the same GPU and cuDNN version) list as
// deterministic and without tensor-op math. The handle's workspace grows to
// what that algorithm needs, so the choice never depends on the memory
// available.
//
//===----------------------------------------------------------------------===//

#include "remat/Runtime/CudaRuntime.h"

#include "CudaCheck.h"

#include <cuda.h>
#include <cudnn.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

using remat::cuda::check;

void check(cudnnStatus_t status, const char *call) {
  if (status != CUDNN_STATUS_SUCCESS)
    remat::cuda::fail(call, cudnnGetErrorString(status));
}

/// The cuDNN handle of the calling thread (created on first use, in the
/// runtime's primary context) and its workspace, which only grows.
class Handle {
public:
  Handle() {
    remat_cuda_init();
    REMAT_CHECK(cudnnCreate(&handle));
  }
  ~Handle() {
    cudnnDestroy(handle);
    if (workspace)
      cuMemFree(workspace);
  }
  Handle(const Handle &) = delete;
  Handle &operator=(const Handle &) = delete;

  /// The handle, on `stream`.
  cudnnHandle_t on(CUstream stream) {
    REMAT_CHECK(cudnnSetStream(handle, static_cast<cudaStream_t>(stream)));
    return handle;
  }

  /// A workspace of at least `bytes` for work enqueued on `stream`. Growing
  /// it first waits for the stream (work already enqueued may use the old
  /// one).
  void *workspaceFor(size_t bytes, CUstream stream) {
    if (bytes <= workspaceBytes)
      return reinterpret_cast<void *>(workspace);
    if (workspace) {
      REMAT_CHECK(cuStreamSynchronize(stream));
      REMAT_CHECK(cuMemFree(workspace));
      workspace = 0;
    }
    REMAT_CHECK(cuMemAlloc(&workspace, bytes));
    workspaceBytes = bytes;
    return reinterpret_cast<void *>(workspace);
  }

private:
  cudnnHandle_t handle = nullptr;
  CUdeviceptr workspace = 0;
  size_t workspaceBytes = 0;
};

Handle &threadHandle() {
  thread_local Handle handle;
  return handle;
}

/// The sizes of one call, in the order the compiled code passes them.
struct Shape {
  int64_t n, g, c, h, w, f, kh, kw, oh, ow, sh, sw, dh, dw;

  bool empty() const {
    return n == 0 || g == 0 || c == 0 || f == 0 || oh == 0 || ow == 0 ||
           kh == 0 || kw == 0;
  }
  /// The input height cuDNN is told: the whole array's when cuDNN's output
  /// size for it, (h - (kh - 1) * dh - 1) / sh + 1, is oh (the usual case:
  /// fewer than sh rows lie past the last window); else only the rows the
  /// windows cover.
  int64_t inputHeight() const {
    return (h - (kh - 1) * dh - 1) / sh + 1 == oh ? h : covered(oh, sh, kh, dh);
  }
  int64_t inputWidth() const {
    return (w - (kw - 1) * dw - 1) / sw + 1 == ow ? w : covered(ow, sw, kw, dw);
  }
  static int64_t covered(int64_t out, int64_t stride, int64_t kernel,
                         int64_t dilation) {
    return (out - 1) * stride + (kernel - 1) * dilation + 1;
  }
};

/// cuDNN's descriptors take int sizes and strides: every array must have
/// fewer than 2^31 elements (remat-linalg-to-blas checks this; a direct
/// caller that does not gets a message, not a wrong result).
int asInt(int64_t value, const char *what) {
  if (value < 0 || value > 0x7fffffff) {
    std::fprintf(stderr,
                 "remat cuda runtime: convolution %s (%lld) exceeds cuDNN's "
                 "int\n",
                 what, static_cast<long long>(value));
    std::abort();
  }
  return static_cast<int>(value);
}

/// The descriptors of one convolution; destroyed with it.
class Descriptors {
public:
  explicit Descriptors(const Shape &s) {
    REMAT_CHECK(cudnnCreateTensorDescriptor(&input));
    REMAT_CHECK(cudnnCreateTensorDescriptor(&output));
    REMAT_CHECK(cudnnCreateFilterDescriptor(&filter));
    REMAT_CHECK(cudnnCreateConvolutionDescriptor(&conv));
    int64_t channels = s.g * s.c, outputs = s.g * s.f;
    // x: NCHW with the full array's strides (Shape::inputHeight).
    REMAT_CHECK(cudnnSetTensor4dDescriptorEx(
        input, CUDNN_DATA_FLOAT, asInt(s.n, "batch"),
        asInt(channels, "channels"), asInt(s.inputHeight(), "height"),
        asInt(s.inputWidth(), "width"),
        asInt(channels * s.h * s.w, "input image size"),
        asInt(s.h * s.w, "input plane size"), asInt(s.w, "input width"), 1));
    asInt(s.n * channels * s.h * s.w, "input size");
    REMAT_CHECK(cudnnSetTensor4dDescriptor(
        output, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, asInt(s.n, "batch"),
        asInt(outputs, "output channels"), asInt(s.oh, "output height"),
        asInt(s.ow, "output width")));
    asInt(s.n * outputs * s.oh * s.ow, "output size");
    REMAT_CHECK(cudnnSetFilter4dDescriptor(
        filter, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, asInt(outputs, "filters"),
        asInt(s.c, "channels per group"), asInt(s.kh, "kernel height"),
        asInt(s.kw, "kernel width")));
    asInt(outputs * s.c * s.kh * s.kw, "filter size");
    // Cross-correlation, as linalg's convolutions compute.
    REMAT_CHECK(cudnnSetConvolution2dDescriptor(
        conv, 0, 0, asInt(s.sh, "stride"), asInt(s.sw, "stride"),
        asInt(s.dh, "dilation"), asInt(s.dw, "dilation"),
        CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    REMAT_CHECK(cudnnSetConvolutionGroupCount(conv, asInt(s.g, "groups")));
    REMAT_CHECK(cudnnSetConvolutionMathType(conv, CUDNN_FMA_MATH));
  }
  ~Descriptors() {
    cudnnDestroyConvolutionDescriptor(conv);
    cudnnDestroyFilterDescriptor(filter);
    cudnnDestroyTensorDescriptor(output);
    cudnnDestroyTensorDescriptor(input);
  }
  Descriptors(const Descriptors &) = delete;
  Descriptors &operator=(const Descriptors &) = delete;

  cudnnTensorDescriptor_t input = nullptr, output = nullptr;
  cudnnFilterDescriptor_t filter = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
};

/// The first of cuDNN's heuristic answers `perf` (best first) that works,
/// is deterministic and uses no tensor-core math (the descriptor's FMA math
/// type then holds when it runs).
template <typename Perf>
const Perf &pickAlgorithm(const std::vector<Perf> &perf, int returned,
                          const char *what) {
  for (int i = 0; i < returned; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS &&
        perf[i].determinism == CUDNN_DETERMINISTIC &&
        perf[i].mathType != CUDNN_TENSOR_OP_MATH &&
        perf[i].mathType != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION)
      return perf[i];
  std::fprintf(stderr,
               "remat cuda runtime: cuDNN offers no deterministic FMA "
               "algorithm for this %s\n",
               what);
  std::abort();
}

const float kOne = 1.0f;

const float *address(uintptr_t base, int64_t offset) {
  return reinterpret_cast<const float *>(base) + offset;
}
float *mutableAddress(uintptr_t base, int64_t offset) {
  return reinterpret_cast<float *>(base) + offset;
}

} // namespace

extern "C" void remat_cuda_sconv2d(void *stream, int64_t n, int64_t g,
                                   int64_t c, int64_t h, int64_t w, int64_t f,
                                   int64_t kh, int64_t kw, int64_t oh,
                                   int64_t ow, int64_t sh, int64_t sw,
                                   int64_t dh, int64_t dw, uintptr_t x,
                                   int64_t offsetX, uintptr_t filter,
                                   int64_t offsetFilter, uintptr_t y,
                                   int64_t offsetY) {
  Shape s{n, g, c, h, w, f, kh, kw, oh, ow, sh, sw, dh, dw};
  if (s.empty())
    return; // y += nothing
  auto cuStream = static_cast<CUstream>(stream);
  Handle &state = threadHandle();
  cudnnHandle_t handle = state.on(cuStream);
  Descriptors d(s);
  int count = 0, returned = 0;
  REMAT_CHECK(cudnnGetConvolutionForwardAlgorithmMaxCount(handle, &count));
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(count);
  REMAT_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(
      handle, d.input, d.filter, d.conv, d.output, count, &returned,
      perf.data()));
  const auto &algo = pickAlgorithm(perf, returned, "forward convolution");
  size_t bytes = 0;
  REMAT_CHECK(cudnnGetConvolutionForwardWorkspaceSize(
      handle, d.input, d.filter, d.conv, d.output, algo.algo, &bytes));
  void *workspace = state.workspaceFor(bytes, cuStream);
  REMAT_CHECK(cudnnConvolutionForward(
      handle, &kOne, d.input, address(x, offsetX), d.filter,
      address(filter, offsetFilter), d.conv, algo.algo, workspace, bytes,
      &kOne, d.output, mutableAddress(y, offsetY)));
}

extern "C" void remat_cuda_sconv2d_input_grad(
    void *stream, int64_t n, int64_t g, int64_t c, int64_t h, int64_t w,
    int64_t f, int64_t kh, int64_t kw, int64_t oh, int64_t ow, int64_t sh,
    int64_t sw, int64_t dh, int64_t dw, uintptr_t filter,
    int64_t offsetFilter, uintptr_t dy, int64_t offsetDy, uintptr_t dx,
    int64_t offsetDx) {
  Shape s{n, g, c, h, w, f, kh, kw, oh, ow, sh, sw, dh, dw};
  if (s.empty())
    return; // dx += nothing
  auto cuStream = static_cast<CUstream>(stream);
  Handle &state = threadHandle();
  cudnnHandle_t handle = state.on(cuStream);
  Descriptors d(s);
  int count = 0, returned = 0;
  REMAT_CHECK(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(handle, &count));
  std::vector<cudnnConvolutionBwdDataAlgoPerf_t> perf(count);
  REMAT_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(
      handle, d.filter, d.output, d.conv, d.input, count, &returned,
      perf.data()));
  const auto &algo =
      pickAlgorithm(perf, returned, "convolution input gradient");
  size_t bytes = 0;
  REMAT_CHECK(cudnnGetConvolutionBackwardDataWorkspaceSize(
      handle, d.filter, d.output, d.conv, d.input, algo.algo, &bytes));
  void *workspace = state.workspaceFor(bytes, cuStream);
  REMAT_CHECK(cudnnConvolutionBackwardData(
      handle, &kOne, d.filter, address(filter, offsetFilter), d.output,
      address(dy, offsetDy), d.conv, algo.algo, workspace, bytes, &kOne,
      d.input, mutableAddress(dx, offsetDx)));
}

extern "C" void remat_cuda_sconv2d_filter_grad(
    void *stream, int64_t n, int64_t g, int64_t c, int64_t h, int64_t w,
    int64_t f, int64_t kh, int64_t kw, int64_t oh, int64_t ow, int64_t sh,
    int64_t sw, int64_t dh, int64_t dw, uintptr_t x, int64_t offsetX,
    uintptr_t dy, int64_t offsetDy, uintptr_t gw, int64_t offsetGw) {
  Shape s{n, g, c, h, w, f, kh, kw, oh, ow, sh, sw, dh, dw};
  if (s.empty())
    return; // gw += nothing
  auto cuStream = static_cast<CUstream>(stream);
  Handle &state = threadHandle();
  cudnnHandle_t handle = state.on(cuStream);
  Descriptors d(s);
  int count = 0, returned = 0;
  REMAT_CHECK(
      cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(handle, &count));
  std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> perf(count);
  REMAT_CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
      handle, d.input, d.output, d.conv, d.filter, count, &returned,
      perf.data()));
  const auto &algo =
      pickAlgorithm(perf, returned, "convolution filter gradient");
  size_t bytes = 0;
  REMAT_CHECK(cudnnGetConvolutionBackwardFilterWorkspaceSize(
      handle, d.input, d.output, d.conv, d.filter, algo.algo, &bytes));
  void *workspace = state.workspaceFor(bytes, cuStream);
  REMAT_CHECK(cudnnConvolutionBackwardFilter(
      handle, &kOne, d.input, address(x, offsetX), d.output,
      address(dy, offsetDy), d.conv, algo.algo, workspace, bytes, &kOne,
      d.filter, mutableAddress(gw, offsetGw)));
}
