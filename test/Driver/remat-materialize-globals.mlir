// RUN: remat-opt %s --remat-materialize-globals | FileCheck %s

memref.global "private" constant @w : memref<4xf32> = dense<1.0>

// A static global gets a fresh buffer filled from it; other uses read the
// buffer, the copy reads the global.
// CHECK-LABEL: func.func @static
// CHECK:      %[[G:.*]] = memref.get_global @w : memref<4xf32>
// CHECK-NEXT: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT: memref.copy %[[G]], %[[A]] : memref<4xf32> to memref<4xf32>
// CHECK-NEXT: memref.copy %[[A]], %arg0
// CHECK-NEXT: return %[[A]]
func.func @static(%dst: memref<4xf32>) -> memref<4xf32> {
  %g = memref.get_global @w : memref<4xf32>
  memref.copy %g, %dst : memref<4xf32> to memref<4xf32>
  return %g : memref<4xf32>
}
