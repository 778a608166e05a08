func.func @diamond(%input: tensor<0xi8>) -> tensor<4xi8> attributes {remat.forward_only} {
  %s = remat.opaque "s"(%input) {cost = 1.0 : f64} : (tensor<0xi8>) -> tensor<8xi8>
  %big = remat.opaque "big"(%s) {cost = 5.0 : f64} : (tensor<8xi8>) -> tensor<100xi8>
  %x = remat.opaque "x"(%big) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<10xi8>
  %y = remat.opaque "y"(%big) {cost = 1.0 : f64} : (tensor<100xi8>) -> tensor<10xi8>
  %z = remat.opaque "z"(%x, %y) {cost = 1.0 : f64} : (tensor<10xi8>, tensor<10xi8>) -> tensor<10xi8>
  %w = remat.opaque "w"(%z) {cost = 1.0 : f64} : (tensor<10xi8>) -> tensor<10xi8>
  %out = remat.opaque "out"(%w, %big) {cost = 1.0 : f64} : (tensor<10xi8>, tensor<100xi8>) -> tensor<4xi8>
  return %out : tensor<4xi8>
}
