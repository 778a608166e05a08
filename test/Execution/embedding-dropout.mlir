// embedding (i32 and 2-D i64 indices), embedding_grad with repeated indices
// (scatter-add), and dropout at rate 0.5 and 0.25, compared with torch; the
// reference mask is an independent numpy implementation of the hash of
// docs/Conventions.md, so every element of the mask is checked.
// RUN: remat-opt %s --remat-lower-to-linalg --remat-open-recompute \
// RUN:   | %remat_exec main --seed 13 --int-high 1=6 --int-high 2=6 --input 4=1234567 --input 5=-42 \
// RUN:   | remat-opt %remat_to_llvm | %remat_runner > %t.out
// RUN: remat-opt %s --mlir-print-op-generic -o %t.src
// RUN: %remat_exec check %t.src --seed 13 --int-high 1=6 --int-high 2=6 --input 4=1234567 --input 5=-42 < %t.out \
// RUN:   | FileCheck %s

// CHECK-COUNT-9: ok result
// CHECK: OK: 9 tensors
func.func @embedding_dropout(%table: tensor<6x4xf32>, %ids: tensor<5xi32>, %ids2: tensor<2x7xi64>,
                             %g: tensor<2x7x4xf32>, %seed: tensor<i64>, %seed2: tensor<i64>,
                             %x: tensor<8x16xf32>)
    -> (tensor<5x4xf32>, tensor<2x7x4xf32>, tensor<6x4xf32>, tensor<8x16xf32>, tensor<8x16xf32>,
        tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<6x4xf32>) {
  %0 = remat.embedding %table, %ids : (tensor<6x4xf32>, tensor<5xi32>) -> tensor<5x4xf32>
  %1 = remat.embedding %table, %ids2 : (tensor<6x4xf32>, tensor<2x7xi64>) -> tensor<2x7x4xf32>
  // 14 positions into 6 rows: rows repeat, so the scatter must add.
  %2 = remat.embedding_grad %g, %ids2 : (tensor<2x7x4xf32>, tensor<2x7xi64>) -> tensor<6x4xf32>
  %3 = remat.dropout %x, %seed {rate = 5.000000e-01 : f64} : (tensor<8x16xf32>, tensor<i64>) -> tensor<8x16xf32>
  // The same seed gives the same mask (a recomputation reproduces it).
  %4 = remat.dropout %x, %seed {rate = 5.000000e-01 : f64} : (tensor<8x16xf32>, tensor<i64>) -> tensor<8x16xf32>
  %5 = remat.sub %3, %4 : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  // A negative seed and another rate.
  %6 = remat.dropout %x, %seed2 {rate = 2.500000e-01 : f64} : (tensor<8x16xf32>, tensor<i64>) -> tensor<8x16xf32>
  %7 = remat.dropout %x, %seed {rate = 0.000000e+00 : f64} : (tensor<8x16xf32>, tensor<i64>) -> tensor<8x16xf32>
  %8 = remat.embedding_grad %0, %ids : (tensor<5x4xf32>, tensor<5xi32>) -> tensor<6x4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8
    : tensor<5x4xf32>, tensor<2x7x4xf32>, tensor<6x4xf32>, tensor<8x16xf32>, tensor<8x16xf32>,
      tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<6x4xf32>
}
