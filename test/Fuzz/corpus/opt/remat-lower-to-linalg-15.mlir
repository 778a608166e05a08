func.func @reshape(%a: tensor<2x3x4xf32>, %b: tensor<1x1xi32>) -> (tensor<6x4xf32>, tensor<4x6xf32>, tensor<i32>) {
  %0 = remat.reshape %a : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %1 = remat.reshape %a : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
  %2 = remat.reshape %b : (tensor<1x1xi32>) -> tensor<i32>
  return %0, %1, %2 : tensor<6x4xf32>, tensor<4x6xf32>, tensor<i32>
}
