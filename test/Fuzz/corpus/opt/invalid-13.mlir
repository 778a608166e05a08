func.func @seed_not_rank0(%x: tensor<4xf32>, %s: tensor<1xi64>) -> tensor<4xf32> {
  %0 = remat.dropout %x, %s {rate = 5.000000e-01 : f64} : (tensor<4xf32>, tensor<1xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
