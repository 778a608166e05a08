// Errors of --remat-memory-report, located at the offending op or function.
//
// RUN: remat-opt %s --remat-memory-report -split-input-file -verify-diagnostics
// An unwritable JSON path fails the pass (on a valid input). lit substitutes
// `not` only after a pipe, since the LLVM tools directory is not on PATH.
// RUN: true | not remat-opt %remat_src/examples/chain_n16.mlir --remat-memory-report="json-file=%t.missing/dir/report.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: error: cannot write '{{.*}}.missing/dir/report.json'

// A result of 2^62 * 4 = 2^64 elements: its byte size overflows int64. (A
// remat op with such a type is rejected by its verifier: SizedTensors.)
func.func @result_overflow(%x: tensor<4xf32>, %f: f32) {
  // expected-error @+1 {{result type tensor<4611686018427387904x4xf32> is not statically shaped or its size overflows 64 bits}}
  %0 = tensor.splat %f : tensor<4611686018427387904x4xf32>
  return
}

// -----

// A tensor.empty counts 0 bytes (its users own the buffer), but a type whose
// byte size overflows is refused all the same.
func.func @empty_overflow(%x: tensor<4xf32>) {
  // expected-error @+1 {{result type tensor<4611686018427387904x4xf32> is not statically shaped or its size overflows 64 bits}}
  %0 = tensor.empty() : tensor<4611686018427387904x4xf32>
  return
}

// -----

// 2^61 * 4 = 2^63 bytes: the element count fits, the byte size does not.
func.func @result_bytes_overflow(%x: tensor<1xf32>, %f: f32) {
  // expected-error @+1 {{result type tensor<2305843009213693952xf32> is not statically shaped or its size overflows 64 bits}}
  %0 = tensor.splat %f : tensor<2305843009213693952xf32>
  return
}

// -----

// expected-error @+1 {{argument #1 is not statically shaped or its size overflows 64 bits}}
func.func @argument_overflow(%x: tensor<4xf32>, %y: tensor<4611686018427387904x4xf32>) {
  return
}

// -----

// expected-error @+1 {{argument #0 is not statically shaped or its size overflows 64 bits}}
func.func @dynamic_argument(%x: tensor<?xf32>) {
  return
}

// -----

func.func @dynamic_result(%x: tensor<4xf32>) {
  // expected-error @+1 {{result type tensor<?xf32> is not statically shaped or its size overflows 64 bits}}
  %0 = tensor.cast %x : tensor<4xf32> to tensor<?xf32>
  return
}

// -----

// Each argument is 2^62 bytes; together 2^63.
// expected-error @+1 {{argument bytes overflow 64 bits}}
func.func @argument_sum_overflow(%x: tensor<4611686018427387904xi8>, %y: tensor<4611686018427387904xi8>) {
  return
}

// -----

// Each result is 2^62 bytes; the second brings the total to 2^63.
func.func @activation_sum_overflow(%x: tensor<1xi8>) {
  %0 = remat.opaque "a"(%x) {cost = 0.000000e+00 : f64} : (tensor<1xi8>) -> tensor<4611686018427387904xi8>
  // expected-error @+1 {{total activation bytes overflow 64 bits}}
  %1 = remat.opaque "b"(%x) {cost = 0.000000e+00 : f64} : (tensor<1xi8>) -> tensor<4611686018427387904xi8>
  return
}

// -----

func.func @region_op(%x: tensor<4xf32>) {
  // expected-error @+1 {{ops whose regions hold tensors (other than remat.recompute) are not supported by the memory analysis}}
  %0 = scf.execute_region -> tensor<4xf32> {
    scf.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @region_in_recompute(%x: tensor<4xf32>) {
  %0 = remat.recompute(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    // expected-error @+1 {{ops whose regions hold tensors are not supported inside remat.recompute by the memory analysis}}
    %1 = scf.execute_region -> tensor<4xf32> {
      scf.yield %a : tensor<4xf32>
    }
    remat.yield %1 : tensor<4xf32>
  }
  return
}

// -----

// expected-error @+1 {{memory analysis needs a single-block function body}}
func.func @multi_block(%x: tensor<4xf32>) {
  cf.br ^bb1
^bb1:
  return
}

// -----

// Arguments (2^62 bytes) plus the returned value (2^62 bytes) overflow the
// 64-bit total although each fits.
// expected-error @+1 {{total bytes (activations, arguments and outputs) overflow 64 bits}}
func.func @total_overflow(%x: tensor<1152921504606846976xf32>) -> tensor<1152921504606846976xf32> {
  %0 = remat.neg %x : (tensor<1152921504606846976xf32>) -> tensor<1152921504606846976xf32>
  return %0 : tensor<1152921504606846976xf32>
}
