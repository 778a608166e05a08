func.func @captures_backward_value(%x: tensor<100xi8>) -> tensor<100xi8> {
  %a = remat.opaque "a"(%x) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %b = remat.opaque "b"(%a) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %ga = remat.opaque "a_grad"(%b) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>) -> tensor<100xi8>
  %r = remat.recompute(%ga) : (tensor<100xi8>) -> tensor<100xi8> {
  ^bb0(%y: tensor<100xi8>):
    %0 = remat.opaque "b"(%y) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
    remat.yield %0 : tensor<100xi8>
  }
  return %r : tensor<100xi8>
}
