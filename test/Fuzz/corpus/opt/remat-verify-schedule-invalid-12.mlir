func.func @over_budget(%x: tensor<8xi8>) -> tensor<10xi8> {
  %a = remat.opaque "a"(%x) {cost = 1.0 : f64} : (tensor<8xi8>) -> tensor<600xi8>
  %b = remat.opaque "b"(%a) {cost = 1.0 : f64} : (tensor<600xi8>) -> tensor<400xi8>
  %r = remat.recompute(%x) : (tensor<8xi8>) -> tensor<600xi8> {
  ^bb0(%y: tensor<8xi8>):
    %0 = remat.opaque "a"(%y) {cost = 1.0 : f64} : (tensor<8xi8>) -> tensor<600xi8>
    remat.yield %0 : tensor<600xi8>
  }
  %g = remat.opaque "g"(%b, %r) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<400xi8>, tensor<600xi8>) -> tensor<10xi8>
  %g2 = remat.opaque "g2"(%g) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<10xi8>) -> tensor<10xi8>
  return %g2 : tensor<10xi8>
}
