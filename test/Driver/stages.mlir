// remat-compile stops at every stage of the CPU pipeline.
// RUN: remat-compile %s --emit=mlir-remat | FileCheck %s --check-prefix=REMAT
// RUN: remat-compile %s --emit=mlir-linalg | FileCheck %s --check-prefix=LINALG
// RUN: remat-compile %s --emit=mlir-buffers 2>%t.remarks | FileCheck %s --check-prefix=BUFFERS
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: remat-compile %s --emit=mlir-llvm 2>/dev/null | FileCheck %s --check-prefix=LLVMDIALECT
// RUN: remat-compile %s --emit=llvm 2>/dev/null | FileCheck %s --check-prefix=LLVMIR

// A forward model: remat-compile runs --remat-autodiff first.
func.func @step(%x: tensor<4x8xf32>, %labels: tensor<4xi64>,
                %w: tensor<8x3xf32> {remat.param},
                %b: tensor<3xf32> {remat.param}) -> tensor<f32> {
  %0 = remat.matmul %x, %w : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  %1 = remat.add %0, %b : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %2 = remat.relu %1 : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %loss = remat.softmax_cross_entropy %2, %labels : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

// The training step: the loss, then the gradients of %w and %b.
// REMAT: func.func @step({{.*}}) -> (tensor<f32>, tensor<8x3xf32>, tensor<3xf32>) attributes {remat.training_step}
// REMAT: remat.softmax_cross_entropy_grad
// REMAT: remat.relu_grad
// REMAT: return %{{.*}}, %{{.*}}, %{{.*}} : tensor<f32>, tensor<8x3xf32>, tensor<3xf32>

// Linalg on tensors, nothing of the remat dialect left but the attribute.
// LINALG: func.func @step(%{{.*}}: tensor<4x8xf32>, %{{.*}}: tensor<4xi64>, %{{.*}}: tensor<8x3xf32>, %{{.*}}: tensor<3xf32>) -> (tensor<f32>, tensor<8x3xf32>, tensor<3xf32>)
// LINALG-NOT: remat.{{[a-z_]+}} %
// LINALG: linalg.matmul
// LINALG: linalg.generic
// LINALG: return

// Buffers: results became out-parameters (the C ABI), every temporary is a
// view into one 64-byte-aligned arena. The entry allocates the arena, runs
// the step on it (step_arena, which callers running many steps call with
// an arena they allocated once) and frees it.
// BUFFERS: func.func @step(%{{.*}}: memref<4x8xf32>, %{{.*}}: memref<4xi64>, %{{.*}}: memref<8x3xf32>, %{{.*}}: memref<3xf32>, %{{.*}}: memref<f32>, %{{.*}}: memref<8x3xf32>, %{{.*}}: memref<3xf32>)
// BUFFERS-SAME: remat_arena_bytes = [[ARENA:[0-9]+]] : i64
// BUFFERS-NEXT: %[[A:.*]] = memref.alloc() {alignment = 64 : i64, remat_arena} : memref<[[ARENA]]xi8>
// BUFFERS-NEXT: call @step_arena(%[[A]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// BUFFERS-NEXT: memref.dealloc %[[A]]
// BUFFERS-NEXT: return{{$}}
// BUFFERS: func.func @step_arena(%[[ARG:[a-z0-9]+]]: memref<[[ARENA]]xi8>, %{{.*}}: memref<4x8xf32>,
// BUFFERS-SAME: passthrough = ["noinline"]
// BUFFERS-NOT: remat.training_step
// BUFFERS-NOT: memref.alloc(
// BUFFERS: memref.view %[[ARG]]
// BUFFERS-NOT: memref.dealloc
// BUFFERS: return{{$}}
// REMARK: remark: remat-plan-arena: arena {{[0-9]+}} bytes, liveness lower bound {{[0-9]+}} bytes

// LLVM dialect with bare pointers: one !llvm.ptr per buffer.
// LLVMDIALECT: llvm.func @step(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)

// LLVM IR for the host triple: void step(ptr x7).
// LLVMIR: target triple = "x86_64
// LLVMIR: define void @step(ptr {{[^%]*}}%0, ptr {{[^%]*}}%1, ptr {{[^%]*}}%2, ptr {{[^%]*}}%3, ptr {{[^%]*}}%4, ptr {{[^%]*}}%5, ptr {{[^%]*}}%6)
