func.func @rate_missing(%x: tensor<4xf32>, %s: tensor<i64>) -> tensor<4xf32> {
  %0 = remat.dropout %x, %s : (tensor<4xf32>, tensor<i64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
