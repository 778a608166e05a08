func.func @recompute_empty_body(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "remat.recompute"(%x) ({
  ^bb0(%a: tensor<4xf32>):
    %1 = remat.neg %a : (tensor<4xf32>) -> tensor<4xf32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
