func.func @multi(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %r:3 = remat.recompute(%x, %w) : (tensor<4x4xf32>, tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  ^bb0(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>):
    %0 = remat.matmul %a, %b : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %1 = remat.relu %0 : (tensor<4x4xf32>) -> tensor<4x4xf32>
    remat.yield %1, %b, %0 : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
  }
  %s = remat.add %r#0, %r#1 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %s, %r#2 : tensor<4x4xf32>, tensor<4x4xf32>
}
