func.func @hand(%x: tensor<2x3xf32>, %b: tensor<3xf32>, %w: tensor<3x2xf32>, %ids: tensor<3xi64>,
                %g: tensor<2x2xf32>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x2xf32>, tensor<3xf32>, tensor<3x2xf32>,
        tensor<2x2xf32>, tensor<3x2xf32>, tensor<f32>, tensor<4x3xf32>, tensor<2x3xf32>,
        tensor<2x3xf32>, tensor<f32>, tensor<3x2xf32>) {
  %0 = remat.add %x, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %1 = remat.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = remat.matmul %x, %w : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %3 = remat.sum_to %x : (tensor<2x3xf32>) -> tensor<3xf32>
  %4 = remat.transpose %x {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %5 = remat.slice %x {offsets = array<i64: 0, 0>, strides = array<i64: 1, 2>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  %6 = remat.embedding_grad %w, %ids : (tensor<3x2xf32>, tensor<3xi64>) -> tensor<3x2xf32>
  %7 = remat.mse %1, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<f32>
  %8 = remat.concat %x, %x {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %9 = remat.slice_grad %g {offsets = array<i64: 0, 0>, strides = array<i64: 1, 2>} : (tensor<2x2xf32>) -> tensor<2x3xf32>
  %10 = remat.broadcast_to %b : (tensor<3xf32>) -> tensor<2x3xf32>
  %z = remat.sub %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %lab = arith.constant dense<[2, 0]> : tensor<2xi64>
  %11 = remat.softmax_cross_entropy %z, %lab : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<f32>
  %12 = remat.embedding %w, %ids : (tensor<3x2xf32>, tensor<3xi64>) -> tensor<3x2xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12
    : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x2xf32>, tensor<3xf32>, tensor<3x2xf32>,
      tensor<2x2xf32>, tensor<3x2xf32>, tensor<f32>, tensor<4x3xf32>, tensor<2x3xf32>,
      tensor<2x3xf32>, tensor<f32>, tensor<3x2xf32>
}
