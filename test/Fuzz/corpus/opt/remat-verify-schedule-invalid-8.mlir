func.func @backward_clone(%x: tensor<100xi8>) -> tensor<10xi8> {
  %a = remat.opaque "a"(%x) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %ga = remat.opaque "a_grad"(%a) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>) -> tensor<100xi8>
  %r = remat.recompute(%a) : (tensor<100xi8>) -> tensor<100xi8> {
  ^bb0(%y: tensor<100xi8>):
    %0 = remat.opaque "a_grad"(%y) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
    remat.yield %0 : tensor<100xi8>
  }
  %g = remat.opaque "g"(%ga, %r) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>, tensor<100xi8>) -> tensor<10xi8>
  return %g : tensor<10xi8>
}
