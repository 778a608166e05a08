func.func @f64_not_allowed(%x: tensor<4xf64>) -> tensor<4xf64> {
  %0 = remat.exp %x : (tensor<4xf64>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}
