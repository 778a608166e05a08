func.func @empty(%x: tensor<f32>) -> tensor<f32> {
  return %x : tensor<f32>
}

func.func @second(%w: tensor<8x8xf32> {remat.param}) {
  %0 = remat.matmul %w, %w : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return
}

func.func private @declaration(tensor<4xf32>)
