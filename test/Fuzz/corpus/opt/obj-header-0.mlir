func.func @train(%input: tensor<4x8xf32>, %labels: tensor<4xi32>,
                 %w: tensor<8x3xf32> {remat.param},
                 %b: tensor<3xf32> {remat.param}) -> tensor<f32> {
  %0 = remat.matmul %input, %w : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  %1 = remat.add %0, %b : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %loss = remat.softmax_cross_entropy %1, %labels : (tensor<4x3xf32>, tensor<4xi32>) -> tensor<f32>
  return %loss : tensor<f32>
}
