func.func @seed_i32(%x: tensor<4xf32>, %s: tensor<i32>) -> tensor<4xf32> {
  %0 = remat.dropout %x, %s {rate = 5.000000e-01 : f64} : (tensor<4xf32>, tensor<i32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
