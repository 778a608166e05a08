func.func @open(%x: tensor<4xf32>, %dy: tensor<4xf32>) -> tensor<4xf32> {
  %h = remat.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  %g = remat.tanh_grad %dy, %h : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %r = remat.recompute(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %0 = remat.tanh %a : (tensor<4xf32>) -> tensor<4xf32>
    remat.yield %0 : tensor<4xf32>
  }
  %g2 = remat.tanh_grad %g, %r : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %g2 : tensor<4xf32>
}
