func.func @not_marked(%input: tensor<0xi8>) -> tensor<1xi8> {
  %in = remat.opaque "in"(%input) {cost = 2.0 : f64} : (tensor<0xi8>) -> tensor<1xi8>
  %b = remat.opaque "B"(%in) {cost = 3.0 : f64} : (tensor<1xi8>) -> tensor<100xi8>
  %a1 = remat.opaque "a1"(%b) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<20xi8>
  %out = remat.opaque "out"(%a1, %b) {cost = 1.0 : f64} : (tensor<20xi8>, tensor<100xi8>) -> tensor<1xi8>
  return %out : tensor<1xi8>
}
