// A bias, a layer norm over 512 rows of 96 features and an MSE loss: the
// row statistics (forward and backward) are reductions of many outputs
// (512) of moderate length (96), the gamma/beta/bias gradients few outputs
// (96) of 512 rows, the loss one output of 49,152 elements.
// Used by test/Driver/cuda-warp-reductions.mlir and cpu-gpu-loops.test.
func.func @rows(%x: tensor<512x96xf32>, %t: tensor<512x96xf32>,
                %b: tensor<96xf32> {remat.param},
                %g: tensor<96xf32> {remat.param},
                %beta: tensor<96xf32> {remat.param}) -> tensor<f32> {
  %0 = remat.add %x, %b : (tensor<512x96xf32>, tensor<96xf32>) -> tensor<512x96xf32>
  %1 = remat.layer_norm %0, %g, %beta {epsilon = 1.0e-5 : f64} : (tensor<512x96xf32>, tensor<96xf32>, tensor<96xf32>) -> tensor<512x96xf32>
  %2 = remat.tanh %1 : (tensor<512x96xf32>) -> tensor<512x96xf32>
  %3 = remat.mse %2, %t : (tensor<512x96xf32>, tensor<512x96xf32>) -> tensor<f32>
  return %3 : tensor<f32>
}
