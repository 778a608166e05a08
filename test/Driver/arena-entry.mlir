// The entry with a caller-provided arena: the header declares
// step_arena(uint8_t *arena, ...) and REMAT_CALL_ARENA; a runner calls it
// with one arena for all steps. A symbol already named step_arena is an
// error, not silently renamed.
// RUN: rm -rf %t && mkdir -p %t
// RUN: remat-compile %s -o %t/step.o --header=%t/step.h 2>/dev/null
// RUN: FileCheck %s --check-prefix=HEADER < %t/step.h
// RUN: remat-runner --header %t/step.h --object %t/step.o -o %t/step.run
// RUN: %t/step.run --steps 3 | FileCheck %s --check-prefix=STEPS
// RUN: sed 's/@helper/@step_arena/' %s > %t/clash.mlir
// RUN: not remat-compile %t/clash.mlir -o %t/clash.o 2>&1 | FileCheck %s --check-prefix=CLASH

// HEADER: void step(float *x, int64_t *labels, float *w, float *loss, float *grad_w);
// HEADER-NEXT: /* The same step on a caller-provided arena of REMAT_ARENA_BYTES
// HEADER: void step_arena(uint8_t *arena, float *x, int64_t *labels, float *w, float *loss, float *grad_w);
// HEADER: #define REMAT_ENTRY_ARENA step_arena
// HEADER: #define REMAT_CALL_ARENA(arena, buffers) step_arena((uint8_t *)(arena), (float *)(buffers)[0], (int64_t *)(buffers)[1], (float *)(buffers)[2], (float *)(buffers)[3], (float *)(buffers)[4])

// STEPS: step 2 loss
// STEPS: finite yes

// CLASH: error: 'step_arena' is reserved for the entry point 'step' with a caller-provided arena

func.func @step(%x: tensor<4x8xf32>, %labels: tensor<4xi64>,
                %w: tensor<8x3xf32> {remat.param}) -> tensor<f32> {
  %0 = remat.matmul %x, %w : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  %1 = remat.relu %0 : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %loss = remat.softmax_cross_entropy %1, %labels : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}

func.func private @helper(%a: f32) -> f32
