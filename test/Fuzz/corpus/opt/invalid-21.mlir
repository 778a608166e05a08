func.func @rate_negative(%x: tensor<4xf32>, %s: tensor<i64>) -> tensor<4xf32> {
  %0 = remat.dropout %x, %s {rate = -1.000000e-01 : f64} : (tensor<4xf32>, tensor<i64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
