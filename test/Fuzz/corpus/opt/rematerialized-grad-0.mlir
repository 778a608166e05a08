func.func @deep(%x: tensor<4x6xf32>, %t: tensor<4x6xf32>,
                %w1: tensor<6x6xf32> {remat.param}, %w2: tensor<6x6xf32> {remat.param},
                %w3: tensor<6x6xf32> {remat.param}, %w4: tensor<6x6xf32> {remat.param},
                %w5: tensor<6x6xf32> {remat.param}, %b: tensor<6xf32> {remat.param}) -> tensor<f32> {
  %0 = remat.matmul %x, %w1 : (tensor<4x6xf32>, tensor<6x6xf32>) -> tensor<4x6xf32>
  %1 = remat.tanh %0 : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %2 = remat.matmul %1, %w2 : (tensor<4x6xf32>, tensor<6x6xf32>) -> tensor<4x6xf32>
  %3 = remat.sigmoid %2 : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %4 = remat.matmul %3, %w3 : (tensor<4x6xf32>, tensor<6x6xf32>) -> tensor<4x6xf32>
  %5 = remat.gelu %4 : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %6 = remat.matmul %5, %w4 : (tensor<4x6xf32>, tensor<6x6xf32>) -> tensor<4x6xf32>
  %7 = remat.add %6, %b : (tensor<4x6xf32>, tensor<6xf32>) -> tensor<4x6xf32>
  %8 = remat.tanh %7 : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %9 = remat.matmul %8, %w5 : (tensor<4x6xf32>, tensor<6x6xf32>) -> tensor<4x6xf32>
  %10 = remat.log_softmax %9 : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %11 = remat.mse %10, %t : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<f32>
  return %11 : tensor<f32>
}
