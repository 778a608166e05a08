func.func @two(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = remat.recompute(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%i: tensor<4xf32>):
    %0 = remat.exp %i : (tensor<4xf32>) -> tensor<4xf32>
    remat.yield %0 : tensor<4xf32>
  }
  %b = remat.neg %a : (tensor<4xf32>) -> tensor<4xf32>
  %c = remat.recompute(%b) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%i: tensor<4xf32>):
    %0 = remat.exp %i : (tensor<4xf32>) -> tensor<4xf32>
    remat.yield %0 : tensor<4xf32>
  }
  return %c : tensor<4xf32>
}
