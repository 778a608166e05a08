func.func @f(%x: tensor<4611686018427387904x4xf32>, %w: tensor<4611686018427387904x4xf32> {remat.param}) -> tensor<f32> {
  %0 = remat.mul %x, %w : (tensor<4611686018427387904x4xf32>, tensor<4611686018427387904x4xf32>) -> tensor<4611686018427387904x4xf32>
  %1 = remat.tanh %0 : (tensor<4611686018427387904x4xf32>) -> tensor<4611686018427387904x4xf32>
  %2 = remat.mse %1, %x : (tensor<4611686018427387904x4xf32>, tensor<4611686018427387904x4xf32>) -> tensor<f32>
  return %2 : tensor<f32>
}
