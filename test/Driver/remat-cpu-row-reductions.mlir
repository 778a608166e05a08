// RUN: remat-opt %s --remat-cpu-row-reductions | FileCheck %s
// RUN: remat-opt %s --remat-cpu-row-reductions='min-work=64' | FileCheck %s --check-prefix=PAR
// RUN: not remat-opt %s --remat-cpu-row-reductions='lanes=6' 2>&1 | FileCheck %s --check-prefix=LANES
// The CPU pipeline runs it by default (every --cpu-vectorize choice) and
// lowers the vector ops; row-reductions=0 leaves the scalar loops.
// RUN: remat-opt %s --remat-cpu-llvm-pipeline | FileCheck %s --check-prefix=LLVM
// RUN: remat-opt %s --remat-cpu-llvm-pipeline='row-reductions=0' | FileCheck %s --check-prefix=OFF

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>

// Softmax's denominators: rows of 20 = two whole vectors of 8 lanes and
// 4 elements in the first lanes of a masked one; the row max broadcast.
// Lane l starts at -0.0 and adds the elements k = l mod 8 in increasing
// k; then lanes l + 4, l + 2, l + 1; the output's old value plus that last.
// CHECK-LABEL: func.func @sum_exp
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %c4 step %c1 {
// CHECK: %[[ID:.*]] = arith.constant dense<-0.000000e+00> : vector<8xf32>
// CHECK: %[[P:.*]] = scf.for %[[K:.*]] = %{{.*}} to %c16 step %c8 iter_args(%[[ACC:.*]] = %[[ID]]) -> (vector<8xf32>) {
// CHECK: %[[X:.*]] = vector.load %arg0[%[[I]], %[[K]]] : memref<4x20xf32>, vector<8xf32>
// CHECK: %[[M:.*]] = memref.load %arg1[%[[I]]]
// CHECK: %[[MB:.*]] = vector.broadcast %[[M]] : f32 to vector<8xf32>
// CHECK: %[[D:.*]] = arith.subf %[[X]], %[[MB]] : vector<8xf32>
// CHECK: %[[E:.*]] = math.exp %[[D]] : vector<8xf32>
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[E]] : vector<8xf32>
// CHECK: scf.yield %[[S]]
// CHECK: %[[MASK:.*]] = arith.constant dense<[true, true, true, true, false, false, false, false]> : vector<8xi1>
// CHECK: %[[T:.*]] = vector.maskedload %arg0[%[[I]], %c16], %[[MASK]]
// CHECK: math.exp
// CHECK: %[[TS:.*]] = arith.addf %[[P]], %{{.*}} : vector<8xf32>
// CHECK: %[[Q:.*]] = arith.select %[[MASK]], %[[TS]], %[[P]]
// CHECK: %[[LO4:.*]] = vector.extract_strided_slice %[[Q]] {offsets = [0], sizes = [4], strides = [1]}
// CHECK: %[[HI4:.*]] = vector.extract_strided_slice %[[Q]] {offsets = [4], sizes = [4], strides = [1]}
// CHECK: %[[S4:.*]] = arith.addf %[[LO4]], %[[HI4]] : vector<4xf32>
// CHECK: %[[LO2:.*]] = vector.extract_strided_slice %[[S4]] {offsets = [0], sizes = [2], strides = [1]}
// CHECK: %[[HI2:.*]] = vector.extract_strided_slice %[[S4]] {offsets = [2], sizes = [2], strides = [1]}
// CHECK: %[[S2:.*]] = arith.addf %[[LO2]], %[[HI2]] : vector<2xf32>
// CHECK: %[[LO1:.*]] = vector.extract_strided_slice %[[S2]] {offsets = [0], sizes = [1], strides = [1]}
// CHECK: %[[HI1:.*]] = vector.extract_strided_slice %[[S2]] {offsets = [1], sizes = [1], strides = [1]}
// CHECK: %[[S1:.*]] = arith.addf %[[LO1]], %[[HI1]] : vector<1xf32>
// CHECK: %[[TOTAL:.*]] = vector.extract %[[S1]][0] : f32 from vector<1xf32>
// CHECK: %[[OLD:.*]] = memref.load %arg2[%[[I]]]
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %[[TOTAL]] : f32
// CHECK: memref.store %[[NEW]], %arg2[%[[I]]]
// CHECK-NOT: linalg.generic
// CHECK: return
// With min-work, too few rows for two threads to write their own cache
// lines (4 f32 outputs): sequential.
// PAR-LABEL: func.func @sum_exp
// PAR-NOT: scf.parallel
// PAR: return
// LLVM-LABEL: llvm.func @sum_exp
// LLVM: llvm.load {{.*}} vector<8xf32>
// LLVM: llvm.intr.masked.load
// LLVM: llvm.shufflevector
// LLVM-NOT: omp.
// LLVM: llvm.return
// OFF-LABEL: llvm.func @sum_exp
// OFF-NOT: vector<
// OFF: llvm.return
func.func @sum_exp(%a: memref<4x20xf32>, %m: memref<4xf32>, %s: memref<4xf32>) {
  linalg.generic {indexing_maps = [#id, #rows, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%a, %m : memref<4x20xf32>, memref<4xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%x: f32, %mx: f32, %y: f32):
    %d = arith.subf %x, %mx : f32
    %e = math.exp %d : f32
    %t = arith.addf %y, %e : f32
    linalg.yield %t : f32
  }
  return
}

// Two folds in one op: a row max (identity -inf, no tail) and a layer
// norm's f64 sum of squares with a constant from the body.
// CHECK-LABEL: func.func @max_and_squares
// CHECK-DAG: arith.constant dense<0xFF800000> : vector<8xf32>
// CHECK-DAG: arith.constant dense<-0.000000e+00> : vector<8xf64>
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf64>)
// CHECK: arith.extf %{{.*}} : vector<8xf32> to vector<8xf64>
// CHECK: arith.mulf %{{.*}} : vector<8xf64>
// CHECK: arith.maximumf %{{.*}} : vector<8xf32>
// CHECK: arith.addf %{{.*}} : vector<8xf64>
// CHECK-NOT: vector.maskedload
// CHECK: arith.maximumf %{{.*}} : vector<4xf32>
// CHECK: arith.maximumf %{{.*}} : f32
// CHECK: arith.addf %{{.*}} : vector<4xf64>
// CHECK: arith.addf %{{.*}} : f64
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @max_and_squares(%a: memref<2x32xf32>, %mx: memref<2xf32>, %sq: memref<2xf64>) {
  linalg.generic {indexing_maps = [#id, #rows, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<2x32xf32>) outs(%mx, %sq : memref<2xf32>, memref<2xf64>) {
  ^bb0(%x: f32, %m: f32, %s: f64):
    %mm = arith.maximumf %x, %m : f32
    %w = arith.extf %x : f32 to f64
    %half = arith.constant 0.5 : f64
    %h = arith.mulf %w, %half : f64
    %q = arith.mulf %h, %w : f64
    %t = arith.addf %s, %q : f64
    linalg.yield %mm, %t : f32, f64
  }
  return
}

// 64 rows of 16: the rows shared among at most 4 threads (256 bytes of
// outputs) with min-work, each row in one thread.
// PAR-LABEL: func.func @wide
// PAR: %[[N:.*]] = call @omp_get_max_threads()
// PAR: arith.cmpi sle, %[[N]], %{{.*}}
// PAR: scf.if
// PAR: scf.parallel
// PAR: scf.for {{.*}} iter_args
// PAR: vector.load
// PAR: } else {
// PAR: scf.for
// PAR: scf.for {{.*}} iter_args
// PAR: vector.load
// PAR: return
func.func @wide(%a: memref<64x16xf32>, %s: memref<64xf32>) {
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<64x16xf32>) outs(%s : memref<64xf32>) {
  ^bb0(%x: f32, %y: f32):
    %t = arith.addf %y, %x : f32
    linalg.yield %t : f32
  }
  return
}

// Left as they are: a sum over the outer dimension, rows shorter than 16,
// a row read with a stride (transposed), a body that reads the index.
// CHECK-LABEL: func.func @not_rows
// CHECK-NOT: vector.
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT: vector.
// CHECK: return
func.func @not_rows(%a: memref<32x32xf32>, %b: memref<32xf32>, %c: memref<4x8xf32>, %d: memref<4xf32>) {
  linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<32x32xf32>) outs(%b : memref<32xf32>) {
  ^bb0(%x: f32, %y: f32):
    %t = arith.addf %y, %x : f32
    linalg.yield %t : f32
  }
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%c : memref<4x8xf32>) outs(%d : memref<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %t = arith.addf %y, %x : f32
    linalg.yield %t : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<32x32xf32>) outs(%b : memref<32xf32>) {
  ^bb0(%x: f32, %y: f32):
    %t = arith.addf %y, %x : f32
    linalg.yield %t : f32
  }
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<32x32xf32>) outs(%b : memref<32xf32>) {
  ^bb0(%x: f32, %y: f32):
    %k = linalg.index 1 : index
    %ki = arith.index_cast %k : index to i32
    %kf = arith.sitofp %ki : i32 to f32
    %p = arith.mulf %x, %kf : f32
    %t = arith.addf %y, %p : f32
    linalg.yield %t : f32
  }
  return
}

// LANES: remat-cpu-row-reductions: lanes must be a power of 2 above 1, not 6
