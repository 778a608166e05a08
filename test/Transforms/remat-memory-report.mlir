// --remat-memory-report on small graphs whose live bytes are computed by hand.
//
// Rules (MemoryAnalysis.h): ops run in order, the ops inside a
// remat.recompute run in its place (its block arguments alias its inputs, its
// results alias the yielded values); a value is live from the step that
// defines it to its last use, so an unused value is live only at its own
// step; remat.keep is neither a step nor a use; the values an op reads and
// the values it produces are live together. Function arguments and the values
// the function returns are counted apart (the peak is a peak of activations);
// "total" is peak + arguments + outputs. Bytes are elements times the element
// width (f32/i32 4, f16/bf16 2). The peak op is the first step that reaches
// the peak.
//
// RUN: remat-opt %s --remat-memory-report=per-op -split-input-file -verify-diagnostics -o /dev/null
// The pass runs on one function at a time, nested under func.func.
// RUN: remat-opt %s --pass-pipeline='builtin.module(func.func(remat-memory-report{per-op}))' -split-input-file -verify-diagnostics -o /dev/null
// Without -split-input-file the whole file is one module, so the JSON array
// holds every function in file order.
// RUN: remat-opt %s --remat-memory-report="json-file=%t.json" -o /dev/null 2>/dev/null
// RUN: FileCheck %s --input-file=%t.json
// Nested under func.func, the tool still writes one file for the module.
// RUN: remat-opt %s --pass-pipeline='builtin.module(func.func(remat-memory-report{json-file=%t.nested.json}))' -o /dev/null 2>/dev/null
// RUN: diff %t.json %t.nested.json
// The file is one valid JSON array with one object per defined function.
// RUN: %python -c "import json, sys; r = json.load(open(sys.argv[1])); assert [f['function'] for f in r] == ['chain', 'fan_out', 'keep_is_not_a_use', 'recompute_region', 'element_sizes', 'outputs', 'empty', 'second'], r" %t.json

// A chain: every value dies at its only use; the last one is returned.
//   args: %x 4x8xf32 = 128, %w 8x8xf32 = 256 (param), %b 8xf32 = 32 (param)
//         -> arguments 416, parameters 288
//   step 0 matmul: %0 (128)                          = 128
//   step 1 add:    %0 (128, last use) + %1 (128)     = 256  <- peak, first
//   step 2 relu:   %1 (128, last use) + %2 (128)     = 256
//   step 3 tanh:   %2 (128, last use); %3 returned   = 128
//   outputs: %3 = 128; total = 256 + 416 + 128 = 800
//   total activation bytes (every op result once): 4 * 128 = 512

// expected-remark @+1 {{peak activation bytes 256 (total with arguments 800 and outputs, arguments 416, parameters 288, outputs 128) at 'remat.add'}}
func.func @chain(%x: tensor<4x8xf32>, %w: tensor<8x8xf32> {remat.param}, %b: tensor<8xf32> {remat.param}) -> tensor<4x8xf32> {
  // expected-remark @+1 {{live bytes 128}}
  %0 = remat.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+2 {{live bytes 256}}
  // expected-remark @+1 {{memory peak: 256 activation bytes live}}
  %1 = remat.add %0, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{live bytes 256}}
  %2 = remat.relu %1 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{live bytes 128}}
  %3 = remat.tanh %2 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %3 : tensor<4x8xf32>
}

// CHECK-LABEL: "function": "chain"
// CHECK-NEXT: "peak_activation_bytes": 256,
// CHECK-NEXT: "peak_total_bytes": 800,
// CHECK-NEXT: "argument_bytes": 416,
// CHECK-NEXT: "output_bytes": 128,
// CHECK-NEXT: "parameter_bytes": 288,
// CHECK-NEXT: "total_activation_bytes": 512,
// CHECK-NEXT: "peak_op": "remat.add",
// CHECK-NEXT: "ops": [
// CHECK-NEXT: {
// CHECK-NEXT: "index": 0,
// CHECK-NEXT: "op": "remat.matmul",
// CHECK-NEXT: "live_bytes": 128
// CHECK-NEXT: },
// CHECK-NEXT: {
// CHECK-NEXT: "index": 1,
// CHECK-NEXT: "op": "remat.add",
// CHECK-NEXT: "live_bytes": 256
// CHECK-NEXT: },
// CHECK-NEXT: {
// CHECK-NEXT: "index": 2,
// CHECK-NEXT: "op": "remat.relu",
// CHECK-NEXT: "live_bytes": 256
// CHECK-NEXT: },
// CHECK-NEXT: {
// CHECK-NEXT: "index": 3,
// CHECK-NEXT: "op": "remat.tanh",
// CHECK-NEXT: "live_bytes": 128
// CHECK-NEXT: }
// CHECK-NEXT: ]

// -----

// Fan-out: %0 is used by neg (step 1) and by add (step 3), so it stays live
// over steps 0..3.
//   %x 16xf32 = 64 (argument, not a parameter)
//   step 0 exp:     %0                         = 64
//   step 1 neg:     %0 + %1                    = 128
//   step 2 tanh:    %0 + %1 (last use) + %2    = 192  <- peak, first
//   step 3 add:     %0 (last use) + %2 + %3    = 192
//   step 4 sigmoid: %3 (last use); %4 returned = 64
//   outputs 64; total = 192 + 64 + 64 = 320; total activation bytes 5 * 64 = 320

// expected-remark @+1 {{peak activation bytes 192 (total with arguments 320 and outputs, arguments 64, parameters 0, outputs 64) at 'remat.tanh'}}
func.func @fan_out(%x: tensor<16xf32>) -> tensor<16xf32> {
  // expected-remark @+1 {{live bytes 64}}
  %0 = remat.exp %x : (tensor<16xf32>) -> tensor<16xf32>
  // expected-remark @+1 {{live bytes 128}}
  %1 = remat.neg %0 : (tensor<16xf32>) -> tensor<16xf32>
  // expected-remark @+2 {{live bytes 192}}
  // expected-remark @+1 {{memory peak: 192 activation bytes live}}
  %2 = remat.tanh %1 : (tensor<16xf32>) -> tensor<16xf32>
  // expected-remark @+1 {{live bytes 192}}
  %3 = remat.add %2, %0 : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  // expected-remark @+1 {{live bytes 64}}
  %4 = remat.sigmoid %3 : (tensor<16xf32>) -> tensor<16xf32>
  return %4 : tensor<16xf32>
}

// CHECK-LABEL: "function": "fan_out"
// CHECK-NEXT: "peak_activation_bytes": 192,
// CHECK-NEXT: "peak_total_bytes": 320,
// CHECK-NEXT: "argument_bytes": 64,
// CHECK-NEXT: "output_bytes": 64,
// CHECK-NEXT: "parameter_bytes": 0,
// CHECK-NEXT: "total_activation_bytes": 320,
// CHECK-NEXT: "peak_op": "remat.tanh",

// -----

// remat.keep is not a use: %0 dies at neg (step 1) although a keep of it
// follows. If the keep counted as a use, %0 would still be live at step 2
// (16 + 16 + 16 = 48 at tanh).
//   f16: 8 elements * 2 = 16 bytes per value; %x = 16 bytes of arguments
//   step 0 exp:  %0                = 16
//   step 1 neg:  %0 (last) + %1    = 32  <- peak, first
//   step 2 tanh: %1 (last) + %2    = 32  (%2 unused: live at its step only)
//   total = 32 + 16 + 0 = 48

// expected-remark @+1 {{peak activation bytes 32 (total with arguments 48 and outputs, arguments 16, parameters 0, outputs 0) at 'remat.neg'}}
func.func @keep_is_not_a_use(%x: tensor<8xf16>) {
  // expected-remark @+1 {{live bytes 16}}
  %0 = remat.exp %x : (tensor<8xf16>) -> tensor<8xf16>
  // expected-remark @+2 {{live bytes 32}}
  // expected-remark @+1 {{memory peak: 32 activation bytes live}}
  %1 = remat.neg %0 : (tensor<8xf16>) -> tensor<8xf16>
  // expected-remark @+1 {{live bytes 32}}
  %2 = remat.tanh %1 : (tensor<8xf16>) -> tensor<8xf16>
  remat.keep %0 : tensor<8xf16>
  return
}

// CHECK-LABEL: "function": "keep_is_not_a_use"
// CHECK-NEXT: "peak_activation_bytes": 32,
// CHECK: "peak_op": "remat.neg",
// CHECK-NEXT: "ops": [
// CHECK-NEXT: {
// CHECK-NEXT: "index": 0,
// CHECK-NEXT: "op": "remat.exp",
// CHECK-NEXT: "live_bytes": 16
// CHECK: "index": 2,
// CHECK-NEXT: "op": "remat.tanh",
// CHECK-NEXT: "live_bytes": 32
// CHECK-NEXT: }
// CHECK-NEXT: ]

// -----

// remat.recompute: its body ops are steps of their own (3 and 4), the block
// argument %a aliases %0 (so %0 lives until step 3), and the result %r
// aliases the yielded %4 (so %4 lives until the mul at step 5).
//   16xf32 = 64 bytes, 4x16xf32 = 256 bytes; %x = 64 bytes of arguments
//   step 0 exp:          %0                          = 64
//   step 1 neg:          %0 + %1                     = 128
//   step 2 relu:         %0 + %1 (last) + %2         = 192
//   step 3 broadcast_to: %0 (last, via %a) + %2 + %3 = 64 + 64 + 256 = 384  <- peak
//   step 4 sum_to:       %2 + %3 (last) + %4         = 64 + 256 + 64 = 384
//   step 5 mul:          %2 (last) + %4 (last) + %5  = 192
//   total activation bytes: 5 * 64 + 256 = 576

// expected-remark @+1 {{peak activation bytes 384 (total with arguments 448 and outputs, arguments 64, parameters 0, outputs 0) at 'remat.broadcast_to'}}
func.func @recompute_region(%x: tensor<16xf32>) {
  // expected-remark @+1 {{live bytes 64}}
  %0 = remat.exp %x : (tensor<16xf32>) -> tensor<16xf32>
  // expected-remark @+1 {{live bytes 128}}
  %1 = remat.neg %0 : (tensor<16xf32>) -> tensor<16xf32>
  // expected-remark @+1 {{live bytes 192}}
  %2 = remat.relu %1 : (tensor<16xf32>) -> tensor<16xf32>
  %r = remat.recompute(%0) : (tensor<16xf32>) -> tensor<16xf32> {
  ^bb0(%a: tensor<16xf32>):
    // expected-remark @+2 {{live bytes 384}}
    // expected-remark @+1 {{memory peak: 384 activation bytes live}}
    %3 = remat.broadcast_to %a : (tensor<16xf32>) -> tensor<4x16xf32>
    // expected-remark @+1 {{live bytes 384}}
    %4 = remat.sum_to %3 : (tensor<4x16xf32>) -> tensor<16xf32>
    remat.yield %4 : tensor<16xf32>
  }
  // expected-remark @+1 {{live bytes 192}}
  %5 = remat.mul %r, %2 : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return
}

// CHECK-LABEL: "function": "recompute_region"
// CHECK-NEXT: "peak_activation_bytes": 384,
// CHECK: "total_activation_bytes": 576,
// CHECK-NEXT: "peak_op": "remat.broadcast_to",
// CHECK: "index": 3,
// CHECK-NEXT: "op": "remat.broadcast_to",
// CHECK-NEXT: "live_bytes": 384
// CHECK: "index": 5,
// CHECK-NEXT: "op": "remat.mul",
// CHECK-NEXT: "live_bytes": 192

// -----

// Element sizes: i32 (4 bytes) and bf16 (2 bytes).
//   args: %i 4x6xi32 = 96, %h 6x4xbf16 = 48 (param) -> arguments 144, parameters 48
//   step 0 reshape:   %0 24xi32 = 96                  = 96
//   step 1 slice:     %0 (last) + %1 12xi32 = 48      = 144  <- peak
//   step 2 transpose: %2 4x6xbf16 = 48                = 48
//   step 3 gelu:      %2 (last) + %3 4x6xbf16 = 48    = 96
//   total = 144 + 144 = 288

// expected-remark @+1 {{peak activation bytes 144 (total with arguments 288 and outputs, arguments 144, parameters 48, outputs 0) at 'remat.slice'}}
func.func @element_sizes(%i: tensor<4x6xi32>, %h: tensor<6x4xbf16> {remat.param}) {
  // expected-remark @+1 {{live bytes 96}}
  %0 = remat.reshape %i : (tensor<4x6xi32>) -> tensor<24xi32>
  // expected-remark @+2 {{live bytes 144}}
  // expected-remark @+1 {{memory peak: 144 activation bytes live}}
  %1 = remat.slice %0 {offsets = array<i64: 0>, strides = array<i64: 2>} : (tensor<24xi32>) -> tensor<12xi32>
  // expected-remark @+1 {{live bytes 48}}
  %2 = remat.transpose %h {permutation = array<i64: 1, 0>} : (tensor<6x4xbf16>) -> tensor<4x6xbf16>
  // expected-remark @+1 {{live bytes 96}}
  %3 = remat.gelu %2 : (tensor<4x6xbf16>) -> tensor<4x6xbf16>
  return
}

// CHECK-LABEL: "function": "element_sizes"
// CHECK-NEXT: "peak_activation_bytes": 144,
// CHECK-NEXT: "peak_total_bytes": 288,
// CHECK-NEXT: "argument_bytes": 144,
// CHECK-NEXT: "output_bytes": 0,
// CHECK-NEXT: "parameter_bytes": 48,

// -----

// Returned values are outputs, not activations, even while later ops use
// them; a returned argument is neither.
//   %x 8xf32 = 32 (param)
//   step 0 exp: %0 (32) is returned -> 0
//   step 1 mse: %1 (4) is returned  -> 0
//   step 2 neg: %2 (32, unused)     -> 32  <- peak
//   outputs: %0 + %1 = 36; total = 32 + 32 + 36 = 100

// expected-remark @+1 {{peak activation bytes 32 (total with arguments 100 and outputs, arguments 32, parameters 32, outputs 36) at 'remat.neg'}}
func.func @outputs(%x: tensor<8xf32> {remat.param}) -> (tensor<8xf32>, tensor<f32>, tensor<8xf32>) {
  // expected-remark @+1 {{live bytes 0}}
  %0 = remat.exp %x : (tensor<8xf32>) -> tensor<8xf32>
  // expected-remark @+1 {{live bytes 0}}
  %1 = remat.mse %0, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  // expected-remark @+2 {{live bytes 32}}
  // expected-remark @+1 {{memory peak: 32 activation bytes live}}
  %2 = remat.neg %x : (tensor<8xf32>) -> tensor<8xf32>
  return %0, %1, %x : tensor<8xf32>, tensor<f32>, tensor<8xf32>
}

// CHECK-LABEL: "function": "outputs"
// CHECK-NEXT: "peak_activation_bytes": 32,
// CHECK-NEXT: "peak_total_bytes": 100,
// CHECK-NEXT: "argument_bytes": 32,
// CHECK-NEXT: "output_bytes": 36,
// CHECK-NEXT: "parameter_bytes": 32,
// CHECK-NEXT: "total_activation_bytes": 68,
// CHECK-NEXT: "peak_op": "remat.neg",

// -----

// Two functions in one module get one report each (and one JSON object
// each); a function without ops has no peak op. Declarations are skipped.

// expected-remark @+1 {{peak activation bytes 0 (total with arguments 4 and outputs, arguments 4, parameters 0, outputs 0)}}
func.func @empty(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}

// 8x8xf32 = 256; dies right away: 256 at its only step; total 256 + 256 = 512.
// expected-remark @+1 {{peak activation bytes 256 (total with arguments 512 and outputs, arguments 256, parameters 256, outputs 0) at 'remat.matmul'}}
func.func @second(%w: tensor<8x8xf32> {remat.param}) {
  // expected-remark @+2 {{live bytes 256}}
  // expected-remark @+1 {{memory peak: 256 activation bytes live}}
  %0 = remat.matmul %w, %w : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return
}

func.func private @declaration(tensor<4xf32>)

// CHECK-LABEL: "function": "empty"
// CHECK-NEXT: "peak_activation_bytes": 0,
// CHECK-NEXT: "peak_total_bytes": 4,
// CHECK-NEXT: "argument_bytes": 4,
// CHECK-NEXT: "output_bytes": 0,
// CHECK-NEXT: "parameter_bytes": 0,
// CHECK-NEXT: "total_activation_bytes": 0,
// CHECK-NEXT: "ops": [],
// CHECK-NEXT: "peak_workspace_bytes": 0
// CHECK-NEXT: },
// CHECK-NEXT: {
// CHECK-NEXT: "function": "second",
// CHECK-NEXT: "peak_activation_bytes": 256,
// CHECK-NOT: "function": "declaration"
