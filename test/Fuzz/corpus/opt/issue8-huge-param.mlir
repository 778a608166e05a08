func.func @f(%x: tensor<4611686018427387904x4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  return %w : tensor<4xf32>
}
