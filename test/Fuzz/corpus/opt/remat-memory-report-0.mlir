func.func @chain(%x: tensor<4x8xf32>, %w: tensor<8x8xf32> {remat.param}, %b: tensor<8xf32> {remat.param}) -> tensor<4x8xf32> {
  %0 = remat.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %1 = remat.add %0, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %2 = remat.relu %1 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = remat.tanh %2 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %3 : tensor<4x8xf32>
}
