func.func @losses(%l: tensor<6x5xf32>, %y: tensor<6xi64>, %l3: tensor<2x3x7xf32>, %y3: tensor<2x3xi32>,
                  %l1: tensor<4xf32>, %y1: tensor<i64>, %p: tensor<3x4xf32>, %t: tensor<3x4xf32>,
                  %dl: tensor<f32>)
    -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<6x5xf32>, tensor<2x3x7xf32>, tensor<4xf32>,
        tensor<f32>, tensor<3x4xf32>, tensor<3x4xf32>) {
  %0 = remat.softmax_cross_entropy %l, %y : (tensor<6x5xf32>, tensor<6xi64>) -> tensor<f32>
  %1 = remat.softmax_cross_entropy %l3, %y3 : (tensor<2x3x7xf32>, tensor<2x3xi32>) -> tensor<f32>
  %2 = remat.softmax_cross_entropy %l1, %y1 : (tensor<4xf32>, tensor<i64>) -> tensor<f32>
  %3 = remat.softmax_cross_entropy_grad %l, %y, %dl : (tensor<6x5xf32>, tensor<6xi64>, tensor<f32>) -> tensor<6x5xf32>
  %4 = remat.softmax_cross_entropy_grad %l3, %y3, %dl : (tensor<2x3x7xf32>, tensor<2x3xi32>, tensor<f32>) -> tensor<2x3x7xf32>
  %5 = remat.softmax_cross_entropy_grad %l1, %y1, %dl : (tensor<4xf32>, tensor<i64>, tensor<f32>) -> tensor<4xf32>
  %6 = remat.mse %p, %t : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<f32>
  %7 = remat.mse_grad %p, %t, %dl : (tensor<3x4xf32>, tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %8 = remat.mse_grad %t, %p, %one : (tensor<3x4xf32>, tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8
    : tensor<f32>, tensor<f32>, tensor<f32>, tensor<6x5xf32>, tensor<2x3x7xf32>, tensor<4xf32>,
      tensor<f32>, tensor<3x4xf32>, tensor<3x4xf32>
}
