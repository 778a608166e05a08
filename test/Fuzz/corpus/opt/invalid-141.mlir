func.func @recompute_arg_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = remat.recompute(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<2x2xf32>):
    %1 = remat.reshape %a : (tensor<2x2xf32>) -> tensor<4xf32>
    remat.yield %1 : tensor<4xf32>
  }
  return %0 : tensor<4xf32>
}
