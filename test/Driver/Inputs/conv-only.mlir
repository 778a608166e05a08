// A model whose only BLAS work is convolutions (no matmul): a grouped,
// dilated, strided, padded, non-square convolution, average pooling and a
// cross-entropy loss (test/Driver/cpu-blas-conv.test).
func.func @convnet(%x: tensor<2x4x9x7xf32>, %labels: tensor<2xi64>,
                   %w: tensor<6x2x3x3xf32> {remat.param}) -> tensor<f32> {
  %y = remat.conv2d %x, %w {strides = array<i64: 2, 1>, padding = array<i64: 1, 0>, dilations = array<i64: 2, 1>, groups = 2 : i64} : (tensor<2x4x9x7xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x4x5xf32>
  %r = remat.relu %y : (tensor<2x6x4x5xf32>) -> tensor<2x6x4x5xf32>
  %p = remat.global_avg_pool %r : (tensor<2x6x4x5xf32>) -> tensor<2x6xf32>
  %loss = remat.softmax_cross_entropy %p, %labels : (tensor<2x6xf32>, tensor<2xi64>) -> tensor<f32>
  return %loss : tensor<f32>
}
