// RUN: remat-opt %s --remat-gpu-step-stream --split-input-file --verify-diagnostics | FileCheck %s

// Launches, a cuBLAS call's stream and the arena's free go on one stream,
// created before the first launch and waited for once, before the return.
// CHECK-LABEL: func.func @step
// CHECK: %[[A:.*]] = gpu.alloc  host_shared
// CHECK-NEXT: %[[S:.*]] = gpu.wait async
// CHECK-NEXT: %[[T0:.*]] = gpu.launch_func async [%[[S]]] @k::@a blocks in (%[[G:.*]], %[[ONE:.*]], %[[ONE]]) threads in (%[[B:.*]], %[[ONE]], %[[ONE]])
// CHECK-NEXT: call @remat_cuda_sgemm(%[[T0]], %[[A]])
// CHECK-NEXT: %[[T1:.*]] = gpu.launch_func async [%[[T0]]] @k::@b
// CHECK-NEXT: %[[T2:.*]] = gpu.dealloc async [%[[T1]]] %[[A]]
// CHECK-NEXT: gpu.wait [%[[T2]]]
// CHECK-NEXT: return
// CHECK-NOT: gpu.wait
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @a(%x: memref<16xf32>) kernel { gpu.return }
    gpu.func @b(%x: memref<16xf32>) kernel { gpu.return }
  }
  func.func private @remat_cuda_sgemm(!gpu.async.token, memref<16xf32>)
  func.func @step() {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c256 = arith.constant 256 : index
    %a = gpu.alloc host_shared () : memref<16xf32>
    gpu.launch_func @k::@a blocks in (%c4, %c1, %c1) threads in (%c256, %c1, %c1) args(%a : memref<16xf32>)
    %t = gpu.wait async
    call @remat_cuda_sgemm(%t, %a) : (!gpu.async.token, memref<16xf32>) -> ()
    gpu.wait [%t]
    gpu.launch_func @k::@b blocks in (%c4, %c1, %c1) threads in (%c256, %c1, %c1) args(%a : memref<16xf32>)
    %t0 = gpu.wait async
    %t1 = gpu.dealloc async [%t0] %a : memref<16xf32>
    gpu.wait [%t1]
    return
  }
}

// -----

// A copy of a constant global goes on the stream (gpu.memcpy); other host
// code that writes memory kernels use (here a copy between buffers) waits
// for the stream first, and the next launch opens a new one.
// CHECK-LABEL: func.func @host_copy
// CHECK: %[[S0:.*]] = gpu.wait async
// CHECK-NEXT: %[[T0:.*]] = gpu.launch_func async [%[[S0]]] @k::@a
// CHECK-NEXT: %[[G:.*]] = memref.get_global @g
// CHECK-NEXT: %[[T1:.*]] = gpu.memcpy async [%[[T0]]] %[[A:.*]], %[[G]]
// CHECK-NEXT: %[[T2:.*]] = gpu.launch_func async [%[[T1]]] @k::@a
// CHECK-NEXT: gpu.wait [%[[T2]]]
// CHECK-NEXT: memref.copy
// CHECK-NEXT: %[[S1:.*]] = gpu.wait async
// CHECK-NEXT: %[[T3:.*]] = gpu.launch_func async [%[[S1]]] @k::@a
// CHECK-NEXT: gpu.wait [%[[T3]]]
// CHECK-NEXT: return
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @a(%x: memref<16xf32>) kernel { gpu.return }
  }
  memref.global "private" constant @g : memref<16xf32> = dense<1.0>
  func.func @host_copy(%a: memref<16xf32>, %b: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@a blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    %g = memref.get_global @g : memref<16xf32>
    memref.copy %g, %a : memref<16xf32> to memref<16xf32>
    gpu.launch_func @k::@a blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    memref.copy %a, %b : memref<16xf32> to memref<16xf32>
    gpu.launch_func @k::@a blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<16xf32>)
    return
  }
}

// -----

// A function without GPU work is left alone.
// CHECK-LABEL: func.func @host_only
// CHECK-NOT: gpu.wait
// CHECK: return
func.func @host_only(%a: memref<4xf32>, %b: memref<4xf32>) {
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  return
}

// -----

// Grid sizes beyond CUDA's limits are refused at the launch.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @a(%x: memref<16xf32>) kernel { gpu.return }
  }
  func.func @too_large(%a: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %big = arith.constant 4294967296 : index
    // expected-error@+1 {{kernel launch grid x size 4294967296 is outside CUDA's limit [1, 2147483647]}}
    gpu.launch_func @k::@a blocks in (%big, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @a(%x: memref<16xf32>) kernel { gpu.return }
  }
  func.func @too_many_threads(%a: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    // expected-error@+1 {{kernel launch block of 4096 threads exceeds CUDA's 1024}}
    gpu.launch_func @k::@a blocks in (%c1, %c1, %c1) threads in (%c64, %c64, %c1) args(%a : memref<16xf32>)
    return
  }
}
