func.func @mlp(%x: tensor<4x8xf32>, %w1: tensor<8x16xf32> {remat.param}, %b1: tensor<16xf32> {remat.param},
               %w2: tensor<16x5xf32> {remat.param}, %b2: tensor<5xf32> {remat.param},
               %y: tensor<4xi64>) -> tensor<f32> {
  %0 = remat.matmul %x, %w1 : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = remat.add %0, %b1 : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %2 = remat.relu %1 : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %3 = remat.matmul %2, %w2 : (tensor<4x16xf32>, tensor<16x5xf32>) -> tensor<4x5xf32>
  %4 = remat.add %3, %b2 : (tensor<4x5xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  %5 = remat.softmax_cross_entropy %4, %y : (tensor<4x5xf32>, tensor<4xi64>) -> tensor<f32>
  return %5 : tensor<f32>
}
