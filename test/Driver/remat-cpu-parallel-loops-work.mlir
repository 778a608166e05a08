// What remat-cpu-parallel-loops counts against min-work. By default the
// iteration points (min-work 32768); with body-work the points times the
// work of one point: one unit per operand and per body op, 4 per division,
// 16 per math function. With remarks, each op's decision and figures.
// RUN: remat-opt %s --mlir-print-op-on-diagnostic=false --pass-pipeline='builtin.module(remat-cpu-parallel-loops{remarks=1})' 2>&1 | FileCheck %s --check-prefixes=CHECK,POINTS
// RUN: remat-opt %s --mlir-print-op-on-diagnostic=false --pass-pipeline='builtin.module(remat-cpu-parallel-loops{body-work min-work=131072 remarks=1})' 2>&1 | FileCheck %s --check-prefixes=CHECK,BODY
// The option is honoured: a lower min-work makes the small add parallel.
// RUN: remat-opt %s --mlir-print-op-on-diagnostic=false --pass-pipeline='builtin.module(remat-cpu-parallel-loops{body-work min-work=16384 remarks=1})' 2>&1 | FileCheck %s --check-prefixes=CHECK,LOW
// Without remarks, nothing is said.
// RUN: remat-opt %s --pass-pipeline='builtin.module(remat-cpu-parallel-loops)' 2>&1 | FileCheck %s --check-prefix=QUIET
// QUIET-NOT: remark

#id = affine_map<(i, j) -> (i, j)>

// 64 x 64 points of an add: 2 inputs, 1 output, 1 addf: 4 per point,
// 16384 in all.
// POINTS: remark: remat-cpu-parallel-loops: serial, work 4096 (4096 points, 4 per point), min-work 32768{{$}}
// BODY: remark: remat-cpu-parallel-loops: serial, work 16384 (4096 points, 4 per point), min-work 131072 (body-work)
// LOW: remark: remat-cpu-parallel-loops: parallel, work 16384 (4096 points, 4 per point), min-work 16384 (body-work)
// 256 x 256 points of the same add: parallel in every mode.
// POINTS: remark: remat-cpu-parallel-loops: parallel, work 65536 (65536 points, 4 per point), min-work 32768{{$}}
// BODY: remark: remat-cpu-parallel-loops: parallel, work 262144 (65536 points, 4 per point), min-work 131072 (body-work)
// LOW: remark: remat-cpu-parallel-loops: parallel, work 262144
// 128 x 64 points: with body-work an add stays serial (32768) where a
// tanh, 2 operands and one math function (18 per point, 147456), runs in
// parallel: the body counts, not only the points.
// POINTS: remark: remat-cpu-parallel-loops: serial, work 8192 (8192 points, 4 per point)
// POINTS: remark: remat-cpu-parallel-loops: serial, work 8192 (8192 points, 18 per point)
// BODY: remark: remat-cpu-parallel-loops: serial, work 32768 (8192 points, 4 per point)
// BODY: remark: remat-cpu-parallel-loops: parallel, work 147456 (8192 points, 18 per point)
// A division weighs 4: 8192 x (3 + 4) = 57344.
// POINTS: remark: remat-cpu-parallel-loops: serial, work 8192 (8192 points, 7 per point)
// BODY: remark: remat-cpu-parallel-loops: serial, work 57344 (8192 points, 7 per point)
// LOW: remark: remat-cpu-parallel-loops: parallel, work 57344 (8192 points, 7 per point)

// CHECK-LABEL: func.func @small_add
// POINTS-NOT: scf.parallel
// POINTS: linalg.generic
// BODY-NOT: scf.parallel
// BODY: linalg.generic
// LOW: scf.parallel
// CHECK-LABEL: func.func @large_add
// CHECK: scf.parallel
// CHECK-LABEL: func.func @cheap_body
// POINTS-NOT: scf.parallel
// POINTS: linalg.generic
// BODY-NOT: scf.parallel
// BODY: linalg.generic
// LOW: scf.parallel
// CHECK-LABEL: func.func @costly_body
// POINTS-NOT: scf.parallel
// POINTS: linalg.generic
// BODY: scf.parallel
// BODY: math.tanh
// CHECK-LABEL: func.func @divide
// POINTS-NOT: scf.parallel
// POINTS: linalg.generic
// BODY-NOT: scf.parallel
// BODY: linalg.generic
// LOW: scf.parallel
func.func @small_add(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

func.func @large_add(%a: memref<256x256xf32>, %b: memref<256x256xf32>, %c: memref<256x256xf32>) {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<256x256xf32>, memref<256x256xf32>) outs(%c : memref<256x256xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

func.func @cheap_body(%a: memref<128x64xf32>, %b: memref<128x64xf32>, %c: memref<128x64xf32>) {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<128x64xf32>, memref<128x64xf32>) outs(%c : memref<128x64xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

func.func @costly_body(%a: memref<128x64xf32>, %c: memref<128x64xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<128x64xf32>) outs(%c : memref<128x64xf32>) {
  ^bb0(%x: f32, %z: f32):
    %t = math.tanh %x : f32
    linalg.yield %t : f32
  }
  return
}

func.func @divide(%a: memref<128x64xf32>, %b: memref<128x64xf32>, %c: memref<128x64xf32>) {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<128x64xf32>, memref<128x64xf32>) outs(%c : memref<128x64xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %q = arith.divf %x, %y : f32
    linalg.yield %q : f32
  }
  return
}
