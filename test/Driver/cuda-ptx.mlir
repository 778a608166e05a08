// --target=cuda: linalg loops become GPU kernels (one module, one kernel per
// loop nest) compiled to PTX for the chosen architecture. No math functions
// here, so neither ptxas nor libdevice is needed.
// RUN: remat-compile %s --target=cuda --emit=ptx 2>/dev/null | FileCheck %s
// RUN: remat-compile %s --target=cuda --chip=sm_80 --emit=ptx 2>/dev/null | FileCheck %s --check-prefix=SM80
// RUN: remat-compile %s --target=cuda --emit=mlir-buffers 2>/dev/null | FileCheck %s --check-prefix=BUFFERS
// RUN: remat-compile %s --target=cuda --blas=false --emit=mlir-buffers 2>/dev/null | FileCheck %s --check-prefix=NOBLAS
// RUN: remat-compile %s --target=cuda --emit=mlir-llvm --gpu-block-size=128 2>/dev/null | FileCheck %s --check-prefix=HOST

func.func @step(%x: tensor<16x32xf32>, %t: tensor<16x8xf32>,
                %w: tensor<32x8xf32> {remat.param}) -> tensor<f32> {
  %0 = remat.matmul %x, %w : (tensor<16x32xf32>, tensor<32x8xf32>) -> tensor<16x8xf32>
  %1 = remat.relu %0 : (tensor<16x8xf32>) -> tensor<16x8xf32>
  %2 = remat.mse %1, %t : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<f32>
  return %2 : tensor<f32>
}

// CHECK: .target sm_90
// CHECK: .address_size 64
// CHECK: .visible .entry step_kernel(
// CHECK: .visible .entry step_kernel_0(
// CHECK-NOT: .target

// SM80: .target sm_80
// SM80: .entry

// The arena (and every host allocation) is managed memory that host and
// device both reach; it is freed after the stream's work. The matmul and
// the weight gradient (x^T dy: A transposed) call cuBLAS through the
// runtime, each on a stream that is waited for after the call.
// BUFFERS: %[[A:.*]] = gpu.alloc  host_shared () : memref<{{[0-9]+}}xi8>
// BUFFERS: memref.view %[[A]]
// BUFFERS: %[[S0:.*]] = gpu.wait async
// BUFFERS-NEXT: call @remat_cuda_sgemm(%[[S0]], %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}},
// BUFFERS-NEXT: gpu.wait [%[[S0]]]
// BUFFERS: %[[S1:.*]] = gpu.wait async
// BUFFERS-NEXT: call @remat_cuda_sgemm(%[[S1]], %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}},
// BUFFERS-NEXT: gpu.wait [%[[S1]]]
// BUFFERS: %[[T0:.*]] = gpu.wait async
// BUFFERS: %[[T1:.*]] = gpu.dealloc async [%[[T0]]] %[[A]] : memref<{{[0-9]+}}xi8>
// BUFFERS: gpu.wait [%[[T1]]]
// BUFFERS-NEXT: return
// BUFFERS-NOT: linalg.matmul
// BUFFERS: func.func private @remat_cuda_sgemm(!gpu.async.token,

// --blas=false: the matmuls stay linalg (kernels).
// NOBLAS-NOT: remat_cuda_sgemm
// NOBLAS: linalg.matmul
// NOBLAS-NOT: remat_cuda_sgemm

// Host code: bare-pointer entry point, managed arena, launches of
// 128-thread blocks from the one GPU module.
// HOST: llvm.func @step(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// HOST: %[[B:.*]] = llvm.mlir.constant(128 : index) : i64
// HOST: %[[ONE:.*]] = llvm.mlir.constant(1 : i8) : i8
// HOST: llvm.call @mgpuMemAlloc(%{{.*}}, %{{.*}}, %[[ONE]]) : (i64, !llvm.ptr, i8) -> !llvm.ptr
// HOST: gpu.launch_func{{ +}}@step_kernel::@step_kernel blocks in ({{.*}}) threads in (%[[B]], {{.*}})
// HOST: gpu.launch_func{{ +}}@step_kernel::@step_kernel_0
// HOST: llvm.call @mgpuMemFree
// HOST: gpu.binary @step_kernel {{ *}}[#gpu.object<#nvvm.target<chip = "sm_90"
