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
// CHECK: .visible .entry step_arena_kernel(
// CHECK: .visible .entry step_arena_kernel_0(
// CHECK-NOT: .target

// SM80: .target sm_80
// SM80: .entry

// The arena (and every host allocation) is managed memory that host and
// device both reach. The entry allocates it, calls step_arena (the same step
// on a caller-provided arena, REMAT_ENTRY_ARENA) and frees it after the
// stream's work. The matmul and the weight gradient (x^T dy) call cuBLAS
// through the runtime, each on a stream that is waited for after the call
// (one stream per step comes later: remat-gpu-step-stream).
// BUFFERS: func.func @step(%[[X:.*]]: memref<16x32xf32>, %[[T:.*]]: memref<16x8xf32>, %[[W:.*]]: memref<32x8xf32>, %[[L:.*]]: memref<f32>, %[[GW:.*]]: memref<32x8xf32>)
// BUFFERS-NEXT: %[[A:.*]] = gpu.alloc  host_shared () {remat_arena} : memref<[[N:[0-9]+]]xi8>
// BUFFERS-NEXT: call @step_arena(%[[A]], %[[X]], %[[T]], %[[W]], %[[L]], %[[GW]])
// BUFFERS-NEXT: %[[T0:.*]] = gpu.wait async
// BUFFERS-NEXT: %[[T1:.*]] = gpu.dealloc async [%[[T0]]] %[[A]] : memref<[[N]]xi8>
// BUFFERS-NEXT: gpu.wait [%[[T1]]]
// BUFFERS-NEXT: return
// BUFFERS: func.func @step_arena(%[[AA:.*]]: memref<[[N]]xi8>,
// BUFFERS-NOT: gpu.alloc
// BUFFERS: memref.view %[[AA]]
// BUFFERS: %[[S0:.*]] = gpu.wait async
// BUFFERS-NEXT: call @remat_cuda_sgemm(%[[S0]], %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}},
// BUFFERS-NEXT: gpu.wait [%[[S0]]]
// BUFFERS: %[[S1:.*]] = gpu.wait async
// BUFFERS-NEXT: call @remat_cuda_sgemm(%[[S1]], %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}},
// BUFFERS-NEXT: gpu.wait [%[[S1]]]
// BUFFERS-NOT: gpu.dealloc
// BUFFERS: return
// BUFFERS-NOT: linalg.matmul
// BUFFERS: func.func private @remat_cuda_sgemm(!gpu.async.token,

// --blas=false: the matmuls stay linalg (kernels).
// NOBLAS-NOT: remat_cuda_sgemm
// NOBLAS: linalg.matmul
// NOBLAS-NOT: remat_cuda_sgemm

// Host code: the bare-pointer entry point allocates the managed arena,
// calls step_arena (the step on a caller-provided arena) and frees it.
// step_arena puts all its work on one stream: created once, kernels of
// 128-thread blocks (a grid of ceil(elements / 128) blocks: 1 for the
// 16x8 outputs, 2 for the 32x8 weight gradient) and the cuBLAS calls
// enqueued on it, the copy of a constant global on it too, one
// synchronization at the end.
// HOST: llvm.func @step(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// HOST: %[[ONE:.*]] = llvm.mlir.constant(1 : i8) : i8
// HOST: llvm.call @mgpuMemAlloc(%{{.*}}, %{{.*}}, %[[ONE]]) : (i64, !llvm.ptr, i8) -> !llvm.ptr
// HOST: llvm.call @step_arena(
// HOST: llvm.call @mgpuMemFree
// HOST: llvm.func @step_arena(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// HOST-DAG: %[[G2:.*]] = llvm.mlir.constant(2 : index) : i64
// HOST-DAG: %[[B:.*]] = llvm.mlir.constant(128 : index) : i64
// HOST: %[[S:.*]] = llvm.call @mgpuStreamCreate()
// HOST-NOT: mgpuStreamCreate
// HOST-NOT: mgpuStreamSynchronize
// HOST: gpu.launch_func <%[[S]] : !llvm.ptr> @step_arena_kernel::@step_arena_kernel blocks in (%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) threads in (%[[B]], %{{[0-9]+}}, %{{[0-9]+}})
// HOST-NOT: mgpuStreamSynchronize
// HOST: llvm.call @remat_cuda_sgemm(%[[S]],
// HOST-NOT: mgpuStreamSynchronize
// HOST: llvm.call @mgpuMemcpy(%{{.*}}, %{{.*}}, %{{.*}}, %[[S]])
// HOST-NOT: mgpuStreamSynchronize
// HOST: gpu.launch_func <%[[S]] : !llvm.ptr> @step_arena_kernel::@{{.*}} blocks in (%[[G2]], %{{[0-9]+}}, %{{[0-9]+}}) threads in (%[[B]], %{{[0-9]+}}, %{{[0-9]+}})
// HOST-NOT: mgpuStreamSynchronize
// HOST: llvm.call @remat_cuda_sgemm(%[[S]],
// HOST-NEXT: llvm.call @mgpuStreamSynchronize(%[[S]])
// HOST-NEXT: llvm.call @mgpuStreamDestroy(%[[S]])
// HOST-NEXT: llvm.return
// HOST-NOT: mgpuStreamCreate
// HOST: gpu.binary @step_arena_kernel {{ *}}[#gpu.object<#nvvm.target<chip = "sm_90"
