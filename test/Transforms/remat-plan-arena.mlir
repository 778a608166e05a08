// RUN: remat-opt --remat-plan-arena %s -split-input-file 2>/dev/null | FileCheck %s
// RUN: remat-opt --remat-plan-arena %s -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: remat-opt --remat-plan-arena="in-place=false" %s -split-input-file 2>/dev/null | FileCheck %s --check-prefix=NOINPLACE
// RUN: remat-opt --remat-plan-arena="json-file=%t.json" %s -o /dev/null 2>/dev/null
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// The pass runs on one function at a time, nested under func.func; the tool
// still writes one JSON array for the module.
// RUN: remat-opt --pass-pipeline='builtin.module(func.func(remat-plan-arena{json-file=%t.nested.json}))' %s -o /dev/null 2>/dev/null
// RUN: diff %t.json %t.nested.json

// Positions are the top-level ops in order. %a lives [0, 2], %b [3, 5]:
// disjoint lifetimes share offset 0; the arena is one buffer.

// CHECK-LABEL: func.func @disjoint
// CHECK-SAME: remat_arena_bytes = 64 : i64, remat_arena_lower_bound = 64 : i64
// CHECK: %[[ARENA:.*]] = memref.alloc() {alignment = 64 : i64, remat_arena} : memref<64xi8>
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[A:.*]] = memref.view %[[ARENA]][%[[C0]]][] : memref<64xi8> to memref<16xf32>
// CHECK: linalg.exp ins(%{{.*}} : memref<16xf32>) outs(%[[A]] : memref<16xf32>)
// CHECK: %[[C0B:.*]] = arith.constant 0 : index
// CHECK: %[[B:.*]] = memref.view %[[ARENA]][%[[C0B]]][] : memref<64xi8> to memref<16xf32>
// CHECK-NOT: memref.alloc(
// CHECK: memref.dealloc %[[ARENA]] : memref<64xi8>
// CHECK-NEXT: return
// REPORT: remark: remat-plan-arena: arena 64 bytes, liveness lower bound 64 bytes, ratio 1.000, 2 buffers, 0 in place, 0 not planned
func.func @disjoint(%in: memref<16xf32>, %out: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  linalg.exp ins(%in : memref<16xf32>) outs(%a : memref<16xf32>)
  linalg.exp ins(%a : memref<16xf32>) outs(%out : memref<16xf32>)
  %b = memref.alloc() : memref<16xf32>
  linalg.exp ins(%in : memref<16xf32>) outs(%b : memref<16xf32>)
  linalg.add ins(%b, %out : memref<16xf32>, memref<16xf32>) outs(%out : memref<16xf32>)
  return
}

// -----

// Overlapping lifetimes never share bytes. Placement is by decreasing size:
// %big (128 bytes) at 0; %a (40 bytes) at the next 64-byte boundary, 128;
// %b (40 bytes, also live with both) at 192. The lower bound is the sum of
// the raw sizes, 208; the arena 232.

// CHECK-LABEL: func.func @overlap
// CHECK-SAME: remat_arena_bytes = 232 : i64, remat_arena_lower_bound = 208 : i64
// CHECK: memref.alloc() {alignment = 64 : i64, remat_arena} : memref<232xi8>
// CHECK: %[[OA:.*]] = arith.constant 128 : index
// CHECK: memref.view %{{.*}}[%[[OA]]][] : memref<232xi8> to memref<10xf32>
// CHECK: %[[OB:.*]] = arith.constant 192 : index
// CHECK: memref.view %{{.*}}[%[[OB]]][] : memref<232xi8> to memref<10xf32>
// CHECK: %[[OBIG:.*]] = arith.constant 0 : index
// CHECK: memref.view %{{.*}}[%[[OBIG]]][] : memref<232xi8> to memref<32xf32>
// REPORT: remark: remat-plan-arena: arena 232 bytes, liveness lower bound 208 bytes, ratio 1.115, 3 buffers, 0 in place, 0 not planned
func.func @overlap(%in: memref<10xf32>, %in32: memref<32xf32>, %out: memref<10xf32>, %out32: memref<32xf32>) {
  %a = memref.alloc() : memref<10xf32>
  %b = memref.alloc() : memref<10xf32>
  %big = memref.alloc() : memref<32xf32>
  linalg.exp ins(%in : memref<10xf32>) outs(%a : memref<10xf32>)
  linalg.exp ins(%in : memref<10xf32>) outs(%b : memref<10xf32>)
  linalg.exp ins(%in32 : memref<32xf32>) outs(%big : memref<32xf32>)
  linalg.add ins(%a, %b : memref<10xf32>, memref<10xf32>) outs(%out : memref<10xf32>)
  linalg.exp ins(%big : memref<32xf32>) outs(%out32 : memref<32xf32>)
  return
}

// -----

// An alias extends the lifetime: %a is last used through the collapsed
// view at position 5, after %b is allocated, so %b cannot take offset 0.
// Without the alias %a would end at position 2 and both would share it.

// CHECK-LABEL: func.func @alias
// CHECK-SAME: remat_arena_bytes = 128 : i64, remat_arena_lower_bound = 128 : i64
// CHECK: %[[Z:.*]] = arith.constant 0 : index
// CHECK: memref.view %{{.*}}[%[[Z]]][] : memref<128xi8> to memref<4x4xf32>
// CHECK: memref.collapse_shape
// CHECK: %[[S:.*]] = arith.constant 64 : index
// CHECK: memref.view %{{.*}}[%[[S]]][] : memref<128xi8> to memref<16xf32>
// REPORT: remark: remat-plan-arena: arena 128 bytes, liveness lower bound 128 bytes, ratio 1.000, 2 buffers, 0 in place, 0 not planned
func.func @alias(%in: memref<4x4xf32>, %in16: memref<16xf32>, %out: memref<16xf32>) {
  %a = memref.alloc() : memref<4x4xf32>
  linalg.exp ins(%in : memref<4x4xf32>) outs(%a : memref<4x4xf32>)
  %c = memref.collapse_shape %a [[0, 1]] : memref<4x4xf32> into memref<16xf32>
  %b = memref.alloc() : memref<16xf32>
  linalg.exp ins(%in16 : memref<16xf32>) outs(%b : memref<16xf32>)
  linalg.add ins(%c, %b : memref<16xf32>, memref<16xf32>) outs(%out : memref<16xf32>)
  return
}

// -----

// In place: the elementwise generic at position 3 reads %a, which dies
// there, and writes the fresh %b of the same type: %b takes %a's slot even
// though %b was allocated while %a was live. The chain continues: %c
// is written in place over %b. The lower bound counts each such group once.

#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @in_place
// CHECK-SAME: remat_arena_bytes = 64 : i64, remat_arena_lower_bound = 64 : i64
// CHECK-COUNT-3: memref.view %{{.*}}[%{{.*}}][] : memref<64xi8> to memref<16xf32>
// REPORT: remark: remat-plan-arena: arena 64 bytes, liveness lower bound 64 bytes, ratio 1.000, 3 buffers, 2 in place, 0 not planned
// NOINPLACE-LABEL: func.func @in_place
// NOINPLACE-SAME: remat_arena_bytes = 128 : i64, remat_arena_lower_bound = 128 : i64
func.func @in_place(%in: memref<16xf32>, %out: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  linalg.exp ins(%in : memref<16xf32>) outs(%a : memref<16xf32>)
  %b = memref.alloc() : memref<16xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<16xf32>) outs(%b : memref<16xf32>) {
  ^bb0(%x: f32, %y: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  }
  %c = memref.alloc() : memref<16xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%b : memref<16xf32>) outs(%c : memref<16xf32>) {
  ^bb0(%x: f32, %y: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  }
  linalg.exp ins(%c : memref<16xf32>) outs(%out : memref<16xf32>)
  return
}

// -----

// No in place when the input is still needed later (%a is read at position
// 4), when the payload reads the output, or when the op is not
// elementwise (a transposing map).

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @not_in_place
// CHECK-SAME: remat_arena_bytes = 128 : i64
// REPORT: remark: remat-plan-arena: arena 128 bytes, liveness lower bound 128 bytes, ratio 1.000, 2 buffers, 0 in place, 0 not planned
func.func @not_in_place(%in: memref<4x4xf32>, %out: memref<4x4xf32>) {
  %a = memref.alloc() : memref<4x4xf32>
  linalg.exp ins(%in : memref<4x4xf32>) outs(%a : memref<4x4xf32>)
  %b = memref.alloc() : memref<4x4xf32>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x4xf32>) outs(%b : memref<4x4xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  linalg.add ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%out : memref<4x4xf32>)
  return
}

// CHECK-LABEL: func.func @reads_output
// CHECK-SAME: remat_arena_bytes = 128 : i64
// REPORT: remark: remat-plan-arena: arena 128 bytes, liveness lower bound 128 bytes, ratio 1.000, 2 buffers, 0 in place, 0 not planned
func.func @reads_output(%in: memref<4x4xf32>, %out: memref<4x4xf32>) {
  %a = memref.alloc() : memref<4x4xf32>
  linalg.exp ins(%in : memref<4x4xf32>) outs(%a : memref<4x4xf32>)
  %b = memref.alloc() : memref<4x4xf32>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x4xf32>) outs(%b : memref<4x4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  linalg.exp ins(%b : memref<4x4xf32>) outs(%out : memref<4x4xf32>)
  return
}

// CHECK-LABEL: func.func @transposing
// CHECK-SAME: remat_arena_bytes = 128 : i64
// REPORT: remark: remat-plan-arena: arena 128 bytes, liveness lower bound 128 bytes, ratio 1.000, 2 buffers, 0 in place, 0 not planned
func.func @transposing(%in: memref<4x4xf32>, %out: memref<4x4xf32>) {
  %a = memref.alloc() : memref<4x4xf32>
  linalg.exp ins(%in : memref<4x4xf32>) outs(%a : memref<4x4xf32>)
  %b = memref.alloc() : memref<4x4xf32>
  linalg.generic {indexing_maps = [#tr, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x4xf32>) outs(%b : memref<4x4xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  linalg.exp ins(%b : memref<4x4xf32>) outs(%out : memref<4x4xf32>)
  return
}

// -----

// A use nested in a loop counts at the loop; deallocs are erased and do not
// extend a lifetime; a buffer copied into an out-parameter lives to the end.
// %a: [0, 7] (the loop), %b: [2, 7], %c: [10, end] (copied to %res),
// %d: [12, 14]: %c reuses %a's offset 0 and %d %b's offset 64.

// CHECK-LABEL: func.func @nested_dealloc_copy
// CHECK-SAME: remat_arena_bytes = 128 : i64, remat_arena_lower_bound = 128 : i64
// CHECK-NOT: memref.dealloc %{{.*}} : memref<16xf32>
// CHECK: memref.dealloc %{{.*}} : memref<128xi8>
// CHECK-NEXT: return
// REPORT: remark: remat-plan-arena: arena 128 bytes, liveness lower bound 128 bytes, ratio 1.000, 4 buffers, 0 in place, 0 not planned
func.func @nested_dealloc_copy(%in: memref<16xf32>, %out: memref<16xf32>, %res: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  linalg.exp ins(%in : memref<16xf32>) outs(%a : memref<16xf32>)
  %b = memref.alloc() : memref<16xf32>
  linalg.exp ins(%in : memref<16xf32>) outs(%b : memref<16xf32>)
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %x = memref.load %a[%i] : memref<16xf32>
    %y = memref.load %b[%i] : memref<16xf32>
    %s = arith.addf %x, %y : f32
    memref.store %s, %out[%i] : memref<16xf32>
  }
  memref.dealloc %a : memref<16xf32>
  memref.dealloc %b : memref<16xf32>
  %c = memref.alloc() : memref<16xf32>
  linalg.exp ins(%out : memref<16xf32>) outs(%c : memref<16xf32>)
  %d = memref.alloc() : memref<16xf32>
  linalg.exp ins(%c : memref<16xf32>) outs(%d : memref<16xf32>)
  linalg.exp ins(%d : memref<16xf32>) outs(%out : memref<16xf32>)
  memref.copy %c, %res : memref<16xf32> to memref<16xf32>
  return
}

// -----

// A returned buffer lives to the end (the later %b cannot reuse its bytes),
// and the arena is then not deallocated. Dynamic shapes are left alone.

// CHECK-LABEL: func.func @returned
// CHECK-SAME: remat_arena_bytes = 128 : i64
// CHECK: memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK-NOT: memref.dealloc
// CHECK: return
// REPORT: remark: a returned buffer lives in the arena; the arena is not deallocated
// REPORT: remark: remat-plan-arena: arena 128 bytes, liveness lower bound 128 bytes, ratio 1.000, 2 buffers, 0 in place, 1 not planned
func.func @returned(%in: memref<16xf32>, %out: memref<16xf32>, %n: index) -> (memref<16xf32>, memref<?xf32>) {
  %a = memref.alloc() : memref<16xf32>
  linalg.exp ins(%in : memref<16xf32>) outs(%a : memref<16xf32>)
  %b = memref.alloc() : memref<16xf32>
  linalg.exp ins(%in : memref<16xf32>) outs(%b : memref<16xf32>)
  linalg.exp ins(%b : memref<16xf32>) outs(%out : memref<16xf32>)
  %dyn = memref.alloc(%n) : memref<?xf32>
  return %a, %dyn : memref<16xf32>, memref<?xf32>
}

// -----

// A symbol name with a quote and a backslash: the IR prints the quote as \22,
// the JSON file escapes both (checked below).

// CHECK-LABEL: func.func @"quote\22back\\slash"
// CHECK-SAME: remat_arena_bytes = 64 : i64
// REPORT: remark: remat-plan-arena: arena 64 bytes, liveness lower bound 64 bytes, ratio 1.000, 1 buffers, 0 in place, 0 not planned
func.func @"quote\"back\\slash"(%in: memref<16xf32>, %out: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  linalg.exp ins(%in : memref<16xf32>) outs(%a : memref<16xf32>)
  linalg.exp ins(%a : memref<16xf32>) outs(%out : memref<16xf32>)
  return
}

// JSON: [
// JSON-NEXT:   {
// JSON-NEXT:     "function": "disjoint",
// JSON-NEXT:     "arena_bytes": 64,
// JSON-NEXT:     "lower_bound_bytes": 64,
// JSON-NEXT:     "ratio": 1.000,
// JSON-NEXT:     "buffers": 2,
// JSON-NEXT:     "in_place": 0,
// JSON-NEXT:     "not_planned": 0
// JSON-NEXT:   },
// JSON-NEXT:   {
// JSON-NEXT:     "function": "overlap",
// JSON-NEXT:     "arena_bytes": 232,
// JSON-NEXT:     "lower_bound_bytes": 208,
// JSON-NEXT:     "ratio": 1.115,
// JSON-NEXT:     "buffers": 3,
// JSON-NEXT:     "in_place": 0,
// JSON-NEXT:     "not_planned": 0
// JSON-NEXT:   },
// JSON:          "function": "quote\"back\\slash",
// JSON-NEXT:     "arena_bytes": 64,
// JSON:        }
// JSON-NEXT: ]
