// Node costs near 1e308 (each finite): their sums used to overflow, and the
// JSON reports held inf and -nan with exit code 0.
func.func @huge(%x: tensor<4xi8>) -> tensor<4xi8> {
  %a = remat.opaque "a"(%x) {cost = 1.000000e+308 : f64} : (tensor<4xi8>) -> tensor<4xi8>
  %b = remat.opaque "b"(%a) {cost = 1.000000e+308 : f64} : (tensor<4xi8>) -> tensor<4xi8>
  %g = remat.opaque "g"(%b, %a) {cost = 1.000000e+308 : f64, remat.phase = #remat.phase<backward>} : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  return %g : tensor<4xi8>
}
