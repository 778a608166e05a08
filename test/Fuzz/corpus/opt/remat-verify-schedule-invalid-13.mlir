func.func @peak_in_region(%x: tensor<8xi8>) -> tensor<10xi8> {
  %a = remat.opaque "a"(%x) {cost = 1.0 : f64} : (tensor<8xi8>) -> tensor<400xi8>
  %b = remat.opaque "b"(%a) {cost = 1.0 : f64} : (tensor<400xi8>) -> tensor<300xi8>
  %c = remat.opaque "c"(%b) {cost = 1.0 : f64} : (tensor<300xi8>) -> tensor<350xi8>
  %r = remat.recompute(%x) : (tensor<8xi8>) -> tensor<300xi8> {
  ^bb0(%y: tensor<8xi8>):
    %0 = remat.opaque "a"(%y) {cost = 1.0 : f64} : (tensor<8xi8>) -> tensor<400xi8>
    %1 = remat.opaque "b"(%0) {cost = 1.0 : f64} : (tensor<400xi8>) -> tensor<300xi8>
    remat.yield %1 : tensor<300xi8>
  }
  %g = remat.opaque "g"(%c, %r) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<350xi8>, tensor<300xi8>) -> tensor<10xi8>
  return %g : tensor<10xi8>
}
