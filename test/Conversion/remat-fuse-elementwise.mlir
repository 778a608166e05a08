// RUN: remat-opt %s --pass-pipeline='builtin.module(func.func(remat-fuse-elementwise))' --split-input-file | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>

// A chain add -> max -> mul becomes one generic with the three scalar ops
// in their order; the inputs of all three are its inputs.
// CHECK-LABEL: func.func @chain
// CHECK-SAME:      (%[[X:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<4x8xf32>, %[[S:.*]]: tensor<4x8xf32>)
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[B]], %[[S]] : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK:           %[[A:.*]] = arith.addf
// CHECK:           %[[M:.*]] = arith.maximumf %[[A]]
// CHECK:           arith.mulf %[[M]]
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[R]]
func.func @chain(%x: tensor<4x8xf32>, %b: tensor<4x8xf32>, %s: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%1, %s : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>

// Read through a permutation: fused (the producer's body reads x transposed).
// CHECK-LABEL: func.func @transposed
// CHECK:         linalg.generic
// CHECK:           arith.negf
// CHECK:           arith.addf
// CHECK-NOT:     linalg.generic
func.func @transposed(%x: tensor<8x4xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<8x4xf32>
  %e2 = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.negf %a : f32
    linalg.yield %r : f32
  } -> tensor<8x4xf32>
  %1 = linalg.generic {indexing_maps = [#tr, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%0, %b : tensor<8x4xf32>, tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#id1 = affine_map<(d0) -> (d0)>

// Left alone: a producer with a second user (fusing would compute it
// twice), a producer read through a broadcast (its body would run once per
// column instead of once), and a consumer with a reduction.
// CHECK-LABEL: func.func @kept
// CHECK:         %[[TWO:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<4x8xf32>)
// CHECK:           math.exp
// CHECK:         linalg.generic {{.*}} ins(%[[TWO]] : tensor<4x8xf32>)
// CHECK:         %[[V:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<4xf32>)
// CHECK:           math.sqrt
// CHECK:         linalg.generic {{.*}} ins(%arg0, %[[V]] : tensor<4x8xf32>, tensor<4xf32>)
// CHECK:         %[[N:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<4x8xf32>)
// CHECK:           arith.negf
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[N]] : tensor<4x8xf32>)
func.func @kept(%x: tensor<4x8xf32>, %v: tensor<4xf32>, %acc: tensor<4xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.negf %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %2 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%v : tensor<4xf32>) outs(%e1 : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.sqrt %a : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %3 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %2 : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %4 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.negf %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %5 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%4 : tensor<4x8xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %o, %a : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %0, %1, %3, %5 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>
}

// -----

#id = affine_map<(i) -> (i)>

// Fusing %t into %sum would move its read of %y to %sum, past %e2: %y, read
// by nothing at or after %sum, would live longer than the schedule planned.
// Not fused. %s reads only the argument %x: fused into %prod although %t,
// %e2 and %sum lie between them.
// CHECK-LABEL: func.func @lifetime
// CHECK:         %[[Y:.*]] = linalg.generic
// CHECK:           math.log
// CHECK:         %[[T:.*]] = linalg.generic {{.*}} ins(%[[Y]] :
// CHECK:           math.tanh
// CHECK:         %[[E2:.*]] = linalg.generic {{.*}} ins(%[[Y]] :
// CHECK:           math.exp
// CHECK:         linalg.generic {{.*}} ins(%[[T]], %[[E2]] :
// CHECK:           arith.addf
// CHECK:         linalg.generic
// CHECK:           math.sqrt
// CHECK-NEXT:      arith.mulf
func.func @lifetime(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %e = tensor.empty() : tensor<64xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.log %a : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.sqrt %a : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%y : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.tanh %a : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %e2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%y : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%t, %e2 : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %prod = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%s, %x : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %sum, %prod, %e2 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}
