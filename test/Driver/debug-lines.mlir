// remat-compile -g: the object's DWARF line table points every host loop at
// the input line of the op it comes from (perf report --sort srcline,
// bench/step_profile.py --lines, gdb); without -g the object has none. The
// code may be scheduled differently (LLVM's passes see the locations), but it
// computes the same bits: two steps dump byte-identical buffers.
// RUN: rm -rf %t && mkdir -p %t/g %t/plain
// RUN: remat-compile %s -g -o %t/g.o --header=%t/g.h 2>/dev/null
// RUN: llvm-dwarfdump --debug-line %t/g.o | FileCheck %s
// RUN: remat-compile %s -o %t/plain.o --header=%t/plain.h 2>/dev/null
// RUN: llvm-dwarfdump --debug-line %t/plain.o | FileCheck %s --check-prefix=PLAIN
// RUN: for s in g plain; do remat-runner --header %t/$s.h --object %t/$s.o -o %t/$s.run && env -u REMAT_ADAPTIVE_THREADS %t/$s.run --steps 2 --threads 2 --dump %t/$s > /dev/null || exit 1; done
// RUN: test "$(ls %t/g/*.bin | wc -l)" -gt 3
// RUN: diff -r %t/g %t/plain

// CHECK: name: "debug-lines.mlir"
func.func @train(%x: tensor<64x1024xf32>, %w: tensor<64x1024xf32> {remat.param},
                 %labels: tensor<64xi32>) -> tensor<f32> {
  // CHECK-DAG: {{^0x[0-9a-f]+}} [[#@LINE+1]] {{[0-9]+}} 
  %0 = remat.mul %x, %w : (tensor<64x1024xf32>, tensor<64x1024xf32>) -> tensor<64x1024xf32>
  // CHECK-DAG: {{^0x[0-9a-f]+}} [[#@LINE+1]] {{[0-9]+}} 
  %1 = remat.relu %0 : (tensor<64x1024xf32>) -> tensor<64x1024xf32>
  // CHECK-DAG: {{^0x[0-9a-f]+}} [[#@LINE+1]] {{[0-9]+}} 
  %loss = remat.softmax_cross_entropy %1, %labels : (tensor<64x1024xf32>, tensor<64xi32>) -> tensor<f32>
  return %loss : tensor<f32>
}

// PLAIN-NOT: debug_line[
