func.func @half(%a: tensor<2x3x8xf16>, %w: tensor<8x5xf16>, %b: tensor<5xf16>, %p: tensor<4x6xbf16>,
                %q: tensor<4x6xbf16>, %ids: tensor<2x3xi32>, %seed: tensor<i64>, %tab: tensor<6x8xbf16>)
    -> (tensor<2x3x5xf16>, tensor<2x3x5xf16>, tensor<2x3x5xf16>, tensor<5xf16>, tensor<f16>,
        tensor<2x3x5xf16>, tensor<bf16>, tensor<4x6xbf16>, tensor<6x8xbf16>, tensor<2x3x8xf16>,
        tensor<6x4xbf16>) {
  %0 = remat.matmul %a, %w : (tensor<2x3x8xf16>, tensor<8x5xf16>) -> tensor<2x3x5xf16>
  %1 = remat.add %0, %b : (tensor<2x3x5xf16>, tensor<5xf16>) -> tensor<2x3x5xf16>
  %2 = remat.gelu %1 : (tensor<2x3x5xf16>) -> tensor<2x3x5xf16>
  %3 = remat.sum_to %2 : (tensor<2x3x5xf16>) -> tensor<5xf16>
  %lab = arith.constant dense<[[0, 4, 2], [1, 3, 0]]> : tensor<2x3xi64>
  %4 = remat.softmax_cross_entropy %1, %lab : (tensor<2x3x5xf16>, tensor<2x3xi64>) -> tensor<f16>
  %5 = remat.softmax %1 : (tensor<2x3x5xf16>) -> tensor<2x3x5xf16>
  %6 = remat.mse %p, %q : (tensor<4x6xbf16>, tensor<4x6xbf16>) -> tensor<bf16>
  %one = arith.constant dense<1.0> : tensor<bf16>
  %7 = remat.mse_grad %p, %q, %one : (tensor<4x6xbf16>, tensor<4x6xbf16>, tensor<bf16>) -> tensor<4x6xbf16>
  %e = remat.embedding %tab, %ids : (tensor<6x8xbf16>, tensor<2x3xi32>) -> tensor<2x3x8xbf16>
  %8 = remat.embedding_grad %e, %ids : (tensor<2x3x8xbf16>, tensor<2x3xi32>) -> tensor<6x8xbf16>
  %9 = remat.dropout %a, %seed {rate = 5.000000e-01 : f64} : (tensor<2x3x8xf16>, tensor<i64>) -> tensor<2x3x8xf16>
  %10 = remat.transpose %p {permutation = array<i64: 1, 0>} : (tensor<4x6xbf16>) -> tensor<6x4xbf16>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10
    : tensor<2x3x5xf16>, tensor<2x3x5xf16>, tensor<2x3x5xf16>, tensor<5xf16>, tensor<f16>,
      tensor<2x3x5xf16>, tensor<bf16>, tensor<4x6xbf16>, tensor<6x8xbf16>, tensor<2x3x8xf16>,
      tensor<6x4xbf16>
}
