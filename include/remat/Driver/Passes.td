//===- Passes.td - remat-compile's memref-level passes -----*- tablegen -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//
//
// The rewrites remat-compile runs between upstream passes on memref IR
// (lib/Driver/GpuPrepare.cpp). Every pass leaves ops inside a gpu.module
// alone: "host" below means not nested in a gpu.module.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DRIVER_PASSES_TD
#define REMAT_DRIVER_PASSES_TD

include "mlir/Pass/PassBase.td"

def RematCopiesToLinalg : Pass<"remat-copies-to-linalg", "mlir::ModuleOp"> {
  let summary = "Rewrites host memref.copy ops into linalg.copy";
  let description = [{
    Every host `memref.copy` between memrefs becomes a `linalg.copy` with the
    same source and target, so that the copy becomes a loop (on CUDA, a GPU
    kernel). Copies out of `memref.get_global` stay (host data). Without
    `all-copies` only copies with a non-identity layout on either side (not
    a plain memcpy) are rewritten; remat-compile sets it on CUDA.

    Before:
    ```mlir
    memref.copy %src, %dst : memref<4xf32, strided<[2]>> to memref<4xf32>
    ```
    After:
    ```mlir
    linalg.copy ins(%src : memref<4xf32, strided<[2]>>)
                outs(%dst : memref<4xf32>)
    ```
  }];
  let options = [
    Option<"allCopies", "all-copies", "bool", /*default=*/"false",
           "Rewrite every copy, not only those with a non-identity layout">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def RematMaterializeGlobals
    : Pass<"remat-materialize-globals", "mlir::ModuleOp"> {
  let summary = "Copies every host memref.get_global into a fresh buffer";
  let description = [{
    Every host `memref.get_global` with a static shape and an identity layout
    gets a fresh `memref.alloc` filled by a `memref.copy` from the global
    right after it, and every other use reads the copy, so that GPU kernels
    never read host globals (remat-compile on CUDA, before host allocations
    become managed memory).

    Before:
    ```mlir
    %g = memref.get_global @w : memref<4xf32>
    "use"(%g) : (memref<4xf32>) -> ()
    ```
    After:
    ```mlir
    %g = memref.get_global @w : memref<4xf32>
    %a = memref.alloc() : memref<4xf32>
    memref.copy %g, %a : memref<4xf32> to memref<4xf32>
    "use"(%a) : (memref<4xf32>) -> ()
    ```
  }];
}

def RematHostAllocsToGpu : Pass<"remat-host-allocs-to-gpu", "mlir::ModuleOp"> {
  let summary = "Turns host allocations into managed GPU memory";
  let description = [{
    Every host `memref.alloc` becomes a synchronous `gpu.alloc host_shared`
    (managed memory, reachable from host and device) with the same dynamic
    sizes and symbol operands; every host `memref.dealloc` becomes a
    `gpu.dealloc` between two `gpu.wait`s (the first starts an asynchronous
    chain, the second waits for the free).

    Before:
    ```mlir
    %a = memref.alloc() : memref<4xf32>
    memref.dealloc %a : memref<4xf32>
    ```
    After:
    ```mlir
    %a = gpu.alloc  host_shared () : memref<4xf32>
    %t0 = gpu.wait async
    %t1 = gpu.dealloc async [%t0] %a : memref<4xf32>
    gpu.wait [%t1]
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def RematParallelFirst : Pass<"remat-parallel-first", "mlir::ModuleOp"> {
  let summary = "Puts the parallel loops of host linalg ops outermost";
  let description = [{
    For every host linalg op on buffers that is not already inside an
    `scf.parallel`: if its parallel iterators are not the leading ones, the
    op is generalized (named ops) and interchanged so that they are, so that
    the parallel loops become the GPU grid and reductions run inside each
    thread. An op without parallel iterators (rank 0, full reductions) is
    wrapped in a one-iteration `scf.parallel`, so that it still becomes a
    kernel (of one thread). Ops that already have their parallel iterators
    first are left alone.

    Before:
    ```mlir
    linalg.generic {indexing_maps = [...], iterator_types = ["reduction", "parallel"]}
        ins(%in : memref<8x4xf32>) outs(%out : memref<4xf32>) { ... }
    ```
    After:
    ```mlir
    linalg.generic {indexing_maps = [...], iterator_types = ["parallel", "reduction"]}
        ins(%in : memref<8x4xf32>) outs(%out : memref<4xf32>) { ... }
    ```
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def RematGpuSplitReductions
    : Pass<"remat-gpu-split-reductions", "mlir::ModuleOp"> {
  let summary = "Few-output long reductions become two reductions: slices, then their partial results";
  let description = [{
    Runs on memref IR before remat-plan-arena (the CUDA path and
    `--cpu-gpu-loops`), so that the partial results are a buffer of the
    arena. Every host `linalg.generic` that --remat-gpu-block-reductions
    would rewrite (the same matcher) with fewer outputs than
    `target-blocks` / 2 and a reduction of R elements (row-major over its
    reduction loops) splits into G contiguous slices of R / G elements:
    G = A_0 * ... * A_(k-1) * d, the reduction loops 0..k-1 (extents A_j,
    in loop order) taken whole and loop k split d ways (d divides A_k),
    chosen greedily loop by loop as the largest G with
    outputs * G <= `target-blocks` and R / G >= `min-slice`; an op whose G
    would be 1 is left alone. The op becomes
    * a `linalg.fill` of a new buffer P[outputs..., G] (one per output of
      the op, a `memref.alloc`) with the combiner's identity;
    * the op over the slices: loops 0..k-1 and the d slices of loop k
      parallel (loop k's operands expanded by `memref.expand_shape` to
      [d, A_k / d]), writing P; --remat-gpu-block-reductions then gives each
      (output, slice) a block of B threads and its tree;
    * a `linalg.generic` folding P over the slices, in slice order, into
      the op's outputs (out = combine(out, p)): one block per output with
      its own tree, or a sequential loop when G < 32 and the op has more
      than one output; then a `memref.dealloc` of P.
    The order of every sum is a function of the shapes only
    (docs/Conventions.md). Ops with an operand indexed by anything but
    loops (a convolution's filter gradient, whose windows go to cuDNN or
    im2col and a GEMM) and ops not at the top level of a function are left
    alone. With `remarks`, every split op gets a remark.

    Before:
    ```mlir
    linalg.generic {indexing_maps = [affine_map<(i) -> (i)>,
                                     affine_map<(i) -> ()>],
                    iterator_types = ["reduction"]}
        ins(%x : memref<1048576xf32>) outs(%sum : memref<f32>) {...}
    ```
    After (G = 256):
    ```mlir
    %p = memref.alloc() : memref<256xf32>
    linalg.fill ins(%minus0 : f32) outs(%p : memref<256xf32>)
    %x2 = memref.expand_shape %x [[0, 1]] output_shape [256, 4096]
        : memref<1048576xf32> into memref<256x4096xf32>
    linalg.generic {indexing_maps = [affine_map<(g, s) -> (g, s)>,
                                     affine_map<(g, s) -> (g)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%x2 : memref<256x4096xf32>) outs(%p : memref<256xf32>) {...}
    linalg.generic {indexing_maps = [affine_map<(g) -> (g)>,
                                     affine_map<(g) -> ()>],
                    iterator_types = ["reduction"]}
        ins(%p : memref<256xf32>) outs(%sum : memref<f32>) {...}
    memref.dealloc %p : memref<256xf32>
    ```
  }];
  let options = [
    Option<"targetBlocks", "target-blocks", "int64_t", /*default=*/"256",
           "Split ops of fewer than half this many outputs into at most "
           "this many (output, slice) blocks in all">,
    Option<"minSlice", "min-slice", "int64_t", /*default=*/"4096",
           "The fewest elements of a slice">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "A remark per split op: its outputs, its length, the slices">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::affine::AffineDialect"];
}

def RematGpuBlockReductions
    : Pass<"remat-gpu-block-reductions", "mlir::ModuleOp"> {
  let summary = "Reductions on the host become GPU kernels of one block or one warp per output element";
  let description = [{
    Every host `linalg.generic` on memrefs of static shape whose loops are
    parallel or reductions, whose outputs are indexed by exactly its
    parallel loops, and whose body combines each output's accumulator once
    with a value (`yield combine(acc, v)`, combine one of `arith.addf`,
    `mulf`, `maximumf`, `minimumf`, `maxnumf`, `minnumf`, on floats; the
    accumulator used nowhere else) computed by ops free of memory effects
    or by `memref.load`s from buffers defined outside the op that are none
    of its outputs (a gather, e.g. a cross-entropy loss reading the logit
    at each label) becomes a `gpu.launch` when the reduction has at least
    `min-reduction` elements or the op has no parallel loop (a full
    reduction) and more than one:
    * many outputs of a moderate length (at least `warp-min-outputs`
      outputs, at most 1024 elements, `block-size` >= 32): one warp of 32
      lanes per output element, `block-size` / 32 warps per block (rounded
      down to a power of two), a grid of ceil(outputs / warps) blocks;
    * many outputs of a short length (at least `warp-min-outputs` outputs,
      at least 8 and fewer than `min-reduction` elements, at most 32): one
      segment of W lanes per output (W = 8, 16 or 32, the smallest power of
      two >= the length), 32 / W outputs per warp, `block-size` / 32 warps
      per block; segments past the last output read output 0's elements,
      shuffle with their warp and store nothing;
    * else one block per output element (grid x = the product of the
      parallel extents) of B threads: the smallest power of two >= the
      reduction's size, at least 32 and at most `block-size` rounded down
      to a power of two (which wins); an op whose partial results would
      exceed 48 KiB of shared memory is left alone.

    The order of every sum is fixed by the shapes (docs/Conventions.md):
    thread t folds the reduction elements t, t + B, t + 2B, ... (row-major
    over the reduction loops) into the combiner's identity (-0.0 for addf),
    in increasing order; the B partial results go to workgroup (shared)
    memory and are combined by a tree: for s = B/2, B/4, ..., 1, thread
    t < s sets p[t] = combine(p[t], p[t + s]), with a `gpu.barrier` after
    each step; thread 0 then stores combine(output, p[0]). A warp computes
    what a block of B = 32 threads would: lane l folds l, l + 32, ...,
    then for s = 16, 8, ..., 1 every lane combines its value with lane
    l + s's (`gpu.shuffle down`, width 32; no shared memory, no barrier),
    and lane 0 stores combine(output, its value); warps past the last
    output skip everything. A segment of W lanes does the same with
    offsets W/2, ..., 1 (still width 32: a lane reading across its
    segment's end is one no later step reads). Other ops (and these ops when the reduction is
    short) are left to the loop mapping (one thread per output element,
    reductions sequential). With `remarks`, every host op with reduction
    loops gets a remark: its outputs, its length and the choice made.

    Before:
    ```mlir
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                     affine_map<(i, j) -> (i)>],
                    iterator_types = ["parallel", "reduction"]}
        ins(%x : memref<4x1000xf32>) outs(%sum : memref<4xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %s = arith.addf %acc, %a : f32
      linalg.yield %s : f32
    }
    ```
    After (B = 256):
    ```mlir
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, ...)
               threads(%tx, %ty, %tz) in (%sx = %c256, ...)
               workgroup(%p : memref<256xf32, #gpu.address_space<workgroup>>) {
      %part = scf.for %r = %tx to %c1000 step %c256 iter_args(%acc = %minus0) ... 
      memref.store %part, %p[%tx]
      gpu.barrier
      // 8 tree steps: scf.if %tx < s { p[tx] = p[tx] + p[tx + s] }; gpu.barrier
      scf.if %tx == 0 { %sum[%bx] = %sum[%bx] + p[0] }
      gpu.terminator
    }
    ```
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Most threads per block (1 to 1024, rounded down to a power of "
           "two)">,
    Option<"minReduction", "min-reduction", "int64_t", /*default=*/"32",
           "Reductions of fewer elements stay sequential in one thread per "
           "output (unless the op has no parallel loop, or has at least "
           "warp-min-outputs outputs of 8 to 32 elements: warp segments)">,
    Option<"warpMinOutputs", "warp-min-outputs", "int64_t",
           /*default=*/"128",
           "Ops of at least this many outputs and reductions of at most "
           "1024 elements get one warp (or, under min-reduction elements, a "
           "warp segment) per output instead of one block">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "A remark per host reduction: its outputs, its length and what "
           "the pass made of it (a block or a warp per output, or "
           "sequential and why)">,
    Option<"cpu", "cpu", "bool", /*default=*/"false",
           "Host loops instead of kernels, in the kernels' order (a loop "
           "over the blocks, in each one loop over the threads per step "
           "between barriers, the partial results in a heap buffer): the "
           "same sums on the CPU (remat-compile --cpu-gpu-loops)">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::affine::AffineDialect"];
}

def RematCollapseParallelLoops
    : Pass<"remat-collapse-parallel-loops", "mlir::ModuleOp"> {
  let summary = "Collapses outermost multi-dimensional scf.parallel loops to 1-D";
  let description = [{
    Every outermost host `scf.parallel` with more than one induction variable
    is collapsed into a one-dimensional loop over the product of the trip
    counts (the original indices are recomputed with div/rem in the body),
    so that it maps to a 1-D grid of blocks of threads. Nested
    `scf.parallel` loops and 1-D loops are left alone.

    Before:
    ```mlir
    scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) { ... }
    ```
    After:
    ```mlir
    scf.parallel (%k) = (%c0) to (%c32) step (%c1) {
      %j = arith.remsi %k, %c8 : index
      %i = arith.divsi %k, %c8 : index
      ...
    }
    ```
  }];
}

def RematMergeGpuModules : Pass<"remat-merge-gpu-modules", "mlir::ModuleOp"> {
  let summary = "Moves the kernels of all gpu.modules into the first one";
  let description = [{
    With two or more `gpu.module`s at the top of the module, every op of the
    later ones moves into the first (symbols renamed on a clash), every
    `gpu.launch_func` of a moved kernel is redirected to its new symbol, and
    the emptied modules are erased: one module, one binary to load.

    Before:
    ```mlir
    gpu.module @k0 { gpu.func @f() kernel { ... } }
    gpu.module @k1 { gpu.func @f() kernel { ... } }
    gpu.launch_func @k1::@f ...
    ```
    After:
    ```mlir
    gpu.module @k0 {
      gpu.func @f() kernel { ... }
      gpu.func @f_0() kernel { ... }
    }
    gpu.launch_func @k0::@f_0 ...
    ```
  }];
}

def RematCpuParallelLoops
    : Pass<"remat-cpu-parallel-loops", "mlir::ModuleOp"> {
  let summary = "Lowers large host linalg ops to loops whose outermost loop "
                "is an scf.parallel";
  let description = [{
    Every linalg op on buffers (not nested in another linalg op or loop)
    whose static iteration space holds at least `min-work` points and whose
    first iterator is parallel with a trip count of at least 2 becomes a
    loop nest (as `convert-linalg-to-loops` writes it) whose outermost loop
    is a one-dimensional `scf.parallel`; every inner loop stays a sequential
    `scf.for`, so that the innermost loops stay plain loops for LLVM's
    vectorizer and each reduction runs in one thread in its own order.
    `convert-scf-to-openmp` then shares the outer iterations among the
    OpenMP threads. Smaller ops, ops whose first iterator is a reduction and
    ops with dynamic sizes are left for `convert-linalg-to-loops`. Each
    iteration of the parallel loop writes its own output elements, so the
    results do not depend on the number of threads. The views defined
    outside the `scf.parallel` that its body uses (`memref.view` of the
    arena, `expand_shape`, ...), and the constants they take, are cloned
    into the body: the function `convert-scf-to-openmp` outlines then
    computes every buffer from the arena base at a constant offset rather
    than loading one pointer per buffer from its context, so LLVM can tell
    that the stores do not alias the loads (a reduction keeps its running
    value in a register, as in the sequential loops).

    The threshold rests on a measurement (`bench/omp-forkjoin.cpp`,
    `bench/perf-results.md` "Fork and join cost"): a fork and join of two
    OpenMP threads costs about 0.7 us on the development machine, and the
    smallest op the default lets through, a fill of 32768 floats, takes a
    few microseconds on one thread. With `body-work`, the work of an op is
    its points times the work of one point instead: one unit per operand
    (an element read or written) and per body operation, 4 per division, 16
    per math function (`math.exp`, `math.tanh`, ...; not `math.absf`,
    `math.fma`, `math.copysign`), so that a costly body runs in parallel at
    fewer points and a copy needs more; off by default (it changes which
    ops of the bundled and imported models run in parallel, and was not
    measured on a quiet machine). With `remarks`, every outermost linalg op
    gets a remark: parallel or serial, its work, points and work per point,
    and the thread bound of a reduction.

    An op with a reduction stores each output element at every reduction
    step, so its threads must write output ranges at least a cache line
    (64 bytes) apart: with R outer iterations whose outputs lie S bytes
    apart (the stride of the output dimension the outer loop indexes), the
    nest runs in parallel only while the call gets at most R * S / 64
    threads (an `arith.cmpi sle` joined to the thread test below), and an
    op whose bound is below 2 is left for `convert-linalg-to-loops` (e.g.
    the f64 batch-norm sums of 8 channels, one line for all of them).

    The parallel nest runs only when the function's calls get more than one
    thread: each function with such an op calls `omp_get_max_threads()`
    once on entry (declared in the module if need be), and each op becomes
    an `scf.if` whose then-branch is the parallel nest and whose
    else-branch the same nest with a sequential outer `scf.for`, so that a
    step on one thread runs the loops `convert-linalg-to-loops` would have
    written, without a fork or an outlined body.

    Before (`min-work=1000`):
    ```mlir
    %a = memref.view %arena[%c0][] : memref<32768xi8> to memref<64x64xf32>
    %b = memref.view %arena[%c16384][] : memref<32768xi8> to memref<64x64xf32>
    linalg.generic {iterator_types = ["parallel", "parallel"], ...}
        ins(%a : memref<64x64xf32>) outs(%b : memref<64x64xf32>) { ... }
    ```
    After:
    ```mlir
    %n = call @omp_get_max_threads() : () -> i32
    %several = arith.cmpi sgt, %n, %c1_i32 : i32
    ...
    scf.if %several {
      scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
        %b1 = memref.view %arena[%c16384_1][] : ...
        %a1 = memref.view %arena[%c0_1][] : ...
        scf.for %j = %c0 to %c64 step %c1 { ... }
      }
    } else {
      scf.for %i = %c0 to %c64 step %c1 {
        scf.for %j = %c0 to %c64 step %c1 { ... }
      }
    }
    ```
  }];
  let options = [
    Option<"minWork", "min-work", "int64_t", /*default=*/"32768",
           "Least number of iteration points (product of the static loop "
           "trip counts; with body-work, times the work of one point) of "
           "an op that runs in parallel">,
    Option<"bodyWork", "body-work", "bool", /*default=*/"false",
           "Weigh each iteration point by the work of the op's body "
           "(operands, operations, divisions, math functions)">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "A remark per outermost linalg op: parallel or serial, and its "
           "work">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect"];
}

def RematGpuStepStream : Pass<"remat-gpu-step-stream", "mlir::ModuleOp"> {
  let summary = "Puts the GPU work of each host function on one stream";
  let description = [{
    Runs after `gpu-kernel-outlining`, before `gpu-to-llvm`. In every host
    `func.func` with one block, walking its top-level ops in order:

    * a synchronous `gpu.launch_func` (which `gpu-to-llvm` would give a
      stream of its own, created, synchronized and destroyed around it)
      becomes `gpu.launch_func async` on the step's stream;
    * a host `memref.copy` of a constant global (`memref.get_global`, the
      copies of `--remat-materialize-globals`) into a buffer of the same
      type becomes `gpu.memcpy async` on the stream (`cuMemcpyAsync` reads
      the host global), so it is ordered after earlier kernels that used
      the buffer's memory;
    * a `gpu.wait async` without dependencies (a new stream: the one of a
      `remat_cuda_sgemm` call or of a `gpu.dealloc`) is replaced by the
      step's stream, and a `gpu.wait` that only waits for the step's
      stream is dropped; `gpu.dealloc async` on the stream stays on it;
    * the stream is created (`gpu.wait async`) before the first such op and
      waited for (`gpu.wait`) once: before the terminator, or before host
      code that could read or write memory the kernels use (any op with
      memory effects other than allocation), after which a new stream is
      opened when needed.

    So a training step is one stream and one synchronization (unless host
    code sits between its kernels). Launches whose constant grid or block
    sizes exceed CUDA's limits (grid x 2^31 - 1, y and z 65535, 1024
    threads per block) are refused with an error at the launch.

    Before:
    ```mlir
    gpu.launch_func @k::@a blocks in (%c4, %c1, %c1) threads in (%c256, %c1, %c1) args(...)
    %t = gpu.wait async
    call @remat_cuda_sgemm(%t, ...) : (!gpu.async.token, ...) -> ()
    gpu.wait [%t]
    gpu.launch_func @k::@b blocks in (%c4, %c1, %c1) threads in (%c256, %c1, %c1) args(...)
    return
    ```
    After:
    ```mlir
    %s = gpu.wait async
    %0 = gpu.launch_func async [%s] @k::@a ...
    call @remat_cuda_sgemm(%0, ...) : (!gpu.async.token, ...) -> ()
    %1 = gpu.launch_func async [%0] @k::@b ...
    gpu.wait [%1]
    return
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def RematCpuVectorize : Pass<"remat-cpu-vectorize", "mlir::ModuleOp"> {
  let summary = "Tiles host linalg ops on buffers by one parallel dimension "
                "and vectorises each tile with upstream linalg::vectorize";
  let description = [{
    The opt-in upstream path for the loops that do not call a library
    (`remat-compile --cpu-vectorize=upstream`). For every linalg op on
    buffers with static sizes, one parallel loop dimension `d` is chosen:
    the innermost parallel dimension whose trip count is a multiple of
    `vector-size` and that every operand either indexes only in its last,
    unit-stride dimension or does not index at all (a broadcast). The op is
    tiled with `scf::tileUsingSCF` (tile size `vector-size` along `d`, 1
    along every other dimension, loops in the op's own dimension order),
    and the tile is vectorised by `linalg::vectorize`; the unit dimensions
    of the transfers are dropped and the subviews folded into them. Ops
    without such a dimension, or that the vectoriser rejects, are left for
    `convert-linalg-to-loops` (and LLVM's own vectorizers). With
    `contractions-only`, only contractions are considered (remat-compile's
    default: the f64/f16/bf16 matmuls, which LLVM leaves scalar since their
    innermost loop is the reduction).

    With `min-work` (remat-compile passes `--parallel-threshold`), an op
    directly in a function body that `remat-cpu-parallel-loops` would share
    among OpenMP threads (the same rule: at least `min-work` iteration
    points, a parallel first loop, output ranges a cache line apart), and
    whose first dimension gives at least two tiles, becomes an `scf.if`
    under the same thread test (`omp_get_max_threads()` once per function,
    above 1, and for an op with a reduction at most the threads that write
    their own cache lines): the then-branch holds the vectorised tile loops
    with the outermost one, over the first dimension, an `scf.parallel`
    (its body computing the views it uses itself), the else-branch the same
    loops all sequential. Each tile of the first dimension writes its own
    output elements and computes them as on one thread, so the results do
    not depend on the number of threads.

    Reduction dimensions are tiled by 1, so each tile reduces one element
    per step: every output element sees its reduction in the loop order of
    `convert-linalg-to-loops`, and the vector lanes are distinct output
    elements. No floating-point reduction is reassociated and no `fma` is
    formed (no `vector.contract`): the results are bitwise those of the
    scalar loops.

    Before (`vector-size=8`):
    ```mlir
    linalg.generic {indexing_maps = [#id, #id],
                    iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<4x16xf32>) outs(%b : memref<4x16xf32>) {
    ^bb0(%x: f32, %y: f32):
      %e = math.exp %x : f32
      linalg.yield %e : f32
    }
    ```
    After:
    ```mlir
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c16 step %c8 {
        %v = vector.transfer_read %a[%i, %j], %pad {in_bounds = [true]}
            : memref<4x16xf32>, vector<8xf32>
        %e = math.exp %v : vector<8xf32>
        vector.transfer_write %e, %b[%i, %j] {in_bounds = [true]}
            : vector<8xf32>, memref<4x16xf32>
      }
    }
    ```
  }];
  let options = [
    Option<"vectorSize", "vector-size", "int64_t", /*default=*/"8",
           "Lanes of the vectorised dimension (a tile's size along it)">,
    Option<"contractionsOnly", "contractions-only", "bool",
           /*default=*/"false",
           "Only contractions (linalg::isaContractionOpInterface: matmuls, "
           "batch matmuls and their generic forms that call no library)">,
    Option<"minWork", "min-work", "int64_t", /*default=*/"-1",
           "Ops directly in a function body that remat-cpu-parallel-loops "
           "with this min-work would share among threads get their "
           "outermost tile loop as an scf.parallel under the same thread "
           "test; -1: every tile loop sequential">,
    Option<"bodyWork", "body-work", "bool", /*default=*/"false",
           "As remat-cpu-parallel-loops' body-work: min-work counts "
           "iteration points times the work of one point">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def RematCpuRowReductions
    : Pass<"remat-cpu-row-reductions", "mlir::ModuleOp"> {
  let summary = "Folds host row reductions over the unit-stride dimension "
                "in vector lanes, then the lanes in a fixed tree";
  let description = [{
    A `linalg.generic` on buffers with static sizes whose one reduction
    dimension is its last loop dimension, of at least `min-length`
    iterations, that every input indexes (if at all) only in its last,
    unit-stride dimension, whose body is elementwise arithmetic (ops with
    the `Elementwise` trait, constants) and folds each output once with
    `arith.addf`, `mulf`, `maximumf`, `minimumf`, `maxnumf` or `minnumf`
    (the folds `remat-gpu-block-reductions` matches), becomes a loop nest
    over its parallel dimensions whose body reduces the row in `lanes`
    (a power of 2) vector lanes: softmax, log-softmax and layer-norm rows,
    their gradients' row sums. The order, for a row of `n` elements
    `x_0 .. x_(n-1)` (the body's value at each reduced index) folded into
    the output's value `y` (docs/Conventions.md, "Row reductions (CPU)"):
    lane `l` starts at the fold's identity (-0.0 for a sum) and folds
    `x_k` for every `k` with `k mod lanes = l`, in increasing `k`; then
    lane `l` is folded with lane `l + w/2` for `w = lanes, lanes/2, .., 2`
    (a tree: for 8 lanes `((p0+p4) + (p2+p6)) + ((p1+p5) + (p3+p7))`);
    the output becomes `y` folded with the tree's result. The order depends
    only on `n` and `lanes`: the same for every strategy, thread count and
    `--cpu-vectorize` choice. Each row is reduced by one thread. With
    `min-work` (remat-compile passes `--parallel-threshold`), an op that
    `remat-cpu-parallel-loops` would share among threads (the same rule)
    gets its outermost loop as an `scf.parallel` under the same thread
    test, with a sequential copy for one thread.

    Before (`lanes=8`):
    ```mlir
    linalg.generic {indexing_maps = [#id, #rows],
                    iterator_types = ["parallel", "reduction"]}
        ins(%a : memref<4x20xf32>) outs(%s : memref<4xf32>) {
    ^bb0(%x: f32, %y: f32):
      %e = math.exp %x : f32
      %t = arith.addf %y, %e : f32
      linalg.yield %t : f32
    }
    ```
    After (abridged):
    ```mlir
    scf.for %i = %c0 to %c4 step %c1 {
      %p = scf.for %k = %c0 to %c16 step %c8 iter_args(%acc = %minus_zero)
          -> (vector<8xf32>) {
        %x = vector.load %a[%i, %k] : memref<4x20xf32>, vector<8xf32>
        %e = math.exp %x : vector<8xf32>
        %t = arith.addf %acc, %e : vector<8xf32>
        scf.yield %t : vector<8xf32>
      }
      %x = vector.maskedload %a[%i, %c16], %first4, %zeros ...
      %e = math.exp %x : vector<8xf32>
      %t = arith.addf %p, %e : vector<8xf32>
      %q = arith.select %first4, %t, %p : vector<8xi1>, vector<8xf32>
      // lanes l + 4, l + 2, l + 1 (vector.extract_strided_slice, addf)
      ...
      %y = memref.load %s[%i] : memref<4xf32>
      %r = arith.addf %y, %total : f32
      memref.store %r, %s[%i] : memref<4xf32>
    }
    ```
  }];
  let options = [
    Option<"lanes", "lanes", "int64_t", /*default=*/"8",
           "Vector lanes of each row's partial folds (a power of 2)">,
    Option<"minLength", "min-length", "int64_t", /*default=*/"16",
           "Rows shorter than this stay convert-linalg-to-loops' loops">,
    Option<"minWork", "min-work", "int64_t", /*default=*/"-1",
           "As remat-cpu-vectorize's min-work: ops remat-cpu-parallel-loops "
           "would share among threads get their outer loop on threads; -1: "
           "every loop sequential">,
    Option<"bodyWork", "body-work", "bool", /*default=*/"false",
           "As remat-cpu-parallel-loops' body-work: min-work counts "
           "iteration points times the work of one point">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect", "::mlir::func::FuncDialect"
  ];
}

#endif // REMAT_DRIVER_PASSES_TD
