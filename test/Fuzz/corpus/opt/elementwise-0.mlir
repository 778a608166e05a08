func.func @elementwise(%a: tensor<2x3x4xf32>, %b: tensor<3x1xf32>, %c: tensor<4xf32>,
                       %d: tensor<2x1x4xf32>, %e: tensor<1xf32>, %dy: tensor<2x3x4xf32>)
    -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>,
        tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>,
        tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>,
        tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<2x3x4xf32>) {
  %0 = remat.add %a, %b : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %1 = remat.sub %c, %a : (tensor<4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %2 = remat.mul %d, %b : (tensor<2x1x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %two = arith.constant dense<2.0> : tensor<1xf32>
  %den = remat.add %two, %e : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
  %3 = remat.div %a, %den : (tensor<2x3x4xf32>, tensor<1xf32>) -> tensor<2x3x4xf32>
  %4 = remat.relu %a : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %5 = remat.gelu %a : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %6 = remat.tanh %a : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %7 = remat.sigmoid %a : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %8 = remat.exp %a : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %9 = remat.log %7 : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %10 = remat.neg %a : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %11 = remat.relu_grad %dy, %a : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %12 = remat.gelu_grad %dy, %a : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %13 = remat.tanh_grad %dy, %6 : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %14 = remat.add %b, %c : (tensor<3x1xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %15 = remat.sigmoid_grad %dy, %7 : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15
    : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>,
      tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>,
      tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>,
      tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<3x4xf32>, tensor<2x3x4xf32>
}
