func.func @step(%x: tensor<1024xf32> {remat.param}, %t: tensor<1024xf32>) -> tensor<f32> {
  %0 = remat.mse %x, %t : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
