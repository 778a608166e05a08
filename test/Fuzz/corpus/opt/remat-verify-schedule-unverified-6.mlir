func.func @nested_region(%x: tensor<100xi8>) -> tensor<100xi8> {
  %a = remat.opaque "a"(%x) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %r = remat.recompute(%x) : (tensor<100xi8>) -> tensor<100xi8> {
  ^bb0(%y: tensor<100xi8>):
    %0 = remat.recompute(%y) : (tensor<100xi8>) -> tensor<100xi8> {
    ^bb0(%z: tensor<100xi8>):
      %1 = remat.opaque "a"(%z) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
      remat.yield %1 : tensor<100xi8>
    }
    remat.yield %0 : tensor<100xi8>
  }
  return %r : tensor<100xi8>
}
