func.func @attributes(%x: tensor<4xf32> {remat.param}) -> tensor<4xf32> attributes {remat.training_step} {
  %c = arith.constant {remat.phase = #remat.phase<backward>} dense<1.0> : tensor<4xf32>
  remat.keep %x : tensor<4xf32>
  %0 = remat.mul %x, %c {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
