// --remat-memory-report on functions in upstream linalg/tensor/arith/math:
// destination-passing code is accounted as one-shot bufferization will
// allocate it (docs/Conventions.md, "Destination passing"):
//   * a chain of inits, each value the only use of the previous one as the
//     init ("outs") of a destination-style op (tensor.empty -> linalg.fill
//     -> linalg.matmul), is one buffer as large as its largest value, live
//     from the chain's first op (where bufferization allocates it) to the
//     last use of its last value;
//   * a tensor.empty that starts no chain (several uses) takes no bytes:
//     every op writing into it gets a buffer of its own (its result);
//   * scalars (arith.constant 0.0 : f32) take no bytes;
//   * an op with a payload region (linalg.generic) is one step, and values
//     its region reads from outside are uses at that step.
//
// RUN: remat-opt %s --remat-memory-report=per-op -split-input-file -verify-diagnostics -o /dev/null

#id = affine_map<(d0, d1) -> (d0, d1)>

// relu(x @ w), x 4x8xf32 (128 B), w 8x8xf32 (256 B); %r returned.
//   constant    0   (a scalar)
//   empty     128   (the empty/fill/matmul buffer, 4x8xf32, allocated here)
//   fill      128   (the same buffer)
//   matmul    128   (the same buffer: not 256 or 384)
//   empty     128   (the chain empty -> generic is %r: returned, counted
//   generic   128    apart as an output); the matmul buffer dies here.
// expected-remark @+1 {{peak activation bytes 128 (total with arguments 640 and outputs, arguments 384, parameters 256, outputs 128) at 'tensor.empty'}}
func.func @fill_matmul(%x: tensor<4x8xf32>, %w: tensor<8x8xf32> {remat.param}) -> tensor<4x8xf32> {
  // expected-remark @+1 {{live bytes 0}}
  %zero = arith.constant 0.0 : f32
  // expected-remark @+2 {{live bytes 128}}
  // expected-remark @+1 {{memory peak: 128 activation bytes live}}
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-remark @+1 {{live bytes 128}}
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{live bytes 128}}
  %m = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{live bytes 128}}
  %e2 = tensor.empty() : tensor<4x8xf32>
  // expected-remark @+1 {{live bytes 128}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.maximumf %a, %zero : f32
    linalg.yield %z : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// A fill read twice is a buffer of its own (bufferization cannot write the
// first matmul into it): empty + fill 128 (one chain), matmul 1 128 + 128,
// matmul 2 adds 128 = 384 (the fill dies there), then the sum is returned and
// reads both products: 256.
// expected-remark @+1 {{peak activation bytes 384 (total with arguments 896 and outputs, arguments 384, parameters 0, outputs 128) at 'linalg.matmul'}}
func.func @shared_fill(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  // expected-remark @+1 {{live bytes 0}}
  %zero = arith.constant 0.0 : f32
  // expected-remark @+1 {{live bytes 128}}
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-remark @+1 {{live bytes 128}}
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{live bytes 256}}
  %m1 = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+2 {{live bytes 384}}
  // expected-remark @+1 {{memory peak: 384 activation bytes live}}
  %m2 = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{live bytes 256}}
  %e2 = tensor.empty() : tensor<4x8xf32>
  // expected-remark @+1 {{live bytes 256}}
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m1, %m2 : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e2 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %z = arith.addf %a, %b : f32
    linalg.yield %z : f32
  } -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>

// A value read only inside a payload region (%c, read by tensor.extract in
// the generic's body) lives until that generic: 32 there, not 0. A
// tensor.empty with no use takes no bytes; %r is returned.
// expected-remark @+1 {{peak activation bytes 32 (total with arguments 96 and outputs, arguments 32, parameters 0, outputs 32) at 'tensor.extract_slice'}}
func.func @region_capture(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-remark @+1 {{live bytes 0}}
  %e = tensor.empty() : tensor<8xf32>
  // expected-remark @+2 {{live bytes 32}}
  // expected-remark @+1 {{memory peak: 32 activation bytes live}}
  %c = tensor.extract_slice %x[0] [8] [1] : tensor<8xf32> to tensor<8xf32>
  // expected-remark @+1 {{live bytes 32}}
  %e2 = tensor.empty() : tensor<8xf32>
  // expected-remark @+1 {{live bytes 32}}
  %r = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]}
      outs(%e2 : tensor<8xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %v = tensor.extract %c[%i] : tensor<8xf32>
    linalg.yield %v : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
