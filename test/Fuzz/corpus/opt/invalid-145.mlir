func.func @recompute_backward_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = remat.recompute(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %1 = remat.neg %a {remat.phase = #remat.phase<backward>} : (tensor<4xf32>) -> tensor<4xf32>
    remat.yield %1 : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}
