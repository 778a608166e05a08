// An f64 matmul (no library call: it stays loops), for cpu-vectorize.test.
func.func @mm(%a: tensor<64x40xf64>, %b: tensor<40x48xf64>) -> tensor<64x48xf64> {
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<64x48xf64>
  %c = linalg.fill ins(%z : f64) outs(%e : tensor<64x48xf64>) -> tensor<64x48xf64>
  %r = linalg.matmul ins(%a, %b : tensor<64x40xf64>, tensor<40x48xf64>)
      outs(%c : tensor<64x48xf64>) -> tensor<64x48xf64>
  return %r : tensor<64x48xf64>
}
