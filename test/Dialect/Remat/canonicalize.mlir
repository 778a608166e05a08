// remat.recompute declares no memory effects (it is not Pure), so neither
// canonicalization nor CSE may merge a recomputation with the original
// computation or with another recomputation, erase an unused one, or look
// through it. remat.keep has no results and is never erased. The control
// cases show that the passes do run: duplicated pure forward ops are merged
// and dead ones erased.
//
// RUN: remat-opt %s -canonicalize | FileCheck %s --check-prefixes=CHECK,CANON
// RUN: remat-opt %s -cse | FileCheck %s --check-prefixes=CHECK,CSE
// RUN: remat-opt %s -canonicalize -cse -canonicalize | FileCheck %s --check-prefixes=CHECK,CSE

// The recomputation repeats the forward matmul+relu exactly; it survives and
// its result (not the forward one) is what the second return value uses.
// CHECK-LABEL: func.func @recompute_not_merged_with_original
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x8xf32>)
// CHECK: %[[M:.*]] = remat.matmul %[[X]], %[[W]]
// CHECK: %[[R:.*]] = remat.relu %[[M]]
// CHECK: %[[RC:.*]] = remat.recompute(%[[X]], %[[W]])
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x8xf32>):
// CHECK-NEXT: %[[M2:.*]] = remat.matmul %[[A]], %[[B]]
// CHECK-NEXT: %[[R2:.*]] = remat.relu %[[M2]]
// CHECK-NEXT: remat.yield %[[R2]]
// CHECK: return %[[R]], %[[RC]]
func.func @recompute_not_merged_with_original(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = remat.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = remat.relu %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = remat.recompute(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>):
    %3 = remat.matmul %a, %b : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %4 = remat.relu %3 : (tensor<4x8xf32>) -> tensor<4x8xf32>
    remat.yield %4 : tensor<4x8xf32>
  }
  return %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>
}

// Two identical recomputations stay two ops with distinct results.
// CHECK-LABEL: func.func @two_recomputes_not_merged
// CHECK: %[[R1:.*]] = remat.recompute(%arg0)
// CHECK: remat.tanh
// CHECK: %[[R2:.*]] = remat.recompute(%arg0)
// CHECK: remat.tanh
// CHECK: %[[S:.*]] = remat.add %[[R1]], %[[R2]]
// CHECK: return %[[S]]
func.func @two_recomputes_not_merged(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = remat.recompute(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %1 = remat.tanh %a : (tensor<4xf32>) -> tensor<4xf32>
    remat.yield %1 : tensor<4xf32>
  }
  %2 = remat.recompute(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %3 = remat.tanh %a : (tensor<4xf32>) -> tensor<4xf32>
    remat.yield %3 : tensor<4xf32>
  }
  %4 = remat.add %0, %2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %4 : tensor<4xf32>
}

// A recomputation whose results are unused is not erased, and a body that
// yields its argument unchanged is not folded away.
// CHECK-LABEL: func.func @unused_recompute_kept
// CHECK: remat.recompute(%arg0)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: remat.sigmoid
// CHECK: remat.recompute(%arg0)
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<4xf32>):
// CHECK-NEXT: remat.yield %[[A]]
// CHECK: return %arg0
func.func @unused_recompute_kept(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = remat.recompute(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %1 = remat.sigmoid %a : (tensor<4xf32>) -> tensor<4xf32>
    remat.yield %1 : tensor<4xf32>
  }
  %2 = remat.recompute(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    remat.yield %a : tensor<4xf32>
  }
  return %x : tensor<4xf32>
}

// remat.keep survives, and keeps its operand alive (it is an IR use even
// though the liveness analysis does not count it).
// CHECK-LABEL: func.func @keep_kept
// CHECK: %[[E:.*]] = remat.exp %arg0
// CHECK-NEXT: remat.keep %[[E]] : tensor<4xf32>
// CHECK-NEXT: remat.keep %arg0 : tensor<4xf32>
// CHECK-NEXT: remat.keep %arg0 : tensor<4xf32>
// CHECK-NEXT: return %arg0
func.func @keep_kept(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = remat.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  remat.keep %0 : tensor<4xf32>
  remat.keep %x : tensor<4xf32>
  remat.keep %x : tensor<4xf32>
  return %x : tensor<4xf32>
}

// Control: dead pure ops are erased (both passes) and identical pure ops are
// merged (CSE), so the cases above test the recompute op, not passes that did
// nothing.
// CHECK-LABEL: func.func @control_pure_ops_merged
// CHECK-NEXT: %[[M:.*]] = remat.matmul %arg0, %arg1
// CANON-NEXT: %[[M1:.*]] = remat.matmul %arg0, %arg1
// CANON-NEXT: %[[S:.*]] = remat.add %[[M]], %[[M1]]
// CSE-NEXT: %[[S:.*]] = remat.add %[[M]], %[[M]]
// CHECK-NEXT: return %[[S]]
func.func @control_pure_ops_merged(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %0 = remat.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = remat.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %dead = remat.relu %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = remat.add %0, %1 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}
