func.func @step(%x: tensor<4x8xf32>, %labels: tensor<4xi64>,
                %w: tensor<8x3xf32> {remat.param},
                %b: tensor<3xf32> {remat.param}) -> tensor<f32> {
  %0 = remat.matmul %x, %w : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
  %1 = remat.add %0, %b : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %2 = remat.relu %1 : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %loss = remat.softmax_cross_entropy %2, %labels : (tensor<4x3xf32>, tensor<4xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
