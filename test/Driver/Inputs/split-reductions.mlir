// A batch norm of 2 channels over 192 x 9 x 9 positions and a classifier
// of 10 classes over 192 rows: the statistics and the scale/shift
// gradients are few-output long reductions (2 outputs x 15552 elements:
// split in slices, remat-gpu-split-reductions), the softmax rows many
// outputs of 10 elements (one 16-lane segment each).
// Used by test/Driver/cuda-split-reductions.mlir and cpu-gpu-loops.test.
func.func @bn_classifier(%x: tensor<192x2x9x9xf32>, %y: tensor<192xi64>,
                         %g: tensor<2xf32> {remat.param},
                         %b: tensor<2xf32> {remat.param},
                         %w: tensor<162x10xf32> {remat.param}) -> tensor<f32> {
  %0 = remat.batch_norm %x, %g, %b : (tensor<192x2x9x9xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<192x2x9x9xf32>
  %1 = remat.tanh %0 : (tensor<192x2x9x9xf32>) -> tensor<192x2x9x9xf32>
  %2 = remat.reshape %1 : (tensor<192x2x9x9xf32>) -> tensor<192x162xf32>
  %3 = remat.matmul %2, %w : (tensor<192x162xf32>, tensor<162x10xf32>) -> tensor<192x10xf32>
  %4 = remat.softmax_cross_entropy %3, %y : (tensor<192x10xf32>, tensor<192xi64>) -> tensor<f32>
  return %4 : tensor<f32>
}
