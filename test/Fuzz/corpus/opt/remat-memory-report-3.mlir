func.func @recompute_region(%x: tensor<16xf32>) {
  %0 = remat.exp %x : (tensor<16xf32>) -> tensor<16xf32>
  %1 = remat.neg %0 : (tensor<16xf32>) -> tensor<16xf32>
  %2 = remat.relu %1 : (tensor<16xf32>) -> tensor<16xf32>
  %r = remat.recompute(%0) : (tensor<16xf32>) -> tensor<16xf32> {
  ^bb0(%a: tensor<16xf32>):
    %3 = remat.broadcast_to %a : (tensor<16xf32>) -> tensor<4x16xf32>
    %4 = remat.sum_to %3 : (tensor<4x16xf32>) -> tensor<16xf32>
    remat.yield %4 : tensor<16xf32>
  }
  %5 = remat.mul %r, %2 : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  return
}
