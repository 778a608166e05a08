//===- Passes.td - remat buffer-level passes ---------------*- tablegen -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TRANSFORMS_PASSES_TD
#define REMAT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def RematPlanArena : Pass<"remat-plan-arena", "mlir::func::FuncOp"> {
  let summary = "Places every static memref.alloc of a function in one arena";
  let description = [{
    Runs on memref IR (after one-shot-bufferize, and after
    buffer-results-to-out-params when that is used). In every `func.func`
    with a single-block body, every `memref.alloc` with a static shape, an
    identity layout and the default memory space is replaced by a
    `memref.view` into one arena, a
    `memref.alloc() {alignment = 64, remat_arena} : memref<Nxi8>` created at
    the start of the function and deallocated before every `func.return` (unless a
    returned value aliases it). Matching `memref.dealloc`s are erased.

    Lifetimes are measured in the order of the top-level ops of the body: a
    buffer lives from its alloc to the last use of it or of any alias
    (view-like ops such as subview, collapse/expand_shape, cast,
    reinterpret_cast and view; results of unknown ops taking it; values
    yielded from regions). A use nested inside an op counts at that op.
    Buffers that are returned, or copied with `memref.copy` into a function
    argument (an out-parameter), live to the end.

    Offsets come from first-fit interval packing: buffers are placed at the
    lowest 64-byte-aligned offset that does not overlap an already placed
    buffer whose lifetime intersects theirs, taken by decreasing size, by
    decreasing size x lifetime and by decreasing lifetime; the order that
    gives the smallest arena wins.
    In place (Chen et al. 2016, section 3): when an elementwise
    `linalg.generic` (identity indexing maps, parallel iterators only, the
    output's block argument unused) reads a buffer A whose lifetime ends at
    that op and writes a freshly allocated buffer B of the same type not
    used before, B shares A's slot.

    The pass runs on one `func.func` at a time. The report (a remark on each
    function; with `json-file`, JSON: the pass leaves it on the function as
    the `remat_reports` attribute and the tool writes one array for the
    module after the pipeline, see Reports.h) gives the
    arena bytes, the liveness lower bound (the maximum over op positions of
    the bytes of the buffers live there, a buffer written in place over its
    input counted once), their ratio and the number of in-place reuses. The
    function also gets the attributes `remat_arena_bytes` and
    `remat_arena_lower_bound` (i64; no `remat.` prefix, so that they are not
    verified as remat dialect attributes).

    Before:
    ```mlir
    %a = memref.alloc() : memref<16xf32>
    ...
    %b = memref.alloc() : memref<16xf32>
    ```
    After:
    ```mlir
    %arena = memref.alloc() {alignment = 64 : i64, remat_arena} : memref<64xi8>
    %c0 = arith.constant 0 : index
    %a = memref.view %arena[%c0][] : memref<64xi8> to memref<16xf32>
    ```
  }];
  let options = [
    Option<"jsonFile", "json-file", "std::string", /*default=*/"\"\"",
           "Write the report as JSON to this file ('-' for stdout)">,
    Option<"alignment", "alignment", "int64_t", /*default=*/"64",
           "Alignment in bytes of the arena and of every offset">,
    Option<"inPlace", "in-place", "bool", /*default=*/"true",
           "Let elementwise ops write in place over a dying input">,
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def RematConvToGemm : Pass<"remat-conv-to-gemm", "mlir::func::FuncOp"> {
  let summary = "Rewrites f32 convolutions on memrefs into im2col copies, matmuls and col2im gathers over a column buffer";
  let description = [{
    The GPU convolutions without cuDNN (the CUDA pipeline runs it before
    `--remat-plan-arena` when `--cudnn` is off): every convolution that
    `--remat-linalg-to-blas` would send to the runtime (forward
    `linalg.conv_2d_nchw_fchw` / `linalg.conv_2d_ngchw_gfchw`, and the input-
    and filter-gradient `linalg.generic`s of `--remat-lower-to-linalg`, on
    dense f32 memrefs of static shape with every operand under 2^31
    elements) is replaced, chunk of images after chunk of images, by

    * an im2col `linalg.generic` copying the windows of the chunk's images
      into a column buffer `col[g, c, kh, kw, n, oh, ow]` (a `memref.alloc`
      of 64-byte alignment, freed after the last chunk: the arena plans it
      like any other buffer);
    * `linalg.batch_matmul` / `linalg.matmul` ops on views of the column
      buffer, the filter and the output (transposed and broadcast operands
      through `indexing_maps`), which `--remat-linalg-to-blas` then turns
      into GEMM calls: forward `y[n, g] += w[g] col[g, n]`, input gradient
      `col[g, n] += w[g]^T dy[n, g]` (on a zero-filled buffer), filter
      gradient `gw[g] += dy[n, g] col[g, n]^T` summed over the chunk's images
      in one GEMM depth;
    * for the input gradient a col2im `linalg.generic` with one iteration
      per element of the input gradient that adds the column terms reaching
      it, kernel row then column ascending (a gather: no two iterations write
      the same element).

    A chunk is one image when the convolution has groups (its GEMMs are
    batched over the groups), else the most images (a divisor of N) whose
    column buffer stays within `max-column-bytes`; with several images the
    filter gradient also gathers the chunk's output gradient into one
    `[F, images, OH OW]` buffer. The chunking is a function of the shapes, so
    every sum has an order fixed by the shapes (docs/Conventions.md). A
    convolution whose column buffer for one image would have 2^31 elements
    or more is left alone (it stays a loop nest). A 1x1, stride-1
    convolution of the whole input has no column buffer: its forward and
    input-gradient matmuls read the input's images, or write the input
    gradient's, directly.

    Before:
    ```mlir
    linalg.conv_2d_nchw_fchw ins(%x, %w : memref<2x3x6x6xf32>, memref<4x3x3x3xf32>)
                             outs(%y : memref<2x4x4x4xf32>)
    ```
    After (two images per chunk):
    ```mlir
    %col = memref.alloc() {alignment = 64 : i64} : memref<1x3x3x3x2x4x4xf32>
    linalg.generic ... ins(%x_images) outs(%col)       // im2col
    linalg.batch_matmul indexing_maps = [...] ins(%w_matrix, %col_per_image)
                        outs(%y_images)
    memref.dealloc %col
    ```
  }];
  let options = [
    Option<"maxColumnBytes", "max-column-bytes", "int64_t",
           /*default=*/"32 << 20",
           "The largest column buffer that several images of an ungrouped "
           "convolution share (one image's may be larger)">,
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect"];
}

def RematLinalgToBlas : Pass<"remat-linalg-to-blas", "mlir::ModuleOp"> {
  let summary = "Rewrites f32 matmuls and convolutions on memrefs into calls of the CPU runtime's BLAS routines";
  let description = [{
    Runs on the module, not per function: it declares the runtime
    functions it calls (`func.func private @remat_cpu_sgemm`, ...) there.

    Runs on memref IR (after bufferization). Every `linalg.matmul` and
    `linalg.batch_matmul` whose operands are f32 memrefs with a unit
    innermost stride becomes one call of the runtime function

    ```
    void remat_cpu_sgemm(batch, m, n, k,
                         transA, A, offsetA, lda, batchStrideA,
                         transB, B, offsetB, ldb, batchStrideB,
                         C, offsetC, ldc, batchStrideC)
    ```

    of `libRematCpuRuntime` (`lib/Runtime/CpuRuntime.cpp`), which computes
    `C[i] += op(A[i]) * op(B[i])` for every batch index with `cblas_sgemm`
    (row major; `op` transposes when the flag is 1). All integers are
    `index`; `A`, `B` and `C` are the base buffers of
    `memref.extract_strided_metadata` (`memref<f32>`), the offsets, leading
    dimensions and batch strides in elements. Transposed operands (indexing
    maps that swap the two matrix dimensions) and a batch dimension missing
    from one input (broadcast: batch stride 0) are supported. Ops with other
    element types, other indexing maps, or a non-unit innermost stride are
    left alone (they become loops).

    The convolutions that `--remat-lower-to-linalg` writes become calls of
    the runtime's im2col + GEMM convolutions when their three operands are
    dense row-major f32 memrefs of static shape (any offset):

    * `linalg.conv_2d_nchw_fchw` and `linalg.conv_2d_ngchw_gfchw` (groups,
      depthwise) call `remat_cpu_sconv2d`;
    * the input gradient, a `linalg.generic` over
      `(n, g, c | kh, kw, f, oh, ow)` with the body `acc + w * dy`, reading
      `w[g, f, c, kh, kw]` and `dy[n, g, f, oh, ow]` into
      `dx[n, g, c, oh * sh + kh * dh, ow * sw + kw * dw]` (the padded
      input's gradient), calls `remat_cpu_sconv2d_input_grad` (GEMM, then
      col2im);
    * the filter gradient, a `linalg.generic` over
      `(g, f, c, kh, kw | n, oh, ow)` with the body `acc + x * dy`, reading
      `x[n, g, c, oh * sh + kh * dh, ow * sw + kw * dw]` and
      `dy[n, g, f, oh, ow]` into `gw[g, f, c, kh, kw]`, calls
      `remat_cpu_sconv2d_filter_grad`; when a `linalg.fill` of +0.0 of
      `gw` (or of the memref `gw` reshapes) precedes it with only
      memory-effect-free ops (constants, views) between them, the fill is
      erased and the call is `remat_cpu_sconv2d_filter_grad_set`, which
      writes `gw` (the same bits as the fill and the accumulating call:
      it zeroes each band of `gw` in cache just before adding the band's
      product, instead of a separate pass over the whole gradient).

    All three take the sizes
    `n, g, c, h, w, f, kh, kw, oh, ow, sh, sw, dh, dw` (index constants;
    the input and its gradient are padded ones), then per operand its
    aligned pointer (`memref.extract_aligned_pointer_as_index`) and its
    offset in elements: all `index`, so the call does not depend on how
    memrefs are passed. A convolution whose windows would leave the input, or
    whose GEMM dimensions (f, c kh kw, oh ow) exceed a C `int`, is left
    alone.

    With `target=cuda` (the CUDA path, after `--remat-host-allocs-to-gpu`)
    the same matmuls call `remat_cuda_sgemm` of `libRematCudaRuntime`
    (`lib/Runtime/CudaBlas.cpp`: one `cublasGemmStridedBatchedEx` with
    pedantic f32 compute, alpha 1, beta 1), whose first argument is the
    stream as a `!gpu.async.token`: the call is enqueued on the stream of
    a `gpu.wait async` placed before it and waited for by a `gpu.wait`
    after it (`--remat-gpu-step-stream` later puts every call and kernel
    of a function on one stream). Matmuls of f16 or bf16 operands (both
    the same) with an f32 result, which the CPU target leaves as loops,
    call `remat_cuda_gemm_f16` / `remat_cuda_gemm_bf16` there (the same
    operands, A and B as memrefs of their type; cuBLAS with f32 compute).
    With `cudnn=1` the convolutions above
    call `remat_cuda_sconv2d`, `remat_cuda_sconv2d_input_grad` and
    `remat_cuda_sconv2d_filter_grad` (`lib/Runtime/CudaConv.cpp`: one
    cuDNN forward, backward-data or backward-filter call, beta 1) the same
    way: the stream first, then the CPU functions' operands; a convolution
    with an operand of 2^31 elements or more is left alone (cuDNN's int
    sizes). Without `cudnn` they stay loops (kernels).

    Before:
    ```mlir
    linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>)
                  outs(%c : memref<4x16xf32>)
    ```
    After:
    ```mlir
    %base, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %a
    ...
    func.call @remat_cpu_sgemm(%c1, %c4, %c16, %c8, %c0, %base, %offset,
        %strides#0, %c0, ...) : (index, ..., memref<f32>, ...) -> ()
    ```
    After, with `target=cuda`:
    ```mlir
    %t = gpu.wait async
    func.call @remat_cuda_sgemm(%t, %c1, %c4, %c16, %c8, ...)
        : (!gpu.async.token, index, ..., memref<f32>, ...) -> ()
    gpu.wait [%t]
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "Whose GEMM to call: 'cpu' (remat_cpu_sgemm, and the "
           "convolutions) or 'cuda' (remat_cuda_sgemm, and with cudnn the "
           "convolutions)">,
    Option<"cudnn", "cudnn", "bool", /*default=*/"false",
           "With target=cuda: f32 convolutions call the CUDA runtime's "
           "cuDNN convolutions (remat_cuda_sconv2d, ...)">,
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::gpu::GPUDialect"];
}

#endif // REMAT_TRANSFORMS_PASSES_TD
