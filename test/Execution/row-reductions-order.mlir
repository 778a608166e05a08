// The lane order of remat-cpu-row-reductions (docs/Conventions.md, "Row
// reductions (CPU)"), run: a row of 2^24 then ones sums to 2^24 + 14 (16
// elements) and 2^24 + 18 (20: a masked tail) when lane l adds the elements
// k = l mod 8 and the lanes meet in the tree (l + 4, l + 2, l + 1), to 2^24
// in one chain, where every 1 added to 2^24 rounds away (row-reductions=0).
// RUN: remat-opt %s --remat-cpu-llvm-pipeline='parallel-threshold=-1' | %remat_runner | FileCheck %s
// RUN: remat-opt %s --remat-cpu-llvm-pipeline='parallel-threshold=-1 row-reductions=0' | %remat_runner | FileCheck %s --check-prefix=CHAIN
// CHECK: 14
// CHECK-NEXT: 18
// CHAIN: 0
// CHAIN-NEXT: 0

#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>

func.func @sum16(%a: memref<2x16xf32>, %s: memref<2xf32>) {
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<2x16xf32>) outs(%s : memref<2xf32>) {
  ^bb0(%x: f32, %y: f32):
    %t = arith.addf %y, %x : f32
    linalg.yield %t : f32
  }
  return
}

func.func @sum20(%a: memref<2x20xf32>, %s: memref<2xf32>) {
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<2x20xf32>) outs(%s : memref<2xf32>) {
  ^bb0(%x: f32, %y: f32):
    %t = arith.addf %y, %x : f32
    linalg.yield %t : f32
  }
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %big = arith.constant 16777216.0 : f32
  %a = memref.alloc() : memref<2x16xf32>
  %b = memref.alloc() : memref<2x20xf32>
  %s = memref.alloc() : memref<2xf32>
  %t = memref.alloc() : memref<2xf32>
  linalg.fill ins(%one : f32) outs(%a : memref<2x16xf32>)
  linalg.fill ins(%one : f32) outs(%b : memref<2x20xf32>)
  linalg.fill ins(%zero : f32) outs(%s : memref<2xf32>)
  linalg.fill ins(%zero : f32) outs(%t : memref<2xf32>)
  memref.store %big, %a[%c1, %c0] : memref<2x16xf32>
  memref.store %big, %b[%c1, %c0] : memref<2x20xf32>
  call @sum16(%a, %s) : (memref<2x16xf32>, memref<2xf32>) -> ()
  call @sum20(%b, %t) : (memref<2x20xf32>, memref<2xf32>) -> ()
  %r16 = memref.load %s[%c1] : memref<2xf32>
  %r20 = memref.load %t[%c1] : memref<2xf32>
  %d16 = arith.subf %r16, %big : f32
  %d20 = arith.subf %r20, %big : f32
  vector.print %d16 : f32
  vector.print %d20 : f32
  memref.dealloc %a : memref<2x16xf32>
  memref.dealloc %b : memref<2x20xf32>
  memref.dealloc %s : memref<2xf32>
  memref.dealloc %t : memref<2xf32>
  return
}
