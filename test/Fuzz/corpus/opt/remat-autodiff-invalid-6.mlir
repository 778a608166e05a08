func.func @opaque_on_path(%w: tensor<16xf32> {remat.param}, %t: tensor<16xf32>) -> tensor<f32> {
  %0 = remat.opaque "block"(%w) {cost = 1.000000e+00 : f64} : (tensor<16xf32>) -> tensor<16xf32>
  %1 = remat.mse %0, %t : (tensor<16xf32>, tensor<16xf32>) -> tensor<f32>
  return %1 : tensor<f32>
}
