// relu6 and relu6_grad on the CPU, compared with torch (float64) by
// remat_exec.py; inputs are scaled by 8 so that both clamp sides and the
// inside are reached.
// RUN: remat-opt %s --remat-lower-to-linalg --remat-open-recompute \
// RUN:   | %remat_exec main --seed 5 | remat-opt %remat_to_llvm | %remat_runner > %t.out
// RUN: remat-opt %s --mlir-print-op-generic -o %t.src
// RUN: %remat_exec check %t.src --seed 5 < %t.out | FileCheck %s

// CHECK-COUNT-3: ok result
// CHECK: OK: 3 tensors
func.func @relu6(%a: tensor<4x16xf32>, %dy: tensor<4x16xf32>)
    -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %c = arith.constant dense<8.0> : tensor<4x16xf32>
  %x = remat.mul %a, %c : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %0 = remat.relu6 %x : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %1 = remat.relu6_grad %dy, %x : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  return %x, %0, %1 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}
