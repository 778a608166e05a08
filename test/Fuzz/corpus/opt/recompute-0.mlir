func.func @recompute(%x: tensor<3x4xf32>, %w: tensor<4x4xf32>, %dy: tensor<3x4xf32>)
    -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>, tensor<3x4xf32>) {
  %h = remat.matmul %x, %w : (tensor<3x4xf32>, tensor<4x4xf32>) -> tensor<3x4xf32>
  %t = remat.tanh %h : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %r:2 = remat.recompute(%x, %w) : (tensor<3x4xf32>, tensor<4x4xf32>) -> (tensor<3x4xf32>, tensor<4x4xf32>) {
  ^bb0(%a: tensor<3x4xf32>, %b: tensor<4x4xf32>):
    %0 = remat.matmul %a, %b : (tensor<3x4xf32>, tensor<4x4xf32>) -> tensor<3x4xf32>
    %1 = remat.tanh %0 : (tensor<3x4xf32>) -> tensor<3x4xf32>
    remat.yield %1, %b : tensor<3x4xf32>, tensor<4x4xf32>
  }
  %g = remat.tanh_grad %dy, %r#0 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %s = remat.recompute(%g) : (tensor<3x4xf32>) -> tensor<3x4xf32> {
  ^bb0(%a: tensor<3x4xf32>):
    %0 = remat.softmax %a : (tensor<3x4xf32>) -> tensor<3x4xf32>
    remat.yield %0 : tensor<3x4xf32>
  }
  %d = remat.sub %t, %r#0 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %g, %s, %r#1, %d : tensor<3x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>, tensor<3x4xf32>
}
