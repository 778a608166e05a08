func.func @outputs(%x: tensor<8xf32> {remat.param}) -> (tensor<8xf32>, tensor<f32>, tensor<8xf32>) {
  %0 = remat.exp %x : (tensor<8xf32>) -> tensor<8xf32>
  %1 = remat.mse %0, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
  %2 = remat.neg %x : (tensor<8xf32>) -> tensor<8xf32>
  return %0, %1, %x : tensor<8xf32>, tensor<f32>, tensor<8xf32>
}
