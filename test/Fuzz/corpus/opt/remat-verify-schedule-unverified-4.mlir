func.func @side_effect_in_region(%x: tensor<100xi8>) -> tensor<100xi8> {
  %r = remat.recompute(%x) : (tensor<100xi8>) -> tensor<100xi8> {
  ^bb0(%y: tensor<100xi8>):
    remat.keep %y : tensor<100xi8>
    remat.yield %y : tensor<100xi8>
  }
  return %r : tensor<100xi8>
}
