func.func @shape(%x: tensor<2x3x4xf32>, %y: tensor<2x2x4xf32>, %s: tensor<1xf32>, %g: tensor<2x2x2xf32>,
                 %r: tensor<3x1xf32>)
    -> (tensor<4x6xf32>, tensor<f32>, tensor<4x3x2xf32>, tensor<2x5x4xf32>, tensor<2x3x8xf32>,
        tensor<2x2x2xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<3x1xf32>,
        tensor<1x3x1xf32>, tensor<f32>, tensor<1x1x1xf32>) {
  %0 = remat.reshape %x : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
  %1 = remat.reshape %s : (tensor<1xf32>) -> tensor<f32>
  %2 = remat.transpose %x {permutation = array<i64: 2, 1, 0>} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  %3 = remat.concat %x, %y {axis = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x2x4xf32>) -> tensor<2x5x4xf32>
  %4 = remat.concat %x, %x {axis = -1 : i64} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x8xf32>
  %5 = remat.slice %x {offsets = array<i64: 0, 1, 1>, strides = array<i64: 1, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<2x2x2xf32>
  %6 = remat.slice_grad %g {offsets = array<i64: 0, 1, 1>, strides = array<i64: 1, 1, 2>} : (tensor<2x2x2xf32>) -> tensor<2x3x4xf32>
  %7 = remat.broadcast_to %r : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %8 = remat.sum_to %x : (tensor<2x3x4xf32>) -> tensor<3x4xf32>
  %9 = remat.sum_to %x : (tensor<2x3x4xf32>) -> tensor<3x1xf32>
  %10 = remat.sum_to %x : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  %z = remat.reshape %1 : (tensor<f32>) -> tensor<1xf32>
  %11 = remat.sum_to %z : (tensor<1xf32>) -> tensor<f32>
  %12 = remat.sum_to %x : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12
    : tensor<4x6xf32>, tensor<f32>, tensor<4x3x2xf32>, tensor<2x5x4xf32>, tensor<2x3x8xf32>,
      tensor<2x2x2xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<3x1xf32>,
      tensor<1x3x1xf32>, tensor<f32>, tensor<1x1x1xf32>
}
