// RUN: remat-opt %s --remat-host-allocs-to-gpu | FileCheck %s

// Host allocations become managed GPU memory; a dealloc becomes an
// asynchronous gpu.dealloc between two waits.
// CHECK-LABEL: func.func @host
// CHECK-NOT: memref.alloc
// CHECK:      %[[A:.*]] = gpu.alloc  host_shared () : memref<4xf32>
// CHECK:      %[[D:.*]] = gpu.alloc  host_shared (%arg0) : memref<?xf32>
// CHECK:      %[[T0:.*]] = gpu.wait async
// CHECK-NEXT: %[[T1:.*]] = gpu.dealloc async [%[[T0]]] %[[A]] : memref<4xf32>
// CHECK-NEXT: gpu.wait [%[[T1]]]
// CHECK-NOT: memref.dealloc
// CHECK:      return %[[D]]
func.func @host(%n: index) -> memref<?xf32> {
  %a = memref.alloc() : memref<4xf32>
  %d = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %a : memref<4xf32>
  return %d : memref<?xf32>
}

// Allocations in device code stay.
// CHECK-LABEL: gpu.module @kernels
// CHECK: memref.alloc() : memref<4xf32>
// CHECK: memref.dealloc
module attributes {gpu.container_module} {
  gpu.module @kernels {
    func.func @device() {
      %a = memref.alloc() : memref<4xf32>
      memref.dealloc %a : memref<4xf32>
      return
    }
  }
}
