func.func @step(%x: tensor<16x32xf32>, %t: tensor<16x8xf32>,
                %w: tensor<32x8xf32> {remat.param}) -> tensor<f32> {
  %0 = remat.matmul %x, %w : (tensor<16x32xf32>, tensor<32x8xf32>) -> tensor<16x8xf32>
  %1 = remat.relu %0 : (tensor<16x8xf32>) -> tensor<16x8xf32>
  %2 = remat.mse %1, %t : (tensor<16x8xf32>, tensor<16x8xf32>) -> tensor<f32>
  return %2 : tensor<f32>
}
