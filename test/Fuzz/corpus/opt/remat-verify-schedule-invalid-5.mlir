func.func @inner_operand_differs(%x: tensor<100xi8>) -> tensor<10xi8> {
  %a = remat.opaque "a"(%x) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %c = remat.opaque "c"(%x) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %b = remat.opaque "b"(%a) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
  %r = remat.recompute(%x) : (tensor<100xi8>) -> tensor<100xi8> {
  ^bb0(%y: tensor<100xi8>):
    %0 = remat.opaque "c"(%y) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
    %1 = remat.opaque "b"(%0) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<100xi8>
    remat.yield %1 : tensor<100xi8>
  }
  %g = remat.opaque "g"(%b, %r) {cost = 1.0 : f64, remat.phase = #remat.phase<backward>} : (tensor<100xi8>, tensor<100xi8>) -> tensor<10xi8>
  return %g : tensor<10xi8>
}
