func.func @step(%x: tensor<16x32xf32>, %labels: tensor<16xi64>,
                %w: tensor<32x10xf32> {remat.param}) -> tensor<f32> {
  %0 = remat.matmul %x, %w : (tensor<16x32xf32>, tensor<32x10xf32>) -> tensor<16x10xf32>
  %1 = remat.tanh %0 : (tensor<16x10xf32>) -> tensor<16x10xf32>
  %2 = remat.softmax_cross_entropy %1, %labels : (tensor<16x10xf32>, tensor<16xi64>) -> tensor<f32>
  return %2 : tensor<f32>
}
