// RUN: remat-opt %s --remat-gpu-block-reductions --split-input-file | FileCheck %s
// RUN: remat-opt %s --remat-gpu-block-reductions=block-size=64 --split-input-file | FileCheck %s --check-prefix=B64
// RUN: remat-opt %s --remat-gpu-block-reductions=block-size=1024 --split-input-file | FileCheck %s --check-prefix=B1024
// RUN: not remat-opt %s --remat-gpu-block-reductions=block-size=2048 --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: remat-opt %s --remat-gpu-block-reductions=cpu=1 --split-input-file | FileCheck %s --check-prefix=CPU
// RUN: remat-opt %s --remat-gpu-block-reductions=warp-min-outputs=1000 --split-input-file | FileCheck %s --check-prefix=FEW
// RUN: remat-opt %s --remat-gpu-block-reductions=remarks=1 --split-input-file --mlir-print-op-on-diagnostic=false 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: not remat-opt %s --remat-gpu-block-reductions=warp-min-outputs=0 --split-input-file 2>&1 | FileCheck %s --check-prefix=BADWARP
// BADWARP: warp-min-outputs must be at least 1, got 0
// BAD: block-size must be in [1, 1024], got 2048

// A row sum of 1000 elements: one block per row (grid 4), 256 threads
// (the block size caps the next power of two, 1024), a workgroup buffer of
// 256 floats; thread t folds t, t + 256, ... into -0.0, then 8 tree steps
// (strides 128 .. 1), each followed by a barrier; thread 0 adds the block's
// sum to the output.
// CHECK-LABEL: func.func @row_sum
// CHECK-SAME: (%[[X:.*]]: memref<4x1000xf32>, %[[OUT:.*]]: memref<4xf32>)
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[GRID:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[B:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[GRID]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]]) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[B]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]]) workgroup(%[[P:.*]] : memref<256xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[NEG0:.*]] = arith.constant -0.000000e+00 : f32
// CHECK: %[[PART:.*]] = scf.for %[[R:.*]] = %[[TX]] to %c1000{{.*}} step %c256{{.*}} iter_args(%[[ACC:.*]] = %[[NEG0]]) -> (f32) {
// CHECK: %[[V:.*]] = memref.load %[[X]][%[[BX]], %[[R]]]
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[V]] : f32
// CHECK: scf.yield %[[S]]
// CHECK: memref.store %[[PART]], %[[P]][%[[TX]]]
// CHECK-NEXT: gpu.barrier
// CHECK: arith.cmpi ult, %[[TX]], %c128
// CHECK: scf.if
// CHECK: %[[T:.*]] = arith.addi %[[TX]], %c128
// CHECK: %[[MINE:.*]] = memref.load %[[P]][%[[TX]]]
// CHECK: %[[THEIRS:.*]] = memref.load %[[P]][%[[T]]]
// CHECK: %[[SUM:.*]] = arith.addf %[[MINE]], %[[THEIRS]] : f32
// CHECK: memref.store %[[SUM]], %[[P]][%[[TX]]]
// CHECK: gpu.barrier
// CHECK-COUNT-6: gpu.barrier
// CHECK: arith.cmpi ult, %[[TX]], %c1{{(_[0-9]+)?}} :
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TX]], %c0
// CHECK: scf.if %[[FIRST]]
// CHECK: %[[OLD:.*]] = memref.load %[[OUT]][%[[BX]]]
// CHECK: %[[TOTAL:.*]] = memref.load %[[P]][%c0
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %[[TOTAL]] : f32
// CHECK: memref.store %[[NEW]], %[[OUT]][%[[BX]]]
// CHECK: gpu.terminator
// CHECK-NOT: linalg.generic
// B64-LABEL: func.func @row_sum
// B64: threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c64{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) workgroup(%{{.*}} : memref<64xf32, #gpu.address_space<workgroup>>)
// B64-COUNT-7: gpu.barrier
// B64-NOT: gpu.barrier
// With cpu=1 the same order as host loops: a heap buffer of 256 partial
// sums, a loop over the 4 outputs (blocks), in it a loop over the 256
// threads folding t, t + 256, ..., then per tree step a loop over the
// threads t < s, then the output update; no kernel, no barrier.
// CPU-LABEL: func.func @row_sum
// CPU-SAME: (%[[X:.*]]: memref<4x1000xf32>, %[[OUT:.*]]: memref<4xf32>)
// CPU-NOT: gpu.
// CPU: %[[P:.*]] = memref.alloc() : memref<256xf32>
// CPU: scf.for %[[BX:.*]] = %c0{{.*}} to %c4{{.*}} step %c1
// CPU: scf.for %[[TX:.*]] = %c0{{.*}} to %c256{{.*}} step %c1
// CPU: %[[NEG0:.*]] = arith.constant -0.000000e+00 : f32
// CPU: %[[PART:.*]] = scf.for %[[R:.*]] = %[[TX]] to %c1000{{.*}} step %c256{{.*}} iter_args(%[[ACC:.*]] = %[[NEG0]]) -> (f32) {
// CPU: memref.load %[[X]][%[[BX]], %[[R]]]
// CPU: arith.addf %[[ACC]]
// CPU: memref.store %[[PART]], %[[P]][%[[TX]]]
// CPU: scf.for %[[T:.*]] = %c0{{.*}} to %c128{{.*}} step %c1
// CPU: %[[OTHER:.*]] = arith.addi %[[T]], %c128
// CPU: %[[MINE:.*]] = memref.load %[[P]][%[[T]]]
// CPU: %[[THEIRS:.*]] = memref.load %[[P]][%[[OTHER]]]
// CPU: %[[SUM:.*]] = arith.addf %[[MINE]], %[[THEIRS]] : f32
// CPU: memref.store %[[SUM]], %[[P]][%[[T]]]
// CPU-COUNT-6: scf.for
// CPU: %[[OLD:.*]] = memref.load %[[OUT]][%[[BX]]]
// CPU: %[[TOTAL:.*]] = memref.load %[[P]][%c0
// CPU: %[[NEW:.*]] = arith.addf %[[OLD]], %[[TOTAL]] : f32
// CPU: memref.store %[[NEW]], %[[OUT]][%[[BX]]]
// CPU: memref.dealloc %[[P]]
// CPU-NOT: gpu.
// CPU-NOT: linalg.generic
// CPU: return
func.func @row_sum(%x: memref<4x1000xf32>, %out: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x1000xf32>) outs(%out : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A full reduction (a loss's sum over 16 x 8 elements, no parallel loop):
// one block of 128 threads (the next power of two). The maximum's identity
// is -inf.
// CHECK-LABEL: func.func @full_max
// B64-LABEL: func.func @full_max
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c1{{(_[0-9]+)?}}, %{{.*}} = %c1{{(_[0-9]+)?}}, %{{.*}} = %c1{{(_[0-9]+)?}}) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c128{{(_[0-9]+)?}},
// CHECK-SAME: workgroup(%{{.*}} : memref<128xf32, #gpu.address_space<workgroup>>)
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: scf.for
// CHECK: arith.maximumf
// CHECK-COUNT-8: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: memref.load %{{.*}}[] : memref<f32>
// CHECK: arith.maximumf
// CHECK: memref.store %{{.*}}, %{{.*}}[] : memref<f32>
func.func @full_max(%x: memref<16x8xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                  iterator_types = ["reduction", "reduction"]}
      ins(%x : memref<16x8xf32>) outs(%out : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %acc, %a : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// Normalization statistics: two f64 outputs (sum and sum of squares of the
// widened input) over the reduction loops (n, h, w) of a channel, the
// reduction loops outer and inner of the parallel one; one workgroup buffer
// per output, the body (extf, mulf) cloned into the fold loop, linalg.index
// replaced by the loop index.
// CHECK-LABEL: func.func @norm_stats
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c3{{(_[0-9]+)?}},
// CHECK-SAME: threads({{.*}}) in (%{{.*}} = %c64{{(_[0-9]+)?}},
// CHECK-SAME: workgroup(%[[P0:.*]] : memref<64xf64, #gpu.address_space<workgroup>>, %[[P1:.*]] : memref<64xf64, #gpu.address_space<workgroup>>)
// CHECK: scf.for {{.*}} -> (f64, f64)
// CHECK: arith.extf
// CHECK: arith.index_cast
// CHECK: arith.addf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: scf.yield
// CHECK: memref.store %{{.*}}, %[[P0]]
// CHECK: memref.store %{{.*}}, %[[P1]]
// CHECK-COUNT-7: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK-NOT: linalg.generic
func.func @norm_stats(%x: memref<2x3x4x5xf32>, %sum: memref<3xf64>, %sq: memref<3xf64>) {
  linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>,
                                   affine_map<(n, c, h, w) -> (c)>,
                                   affine_map<(n, c, h, w) -> (c)>],
                  iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : memref<2x3x4x5xf32>) outs(%sum, %sq : memref<3xf64>, memref<3xf64>) {
  ^bb0(%a: f32, %s: f64, %q: f64):
    %w = arith.extf %a : f32 to f64
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    %s2 = arith.addf %s, %w : f64
    %sq2 = arith.mulf %w, %w : f64
    %q2 = arith.addf %q, %sq2 : f64
    linalg.yield %s2, %q2 : f64, f64
  }
  return
}

// -----

// A cross-entropy loss: the sum over 8 x 64 tokens of log(sum) + max -
// logit[label], the logit read by a memref.load at the token's label from a
// buffer the op does not write (a gather). One block of 256 threads; the
// load is cloned into the fold loop at the delinearized token (i, j).
// CHECK-LABEL: func.func @gather_loss
// CHECK-SAME: (%[[M:.*]]: memref<8x64xf32>, %[[S:.*]]: memref<8x64xf32>, %[[L:.*]]: memref<8x64xi64>, %[[LOGITS:.*]]: memref<8x64x100xf32>, %[[OUT:.*]]: memref<f32>)
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c1{{(_[0-9]+)?}}, %{{.*}} = %c1{{(_[0-9]+)?}}, %{{.*}} = %c1{{(_[0-9]+)?}}) threads(%[[TX:[a-z0-9]+]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256{{(_[0-9]+)?}},
// CHECK-SAME: workgroup(%{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>)
// CHECK: scf.for %[[R:.*]] = %[[TX]] to %c512{{.*}} step %c256
// CHECK: %[[J:.*]] = arith.remui %[[R]], %c64
// CHECK: %[[I:.*]] = arith.divui %[[R]], %c64
// CHECK: %[[LABEL:.*]] = memref.load %[[L]][%[[I]], %[[J]]]
// CHECK: %[[C:.*]] = arith.index_cast %[[LABEL]] : i64 to index
// CHECK: memref.load %[[LOGITS]][%[[I]], %[[J]], %[[C]]]
// CHECK: math.log
// CHECK: arith.subf
// CHECK: arith.addf
// CHECK: scf.yield
// CHECK-COUNT-9: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK-NOT: linalg.generic
func.func @gather_loss(%m: memref<8x64xf32>, %s: memref<8x64xf32>, %l: memref<8x64xi64>,
                       %logits: memref<8x64x100xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>,
                                   affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                  iterator_types = ["reduction", "reduction"]}
      ins(%m, %s, %l : memref<8x64xf32>, memref<8x64xf32>, memref<8x64xi64>) outs(%out : memref<f32>) {
  ^bb0(%max: f32, %sum: f32, %label: i64, %acc: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c = arith.index_cast %label : i64 to index
    %logit = memref.load %logits[%i, %j, %c] : memref<8x64x100xf32>
    %log = math.log %sum : f32
    %lse = arith.addf %max, %log : f32
    %nll = arith.subf %lse, %logit : f32
    %r = arith.addf %acc, %nll : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Left alone: a body that loads from the op's own output (the sequential
// order would see the partial sums; a block could not).
// CHECK-LABEL: func.func @reads_output
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
// CHECK-NOT: gpu.launch
func.func @reads_output(%x: memref<4x1000xf32>, %out: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x1000xf32>) outs(%out : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %c0 = arith.constant 0 : index
    %first = memref.load %out[%c0] : memref<4xf32>
    %v = arith.mulf %a, %first : f32
    %r = arith.addf %acc, %v : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Left to the loop mapping: a reduction of 10 elements per output (a
// softmax row of 10 classes), an accumulator used twice, a combiner whose
// result is used again, an integer sum, and an elementwise op.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: gpu.launch
// CHECK-COUNT-5: linalg.generic
// CHECK-NOT: gpu.launch
func.func @kept(%x: memref<16x10xf32>, %out: memref<16xf32>, %i: memref<16x64xi32>, %iout: memref<16xi32>,
                %y: memref<16x64xf32>, %yout: memref<16xf32>, %e: memref<16x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<16x10xf32>) outs(%out : memref<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%y : memref<16x64xf32>) outs(%yout : memref<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.mulf %acc, %a : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%y : memref<16x64xf32>) outs(%yout : memref<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    %t = arith.mulf %s, %s : f32
    linalg.yield %t : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%i : memref<16x64xi32>) outs(%iout : memref<16xi32>) {
  ^bb0(%a: i32, %acc: i32):
    %s = arith.addi %acc, %a : i32
    linalg.yield %s : i32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%y : memref<16x64xf32>) outs(%e : memref<16x64xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Shared memory: with 1024 threads, six f64 sums need 48 KiB (CUDA's static
// limit, accepted), seven would need 56 KiB and stay a loop nest.
// CHECK-LABEL: func.func @shared_limit
// B1024-LABEL: func.func @shared_limit
// B1024: gpu.launch
// B1024-SAME: threads({{.*}}) in (%{{.*}} = %c1024
// B1024-NOT: gpu.launch
// B1024: linalg.generic
// B1024-NOT: gpu.launch
func.func @shared_limit(%x: memref<2000xf64>, %o: memref<f64>) {
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>, affine_map<(i) -> ()>,
                                   affine_map<(i) -> ()>, affine_map<(i) -> ()>, affine_map<(i) -> ()>,
                                   affine_map<(i) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%x : memref<2000xf64>) outs(%o, %o, %o, %o, %o, %o : memref<f64>, memref<f64>, memref<f64>, memref<f64>, memref<f64>, memref<f64>) {
  ^bb0(%a: f64, %o0: f64, %o1: f64, %o2: f64, %o3: f64, %o4: f64, %o5: f64):
    %s0 = arith.addf %o0, %a : f64
    %s1 = arith.addf %o1, %a : f64
    %s2 = arith.addf %o2, %a : f64
    %s3 = arith.addf %o3, %a : f64
    %s4 = arith.addf %o4, %a : f64
    %s5 = arith.addf %o5, %a : f64
    linalg.yield %s0, %s1, %s2, %s3, %s4, %s5 : f64, f64, f64, f64, f64, f64
  }
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>, affine_map<(i) -> ()>,
                                   affine_map<(i) -> ()>, affine_map<(i) -> ()>, affine_map<(i) -> ()>,
                                   affine_map<(i) -> ()>, affine_map<(i) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%x : memref<2000xf64>) outs(%o, %o, %o, %o, %o, %o, %o : memref<f64>, memref<f64>, memref<f64>, memref<f64>, memref<f64>, memref<f64>, memref<f64>) {
  ^bb0(%a: f64, %o0: f64, %o1: f64, %o2: f64, %o3: f64, %o4: f64, %o5: f64, %o6: f64):
    %s0 = arith.addf %o0, %a : f64
    %s1 = arith.addf %o1, %a : f64
    %s2 = arith.addf %o2, %a : f64
    %s3 = arith.addf %o3, %a : f64
    %s4 = arith.addf %o4, %a : f64
    %s5 = arith.addf %o5, %a : f64
    %s6 = arith.addf %o6, %a : f64
    linalg.yield %s0, %s1, %s2, %s3, %s4, %s5, %s6 : f64, f64, f64, f64, f64, f64, f64
  }
  return
}

// -----

// Many outputs of a moderate length (300 rows of 96, at least
// warp-min-outputs = 128 outputs and at most 1024 elements): one warp per
// row, 8 warps per block of 256 threads, a grid of ceil(300 / 8) = 38 blocks.
// Lane l = tx mod 32 of warp w = tx / 32 folds elements l, l + 32, l + 64
// of row 8 bx + w into -0.0; the warps of rows past 299 skip everything;
// then five shuffles down by 16, 8, 4, 2, 1 (width 32), each followed by
// the combiner (mine + theirs: the block tree's order for 32 threads), and
// lane 0 adds the row's sum to the output. No shared memory, no barrier.
// CHECK-LABEL: func.func @warp_rows
// CHECK-SAME: (%[[X:.*]]: memref<300x96xf32>, %[[OUT:.*]]: memref<300xf32>)
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[B:.*]] = arith.constant 256 : index
// CHECK-DAG: %[[GRID:.*]] = arith.constant 38 : index
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[GRID]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]]) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[B]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]]) {
// CHECK: %[[LANE:.*]] = arith.remui %[[TX]], %c32
// CHECK: %[[WARP:.*]] = arith.divui %[[TX]], %c32
// CHECK: %[[BASE:.*]] = arith.muli %[[BX]], %c8
// CHECK: %[[ROW:.*]] = arith.addi %[[BASE]], %[[WARP]]
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[ROW]], %c300
// CHECK: scf.if %[[IN]] {
// CHECK: %[[NEG0:.*]] = arith.constant -0.000000e+00 : f32
// CHECK: %[[PART:.*]] = scf.for %[[R:.*]] = %[[LANE]] to %c96{{.*}} step %c32{{.*}} iter_args(%[[ACC:.*]] = %[[NEG0]]) -> (f32) {
// CHECK: %[[V:.*]] = memref.load %[[X]][%[[ROW]], %[[R]]]
// CHECK: arith.addf %[[ACC]], %[[V]] : f32
// CHECK: %[[S16:.*]], %{{.*}} = gpu.shuffle down %[[PART]], %c16_i32, %c32_i32 : f32
// CHECK: %[[P16:.*]] = arith.addf %[[PART]], %[[S16]] : f32
// CHECK: %[[S8:.*]], %{{.*}} = gpu.shuffle down %[[P16]], %c8_i32, %c32_i32{{.*}} : f32
// CHECK: %[[P8:.*]] = arith.addf %[[P16]], %[[S8]] : f32
// CHECK: gpu.shuffle down %{{.*}}, %c4_i32
// CHECK: gpu.shuffle down %{{.*}}, %c2_i32
// CHECK: %[[S1:.*]], %{{.*}} = gpu.shuffle down %[[P2:.*]], %c1_i32, %c32_i32{{.*}} : f32
// CHECK: %[[P1:.*]] = arith.addf %[[P2]], %[[S1]] : f32
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]], %c0
// CHECK: scf.if %[[FIRST]] {
// CHECK: %[[OLD:.*]] = memref.load %[[OUT]][%[[ROW]]]
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %[[P1]] : f32
// CHECK: memref.store %[[NEW]], %[[OUT]][%[[ROW]]]
// CHECK: gpu.terminator
// CHECK-NOT: gpu.barrier
// CHECK-NOT: linalg.generic
// With block-size=64: two warps per block, 150 blocks.
// B64-LABEL: func.func @warp_rows
// B64: gpu.launch blocks({{.*}}) in (%{{.*}} = %c150{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads({{.*}}) in (%{{.*}} = %c64{{.*}},
// B64: arith.muli %{{.*}}, %c2
// B64-COUNT-5: gpu.shuffle down
// With block-size=1024: 32 warps per block, 10 blocks.
// B1024-LABEL: func.func @warp_rows
// B1024: gpu.launch blocks({{.*}}) in (%{{.*}} = %c10{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads({{.*}}) in (%{{.*}} = %c1024{{.*}},
// B1024: arith.muli %{{.*}}, %c32
// Fewer outputs than warp-min-outputs: one block of 128 threads per row.
// FEW-LABEL: func.func @warp_rows
// FEW: gpu.launch blocks({{.*}}) in (%{{.*}} = %c300{{.*}}, {{.*}} threads({{.*}}) in (%{{.*}} = %c128{{.*}}, {{.*}} workgroup(%{{.*}} : memref<128xf32, #gpu.address_space<workgroup>>)
// FEW-NOT: gpu.shuffle
// FEW-COUNT-8: gpu.barrier
// With cpu=1 the warp's order as host loops: the block loops of 32 threads
// (32 partial sums, tree steps 16 .. 1).
// CPU-LABEL: func.func @warp_rows
// CPU: %[[P:.*]] = memref.alloc() : memref<32xf32>
// CPU: scf.for %[[ROW:.*]] = %c0{{.*}} to %c300{{.*}} step %c1
// CPU: scf.for %[[LANE:.*]] = %c0{{.*}} to %c32{{.*}} step %c1
// CPU: scf.for %{{.*}} = %[[LANE]] to %c96{{.*}} step %c32
// CPU: scf.for %{{.*}} = %c0{{.*}} to %c16{{.*}} step %c1
// CPU-COUNT-4: scf.for
// CPU: memref.dealloc %[[P]]
// CPU-NOT: gpu.
// REMARK: remark: reduction of 4 outputs x 1000 elements: one block of 256 threads per output
// REMARK: remark: reduction of 1 outputs x 128 elements: one block of 128 threads per output
// REMARK: remark: reduction of 300 outputs x 96 elements: one warp per output, 8 warps per block
func.func @warp_rows(%x: memref<300x96xf32>, %out: memref<300xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<300x96xf32>) outs(%out : memref<300xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Two f64 statistics (sum and sum of squares) of 256 rows of 64, the
// reduction loop outer: 32 blocks of 8 warps, no bound check (256 is a
// multiple of 8), each tree step shuffles both partial results.
// CHECK-LABEL: func.func @warp_stats
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c32{{(_[0-9]+)?}}, {{.*}} threads({{.*}}) in (%{{.*}} = %c256{{(_[0-9]+)?}}, {{.*}}) {
// CHECK-NOT: scf.if
// CHECK: scf.for {{.*}} -> (f64, f64)
// CHECK: arith.extf
// CHECK: arith.mulf
// CHECK: gpu.shuffle down %{{.*}}, %c16_i32, %c32_i32 : f64
// CHECK: gpu.shuffle down %{{.*}}, %c16_i32{{.*}}, %c32_i32{{.*}} : f64
// CHECK-COUNT-8: gpu.shuffle down
// CHECK-NOT: gpu.shuffle
// CHECK: scf.if
// CHECK-COUNT-2: memref.store
// CHECK-NOT: gpu.barrier
// REMARK: remark: reduction of 256 outputs x 64 elements: one warp per output, 8 warps per block
func.func @warp_stats(%x: memref<64x256xf32>, %sum: memref<256xf64>, %sq: memref<256xf64>) {
  linalg.generic {indexing_maps = [affine_map<(j, i) -> (j, i)>,
                                   affine_map<(j, i) -> (i)>,
                                   affine_map<(j, i) -> (i)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<64x256xf32>) outs(%sum, %sq : memref<256xf64>, memref<256xf64>) {
  ^bb0(%a: f32, %s: f64, %q: f64):
    %w = arith.extf %a : f32 to f64
    %w2 = arith.mulf %w, %w : f64
    %s1 = arith.addf %s, %w : f64
    %q1 = arith.addf %q, %w2 : f64
    linalg.yield %s1, %q1 : f64, f64
  }
  return
}

// -----

// Remarks for what stays sequential: a named op, a reduction shorter than
// min-reduction and a body the pass does not handle (the output read in
// the body).
// REMARK: remark: reduction of 64 outputs x 16 elements: sequential (a named op)
// REMARK: remark: reduction of 8 outputs x 10 elements: sequential (too short)
// REMARK: remark: reduction of 4 outputs x 1000 elements: sequential (not a fold this pass handles)
// CHECK-LABEL: func.func @remarks
// CHECK-NOT: gpu.launch
func.func @remarks(%a: memref<8x16xf32>, %b: memref<16x8xf32>, %c: memref<8x8xf32>,
                   %x: memref<8x10xf32>, %o: memref<8xf32>,
                   %y: memref<4x1000xf32>, %p: memref<4xf32>) {
  linalg.matmul ins(%a, %b : memref<8x16xf32>, memref<16x8xf32>) outs(%c : memref<8x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x10xf32>) outs(%o : memref<8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%y : memref<4x1000xf32>) outs(%p : memref<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    %t = arith.addf %s, %acc : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// Reductions of 8 to 31 elements with many outputs (a softmax over 10
// classes): one segment of 16 lanes per row, 2 per warp, 16 rows per block
// of 256 threads, grid ceil(300 / 16) = 19. Lane l folds l, l + 16, ...
// (at most one element here), then shuffles down by 8, 4, 2, 1 (width 32:
// the tree of a 16-thread block). 300 is not a multiple of 16: the last
// block's segments past row 299 read row 0, shuffle with their warp and
// store nothing. The CPU form is the block of 16 threads as host loops.
// CHECK-LABEL: func.func @segment_rows
// CHECK-DAG: %[[B:.*]] = arith.constant 256 : index
// CHECK-DAG: %[[GRID:.*]] = arith.constant 19 : index
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[GRID]], {{.*}} threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[B]],
// CHECK-NOT: workgroup
// CHECK: %[[LANE:.*]] = arith.remui %[[TX]], %c16
// CHECK: %[[SEG:.*]] = arith.divui %[[TX]], %c16
// CHECK: %[[BASE:.*]] = arith.muli %[[BX]], %c16
// CHECK: %[[ROW:.*]] = arith.addi %[[BASE]], %[[SEG]]
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[ROW]], %c300
// CHECK: %[[SAFE:.*]] = arith.select %[[IN]], %[[ROW]], %c0
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[PART:.*]] = scf.for %[[R:.*]] = %[[LANE]] to %c10 step %c16{{.*}} iter_args(%{{.*}} = %[[NEGINF]])
// CHECK: memref.load %{{.*}}[%[[SAFE]], %[[R]]]
// CHECK: gpu.shuffle down %[[PART]], %c8_i32, %c32_i32 : f32
// CHECK: gpu.shuffle down %{{.*}}, %c4_i32, %c32_i32{{.*}} : f32
// CHECK: gpu.shuffle down %{{.*}}, %c2_i32, %c32_i32{{.*}} : f32
// CHECK: gpu.shuffle down %{{.*}}, %c1_i32, %c32_i32{{.*}} : f32
// CHECK: %[[TOTAL:.*]] = arith.maximumf
// CHECK: %[[LEAD:.*]] = arith.cmpi eq, %[[LANE]], %c0
// CHECK: %[[STORE:.*]] = arith.andi %[[LEAD]], %[[IN]] : i1
// CHECK: scf.if %[[STORE]] {
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[SAFE]]]
// CPU-LABEL: func.func @segment_rows
// CPU: memref.alloc() : memref<16xf32>
// CPU: scf.for %{{.*}} = %c0{{.*}} to %c300
// CPU-NOT: gpu.
// REMARK: remark: reduction of 300 outputs x 10 elements: one segment of 16 lanes per output, 8 warps per block
func.func @segment_rows(%x: memref<300x10xf32>, %out: memref<300xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<300x10xf32>) outs(%out : memref<300xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.maximumf %acc, %a : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Segments of 8 lanes (4 rows per warp, 32 per block: grid 8, no guard),
// and rows of fewer than 8 elements stay one thread per output. With
// warp-min-outputs=1000 both stay sequential.
// CHECK-LABEL: func.func @segment_eight
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c8{{(_[0-9]+)?}}, {{.*}} threads({{.*}}) in (%{{.*}} = %c256
// CHECK-NOT: arith.select
// CHECK: gpu.shuffle down %{{.*}}, %c4_i32
// CHECK: gpu.shuffle down %{{.*}}, %c2_i32
// CHECK: gpu.shuffle down %{{.*}}, %c1_i32
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
// FEW-LABEL: func.func @segment_eight
// FEW-NOT: gpu.launch
// REMARK: remark: reduction of 256 outputs x 8 elements: one segment of 8 lanes per output, 8 warps per block
// REMARK: remark: reduction of 256 outputs x 7 elements: sequential (too short)
func.func @segment_eight(%x: memref<256x8xf32>, %out: memref<256xf32>,
                         %y: memref<256x7xf32>, %yout: memref<256xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<256x8xf32>) outs(%out : memref<256xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%y : memref<256x7xf32>) outs(%yout : memref<256xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  }
  return
}
