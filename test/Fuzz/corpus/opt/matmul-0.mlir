func.func @matmul(%a: tensor<3x5xf32>, %b: tensor<5x4xf32>, %at: tensor<5x3xf32>, %bt: tensor<4x5xf32>,
                  %x: tensor<2x3x5xf32>, %y: tensor<2x5x4xf32>, %xt: tensor<2x5x3xf32>, %yt: tensor<2x4x5xf32>,
                  %p: tensor<2x2x3x5xf32>, %q: tensor<2x2x4x5xf32>)
    -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>,
        tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>,
        tensor<2x2x3x4xf32>, tensor<2x3x4xf32>) {
  %0 = remat.matmul %a, %b : (tensor<3x5xf32>, tensor<5x4xf32>) -> tensor<3x4xf32>
  %1 = remat.matmul %at, %b {transpose_a} : (tensor<5x3xf32>, tensor<5x4xf32>) -> tensor<3x4xf32>
  %2 = remat.matmul %a, %bt {transpose_b} : (tensor<3x5xf32>, tensor<4x5xf32>) -> tensor<3x4xf32>
  %3 = remat.matmul %at, %bt {transpose_a, transpose_b} : (tensor<5x3xf32>, tensor<4x5xf32>) -> tensor<3x4xf32>
  %4 = remat.matmul %x, %y : (tensor<2x3x5xf32>, tensor<2x5x4xf32>) -> tensor<2x3x4xf32>
  %5 = remat.matmul %xt, %yt {transpose_a, transpose_b} : (tensor<2x5x3xf32>, tensor<2x4x5xf32>) -> tensor<2x3x4xf32>
  %6 = remat.matmul %x, %b : (tensor<2x3x5xf32>, tensor<5x4xf32>) -> tensor<2x3x4xf32>
  %7 = remat.matmul %xt, %bt {transpose_a, transpose_b} : (tensor<2x5x3xf32>, tensor<4x5xf32>) -> tensor<2x3x4xf32>
  %8 = remat.matmul %p, %q {transpose_b} : (tensor<2x2x3x5xf32>, tensor<2x2x4x5xf32>) -> tensor<2x2x3x4xf32>
  %9 = remat.matmul %x, %yt {transpose_b} : (tensor<2x3x5xf32>, tensor<2x4x5xf32>) -> tensor<2x3x4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9
    : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>,
      tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>,
      tensor<2x2x3x4xf32>, tensor<2x3x4xf32>
}
