func.func @recompute(%x: tensor<4xf32>, %dy: tensor<4xf32>) -> tensor<4xf32> {
  %r = remat.recompute(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %0 = remat.tanh %a : (tensor<4xf32>) -> tensor<4xf32>
    remat.yield %0 : tensor<4xf32>
  }
  %1 = remat.tanh_grad %dy, %r {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
