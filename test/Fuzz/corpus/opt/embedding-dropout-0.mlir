func.func @embedding_dropout(%table: tensor<6x4xf32>, %ids: tensor<5xi32>, %ids2: tensor<2x7xi64>,
                             %g: tensor<2x7x4xf32>, %seed: tensor<i64>, %seed2: tensor<i64>,
                             %x: tensor<8x16xf32>)
    -> (tensor<5x4xf32>, tensor<2x7x4xf32>, tensor<6x4xf32>, tensor<8x16xf32>, tensor<8x16xf32>,
        tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<6x4xf32>) {
  %0 = remat.embedding %table, %ids : (tensor<6x4xf32>, tensor<5xi32>) -> tensor<5x4xf32>
  %1 = remat.embedding %table, %ids2 : (tensor<6x4xf32>, tensor<2x7xi64>) -> tensor<2x7x4xf32>
  %2 = remat.embedding_grad %g, %ids2 : (tensor<2x7x4xf32>, tensor<2x7xi64>) -> tensor<6x4xf32>
  %3 = remat.dropout %x, %seed {rate = 5.000000e-01 : f64} : (tensor<8x16xf32>, tensor<i64>) -> tensor<8x16xf32>
  %4 = remat.dropout %x, %seed {rate = 5.000000e-01 : f64} : (tensor<8x16xf32>, tensor<i64>) -> tensor<8x16xf32>
  %5 = remat.sub %3, %4 : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %6 = remat.dropout %x, %seed2 {rate = 2.500000e-01 : f64} : (tensor<8x16xf32>, tensor<i64>) -> tensor<8x16xf32>
  %7 = remat.dropout %x, %seed {rate = 0.000000e+00 : f64} : (tensor<8x16xf32>, tensor<i64>) -> tensor<8x16xf32>
  %8 = remat.embedding_grad %0, %ids : (tensor<5x4xf32>, tensor<5xi32>) -> tensor<6x4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8
    : tensor<5x4xf32>, tensor<2x7x4xf32>, tensor<6x4xf32>, tensor<8x16xf32>, tensor<8x16xf32>,
      tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<6x4xf32>
}
