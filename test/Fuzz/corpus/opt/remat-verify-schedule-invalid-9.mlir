func.func @no_recompute_clone(%x: tensor<100xi8>) -> tensor<10xi8> {
  %a = remat.opaque "a"(%x) {cost = 1.0 : f64, remat.no_recompute} : (tensor<100xi8>) -> tensor<100xi8>
  %r = remat.recompute(%x) : (tensor<100xi8>) -> tensor<100xi8> {
  ^bb0(%y: tensor<100xi8>):
    %0 = remat.opaque "a"(%y) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
    remat.yield %0 : tensor<100xi8>
  }
  %g = remat.opaque "g"(%a, %r) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>, tensor<100xi8>) -> tensor<10xi8>
  return %g : tensor<10xi8>
}
