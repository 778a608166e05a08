func.func @dropout(%x: tensor<4x8xf32>, %s: tensor<i64>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = remat.dropout %x, %s {rate = 2.5e-01 : f64} : (tensor<4x8xf32>, tensor<i64>) -> tensor<4x8xf32>
  %1 = remat.dropout %x, %s {rate = 0.0 : f64} : (tensor<4x8xf32>, tensor<i64>) -> tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}
