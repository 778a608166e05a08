func.func @recompute_dynamic_result(%x: tensor<4xf32>) -> tensor<?xf32> {
  %0 = remat.recompute(%x) : (tensor<4xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<4xf32>):
    %1 = tensor.cast %a : tensor<4xf32> to tensor<?xf32>
    remat.yield %1 : tensor<?xf32>
  }
  return %0 : tensor<?xf32>
}
