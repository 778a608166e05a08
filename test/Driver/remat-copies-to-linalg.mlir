// RUN: remat-opt %s --remat-copies-to-linalg | FileCheck %s
// RUN: remat-opt %s --remat-copies-to-linalg=all-copies=true | FileCheck %s --check-prefix=ALL

// A strided copy is not a memcpy: it becomes a linalg.copy (a loop).
// CHECK-LABEL: func.func @strided
// CHECK-NOT: memref.copy
// CHECK: linalg.copy ins(%arg0 : memref<4xf32, strided<[2]>>) outs(%arg1 : memref<4xf32>)
// ALL-LABEL: func.func @strided
// ALL: linalg.copy
func.func @strided(%src: memref<4xf32, strided<[2]>>, %dst: memref<4xf32>) {
  memref.copy %src, %dst : memref<4xf32, strided<[2]>> to memref<4xf32>
  return
}

// A contiguous copy stays a memref.copy unless all-copies is set.
// CHECK-LABEL: func.func @contiguous
// CHECK: memref.copy %arg0, %arg1
// CHECK-NOT: linalg.copy
// ALL-LABEL: func.func @contiguous
// ALL-NOT: memref.copy
// ALL: linalg.copy ins(%arg0 : memref<4xf32>) outs(%arg1 : memref<4xf32>)
func.func @contiguous(%src: memref<4xf32>, %dst: memref<4xf32>) {
  memref.copy %src, %dst : memref<4xf32> to memref<4xf32>
  return
}

// Copies out of a global are host data and stay, even with all-copies.
// ALL-LABEL: func.func @from_global
// ALL: %[[G:.*]] = memref.get_global @w
// ALL: memref.copy %[[G]], %arg0
// ALL-NOT: linalg.copy
memref.global "private" constant @w : memref<4xf32> = dense<1.0>
func.func @from_global(%dst: memref<4xf32>) {
  %g = memref.get_global @w : memref<4xf32>
  memref.copy %g, %dst : memref<4xf32> to memref<4xf32>
  return
}

// Copies inside a gpu.module are device code and stay.
// ALL-LABEL: gpu.module @kernels
// ALL: memref.copy
// ALL-NOT: linalg.copy
module attributes {gpu.container_module} {
  gpu.module @kernels {
    func.func @device(%src: memref<4xf32>, %dst: memref<4xf32>) {
      memref.copy %src, %dst : memref<4xf32> to memref<4xf32>
      return
    }
  }
}
