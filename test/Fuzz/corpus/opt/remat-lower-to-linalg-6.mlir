func.func @matmul_f16(%a: tensor<3x5xf16>, %b: tensor<5x4xf16>) -> tensor<3x4xf16> {
  %0 = remat.matmul %a, %b : (tensor<3x5xf16>, tensor<5x4xf16>) -> tensor<3x4xf16>
  return %0 : tensor<3x4xf16>
}
