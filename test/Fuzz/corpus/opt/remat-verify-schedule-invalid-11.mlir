func.func @keep_on_recomputed(%x: tensor<100xi8>) -> tensor<10xi8> {
  %a = remat.opaque "a"(%x) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %b = remat.opaque "b"(%a) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %r = remat.recompute(%x) : (tensor<100xi8>) -> tensor<100xi8> {
  ^bb0(%y: tensor<100xi8>):
    %0 = remat.opaque "a"(%y) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
    remat.yield %0 : tensor<100xi8>
  }
  remat.keep %r : tensor<100xi8>
  %g = remat.opaque "g"(%b, %r) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>, tensor<100xi8>) -> tensor<10xi8>
  return %g : tensor<10xi8>
}
