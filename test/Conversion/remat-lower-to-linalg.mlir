// RUN: remat-opt %s --remat-lower-to-linalg --split-input-file | FileCheck %s
// The pass runs on one function at a time, nested under func.func.
// RUN: remat-opt %s --pass-pipeline='builtin.module(func.func(remat-lower-to-linalg))' --split-input-file | FileCheck %s

// The IR produced for every op family (convolution, pooling and
// normalization are tested separately). Numerics are checked by the
// execution tests in test/Execution.

// CHECK-LABEL: func @matmul_2d
// CHECK: %[[E:.+]] = tensor.empty() : tensor<3x4xf32>
// CHECK: %[[Z:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[E]] : tensor<3x4xf32>)
// CHECK: %[[R:.+]] = linalg.matmul ins(%arg0, %arg1 : tensor<3x5xf32>, tensor<5x4xf32>) outs(%[[Z]] : tensor<3x4xf32>)
// CHECK: return %[[R]]
// CHECK-NOT: remat.
func.func @matmul_2d(%a: tensor<3x5xf32>, %b: tensor<5x4xf32>) -> tensor<3x4xf32> {
  %0 = remat.matmul %a, %b : (tensor<3x5xf32>, tensor<5x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// A transposed operand is an indexing map, not a copy.
// CHECK-DAG: #[[$TA_A:.+]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[$TA_B:.+]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[$TA_C:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @matmul_transpose_a
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul indexing_maps = [#[[$TA_A]], #[[$TA_B]], #[[$TA_C]]] ins(%arg0, %arg1 : tensor<5x3xf32>, tensor<5x4xf32>)
func.func @matmul_transpose_a(%a: tensor<5x3xf32>, %b: tensor<5x4xf32>) -> tensor<3x4xf32> {
  %0 = remat.matmul %a, %b {transpose_a} : (tensor<5x3xf32>, tensor<5x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-DAG: #[[$BT_A:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[$BT_B:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[$BT_C:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func @matmul_batched_transpose_b
// CHECK: linalg.batch_matmul indexing_maps = [#[[$BT_A]], #[[$BT_B]], #[[$BT_C]]] ins(%arg0, %arg1 : tensor<2x3x5xf32>, tensor<2x4x5xf32>) outs(%{{.+}} : tensor<2x3x4xf32>)
func.func @matmul_batched_transpose_b(%a: tensor<2x3x5xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x4xf32> {
  %0 = remat.matmul %a, %b {transpose_b} : (tensor<2x3x5xf32>, tensor<2x4x5xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Two batch dimensions are collapsed into one around linalg.batch_matmul.
// CHECK-LABEL: func @matmul_4d
// CHECK: %[[A:.+]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2], [3]] : tensor<2x2x3x5xf32> into tensor<4x3x5xf32>
// CHECK: %[[B:.+]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1], [2], [3]] : tensor<2x2x5x4xf32> into tensor<4x5x4xf32>
// CHECK: %[[P:.+]] = linalg.batch_matmul ins(%[[A]], %[[B]] : tensor<4x3x5xf32>, tensor<4x5x4xf32>)
// CHECK: %[[R:.+]] = tensor.expand_shape %[[P]] {{\[\[}}0, 1], [2], [3]] output_shape [2, 2, 3, 4]
// CHECK: return %[[R]]
func.func @matmul_4d(%a: tensor<2x2x3x5xf32>, %b: tensor<2x2x5x4xf32>) -> tensor<2x2x3x4xf32> {
  %0 = remat.matmul %a, %b : (tensor<2x2x3x5xf32>, tensor<2x2x5x4xf32>) -> tensor<2x2x3x4xf32>
  return %0 : tensor<2x2x3x4xf32>
}

// -----

// A 2-D rhs shared by the batch: the batch is folded into the rows of lhs.
// CHECK-DAG: #[[$SR_A:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$SR_B:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$SR_C:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @matmul_shared_rhs
// CHECK: %[[A:.+]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<2x3x5xf32> into tensor<6x5xf32>
// CHECK: %[[P:.+]] = linalg.matmul indexing_maps = [#[[$SR_A]], #[[$SR_B]], #[[$SR_C]]] ins(%[[A]], %arg1 : tensor<6x5xf32>, tensor<4x5xf32>)
// CHECK: tensor.expand_shape %[[P]] {{\[\[}}0, 1], [2]] output_shape [2, 3, 4] : tensor<6x4xf32> into tensor<2x3x4xf32>
func.func @matmul_shared_rhs(%a: tensor<2x3x5xf32>, %b: tensor<4x5xf32>) -> tensor<2x3x4xf32> {
  %0 = remat.matmul %a, %b {transpose_b} : (tensor<2x3x5xf32>, tensor<4x5xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// A transposed batched lhs with a shared rhs: a generic product.
// CHECK-DAG: #[[$ST_A:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>
// CHECK-DAG: #[[$ST_B:.+]] = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
// CHECK-DAG: #[[$ST_C:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func @matmul_shared_rhs_transpose_a
// CHECK: linalg.generic {indexing_maps = [#[[$ST_A]], #[[$ST_B]], #[[$ST_C]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<2x5x3xf32>, tensor<5x4xf32>)
// CHECK: ^bb0(%[[X:.+]]: f32, %[[Y:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK:   %[[M:.+]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK:   %[[S:.+]] = arith.addf %[[ACC]], %[[M]] : f32
// CHECK:   linalg.yield %[[S]]
func.func @matmul_shared_rhs_transpose_a(%a: tensor<2x5x3xf32>, %b: tensor<5x4xf32>) -> tensor<2x3x4xf32> {
  %0 = remat.matmul %a, %b {transpose_a} : (tensor<2x5x3xf32>, tensor<5x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// f16 operands accumulate into f32; the product is truncated afterwards.
// CHECK-LABEL: func @matmul_f16
// CHECK: %[[Z:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<3x4xf32>)
// CHECK: %[[P:.+]] = linalg.matmul ins(%arg0, %arg1 : tensor<3x5xf16>, tensor<5x4xf16>) outs(%[[Z]] : tensor<3x4xf32>)
// CHECK: linalg.generic {{.+}} ins(%[[P]] : tensor<3x4xf32>) outs(%{{.+}} : tensor<3x4xf16>)
// CHECK:   arith.truncf %{{.+}} : f32 to f16
func.func @matmul_f16(%a: tensor<3x5xf16>, %b: tensor<5x4xf16>) -> tensor<3x4xf16> {
  %0 = remat.matmul %a, %b : (tensor<3x5xf16>, tensor<5x4xf16>) -> tensor<3x4xf16>
  return %0 : tensor<3x4xf16>
}

// -----

// A size-1 dimension that broadcasts is read at constant index 0; missing
// leading dimensions are dropped from the map.
// CHECK-DAG: #[[$ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$BC:.+]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-LABEL: func @add_broadcast
// CHECK: linalg.generic {indexing_maps = [#[[$ID3]], #[[$BC]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %arg1 : tensor<2x3x4xf32>, tensor<3x1xf32>)
// CHECK:   arith.addf
func.func @add_broadcast(%a: tensor<2x3x4xf32>, %b: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %0 = remat.add %a, %b : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func @binary
// CHECK: linalg.generic {indexing_maps = [#[[$ROW]], #[[$ID2]], #[[$ID2]]]
// CHECK:   arith.subf %{{.+}}, %{{.+}} : f32
// CHECK: linalg.generic {indexing_maps = [#[[$ROW]], #[[$ID2]], #[[$ID2]]]
// CHECK:   arith.mulf %{{.+}}, %{{.+}} : f32
// CHECK: linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]], #[[$ID2]]]
// CHECK:   arith.divf %{{.+}}, %{{.+}} : f32
func.func @binary(%a: tensor<4xf32>, %b: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %0 = remat.sub %a, %b : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %1 = remat.mul %a, %b : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = remat.div %b, %a : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0, %1, %2 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func @unary
// relu
// CHECK: linalg.generic
// CHECK: ^bb0(%[[X0:.+]]: f32, %{{.+}}: f32):
// CHECK:   %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:   arith.maximumf %[[X0]], %[[ZERO]] : f32
// gelu (tanh approximation)
// CHECK: linalg.generic
// CHECK:   arith.constant 4.471500e-02 : f32
// CHECK:   arith.constant 0.797884583 : f32
// CHECK:   math.tanh
// CHECK:   arith.constant 5.000000e-01 : f32
// tanh
// CHECK: linalg.generic
// CHECK:   math.tanh
// sigmoid = 1 / (1 + exp(-x))
// CHECK: linalg.generic
// CHECK:   arith.negf
// CHECK:   math.exp
// CHECK:   arith.divf
// CHECK: linalg.generic
// CHECK:   math.exp
// CHECK: linalg.generic
// CHECK:   math.log
// CHECK: linalg.generic
// CHECK:   arith.negf
// CHECK-NOT: remat.
func.func @unary(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = remat.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = remat.gelu %x : (tensor<4xf32>) -> tensor<4xf32>
  %2 = remat.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  %3 = remat.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
  %4 = remat.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %5 = remat.log %x : (tensor<4xf32>) -> tensor<4xf32>
  %6 = remat.neg %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func @gelu_erf
// gelu_erf: x * 0.5 * (1 + erf(x / sqrt(2)))
// CHECK: linalg.generic
// CHECK: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK:   %[[R2:.+]] = arith.constant 0.707106769 : f32
// CHECK:   %[[S:.+]] = arith.mulf %[[R2]], %[[X]] : f32
// CHECK:   %[[E:.+]] = math.erf %[[S]] : f32
// CHECK:   %[[P:.+]] = arith.addf %{{.+}}, %[[E]] : f32
// CHECK:   %[[CDF:.+]] = arith.mulf %{{.+}}, %[[P]] : f32
// CHECK:   arith.mulf %[[X]], %[[CDF]] : f32
// gelu_erf_grad: dy * (Phi(x) + x * exp(-x^2 / 2) / sqrt(2 pi))
// CHECK: linalg.generic
// CHECK: ^bb0(%[[DY:.+]]: f32, %[[X2:.+]]: f32, %{{.+}}: f32):
// CHECK:   %[[SQ:.+]] = arith.mulf %[[X2]], %[[X2]] : f32
// CHECK:   %[[M:.+]] = arith.constant -5.000000e-01 : f32
// CHECK:   %[[H:.+]] = arith.mulf %[[M]], %[[SQ]] : f32
// CHECK:   %[[EXP:.+]] = math.exp %[[H]] : f32
// CHECK:   %[[R2PI:.+]] = arith.constant 0.398942292 : f32
// CHECK:   %[[PHI:.+]] = arith.mulf %[[R2PI]], %[[EXP]] : f32
// CHECK:   %[[XPHI:.+]] = arith.mulf %[[X2]], %[[PHI]] : f32
// CHECK:   math.erf
// CHECK:   %[[D:.+]] = arith.addf %{{.+}}, %[[XPHI]] : f32
// CHECK-NEXT: arith.mulf %[[DY]], %[[D]] : f32
// CHECK-NOT: remat.
func.func @gelu_erf(%x: tensor<4xf32>, %dy: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = remat.gelu_erf %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = remat.gelu_erf_grad %dy, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func @activation_grads
// relu_grad: dy if x > 0 else 0
// CHECK: ^bb0(%[[DY:.+]]: f32, %[[X:.+]]: f32, %{{.+}}: f32):
// CHECK:   %[[POS:.+]] = arith.cmpf ogt, %[[X]], %{{.+}} : f32
// CHECK:   arith.select %[[POS]], %[[DY]], %{{.+}} : f32
// gelu_grad: derivative of the tanh approximation, 3 * 0.044715 = 0.134145
// CHECK: linalg.generic
// CHECK:   math.tanh
// CHECK:   arith.constant 1.341450e-01 : f32
// tanh_grad: dy * (1 - y^2)
// CHECK: ^bb0(%[[DY2:.+]]: f32, %[[Y2:.+]]: f32, %{{.+}}: f32):
// CHECK:   %[[SQ:.+]] = arith.mulf %[[Y2]], %[[Y2]] : f32
// CHECK:   %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK:   %[[D:.+]] = arith.subf %[[ONE]], %[[SQ]] : f32
// CHECK:   arith.mulf %[[DY2]], %[[D]] : f32
// sigmoid_grad: dy * y * (1 - y)
// CHECK: ^bb0(%[[DY3:.+]]: f32, %[[Y3:.+]]: f32, %{{.+}}: f32):
// CHECK:   %[[ONE3:.+]] = arith.constant 1.000000e+00 : f32
// CHECK:   %[[OMY:.+]] = arith.subf %[[ONE3]], %[[Y3]] : f32
// CHECK:   %[[YY:.+]] = arith.mulf %[[Y3]], %[[OMY]] : f32
// CHECK:   arith.mulf %[[DY3]], %[[YY]] : f32
func.func @activation_grads(%dy: tensor<4xf32>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = remat.relu_grad %dy, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = remat.gelu_grad %dy, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = remat.tanh_grad %dy, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = remat.sigmoid_grad %dy, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// 16-bit floats are computed in f32.
// CHECK-LABEL: func @relu_bf16
// CHECK: ^bb0(%[[IN:.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT:   %[[W:.+]] = arith.extf %[[IN]] : bf16 to f32
// CHECK-NEXT:   arith.constant
// CHECK-NEXT:   %[[M:.+]] = arith.maximumf %[[W]], %{{.+}} : f32
// CHECK-NEXT:   %[[T:.+]] = arith.truncf %[[M]] : f32 to bf16
// CHECK-NEXT:   linalg.yield %[[T]] : bf16
func.func @relu_bf16(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = remat.relu %x : (tensor<4xbf16>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// Row maximum, sum of exp(x - max), then exp(x - max) / sum.
// CHECK-DAG: #[[$SM_ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$SM_ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func @softmax
// CHECK: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MI:.+]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.+}} : tensor<2xf32>)
// CHECK: %[[MAX:.+]] = linalg.generic {indexing_maps = [#[[$SM_ID]], #[[$SM_ROW]]], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<2x5xf32>) outs(%[[MI]] : tensor<2xf32>)
// CHECK:   arith.maximumf
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$SM_ID]], #[[$SM_ROW]], #[[$SM_ROW]]], iterator_types = ["parallel", "reduction"]} ins(%arg0, %[[MAX]] : tensor<2x5xf32>, tensor<2xf32>)
// CHECK:   arith.subf
// CHECK:   math.exp
// CHECK:   arith.addf
// CHECK: linalg.generic {indexing_maps = [#[[$SM_ID]], #[[$SM_ROW]], #[[$SM_ROW]], #[[$SM_ID]]], iterator_types = ["parallel", "parallel"]} ins(%arg0, %[[MAX]], %[[SUM]] : tensor<2x5xf32>, tensor<2xf32>, tensor<2xf32>)
// CHECK:   arith.subf
// CHECK:   math.exp
// CHECK:   arith.divf
func.func @softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = remat.softmax %x : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// Along axis 0 the reductions run over d0.
// CHECK-DAG: #[[$LS_COL:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func @log_softmax_axis0
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[$LS_COL]]], iterator_types = ["reduction", "parallel"]}
// CHECK:   arith.maximumf
// CHECK: linalg.generic {{.+}} iterator_types = ["reduction", "parallel"]
// CHECK:   math.exp
// CHECK: linalg.generic {{.+}} iterator_types = ["parallel", "parallel"]
// CHECK:   %[[SH:.+]] = arith.subf
// CHECK:   %[[LG:.+]] = math.log
// CHECK:   arith.subf %[[SH]], %[[LG]] : f32
func.func @log_softmax_axis0(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = remat.log_softmax %x {axis = 0 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// softmax_grad: y * (dy - sum(dy * y)); log_softmax_grad: dy - exp(y) * sum(dy).
// CHECK-LABEL: func @softmax_grads
// CHECK: %[[S1:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%arg0, %arg1 : tensor<2x5xf32>, tensor<2x5xf32>)
// CHECK:   arith.mulf
// CHECK:   arith.addf
// CHECK: linalg.generic {{.+}} ins(%arg0, %arg1, %[[S1]] : tensor<2x5xf32>, tensor<2x5xf32>, tensor<2xf32>)
// CHECK: ^bb0(%[[DY:.+]]: f32, %[[Y:.+]]: f32, %[[S:.+]]: f32, %{{.+}}: f32):
// CHECK:   %[[D:.+]] = arith.subf %[[DY]], %[[S]] : f32
// CHECK:   arith.mulf %[[Y]], %[[D]] : f32
// CHECK: %[[S2:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<2x5xf32>)
// CHECK: linalg.generic {{.+}} ins(%arg0, %arg1, %[[S2]] : tensor<2x5xf32>, tensor<2x5xf32>, tensor<2xf32>)
// CHECK: ^bb0(%[[DY2:.+]]: f32, %[[Y2:.+]]: f32, %[[T:.+]]: f32, %{{.+}}: f32):
// CHECK:   %[[E:.+]] = math.exp %[[Y2]] : f32
// CHECK:   %[[P:.+]] = arith.mulf %[[E]], %[[T]] : f32
// CHECK:   arith.subf %[[DY2]], %[[P]] : f32
func.func @softmax_grads(%dy: tensor<2x5xf32>, %y: tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>) {
  %0 = remat.softmax_grad %dy, %y : (tensor<2x5xf32>, tensor<2x5xf32>) -> tensor<2x5xf32>
  %1 = remat.log_softmax_grad %dy, %y : (tensor<2x5xf32>, tensor<2x5xf32>) -> tensor<2x5xf32>
  return %0, %1 : tensor<2x5xf32>, tensor<2x5xf32>
}

// -----

// One collapse when the dimensions group, else flatten and expand.
// CHECK-LABEL: func @reshape
// CHECK: %[[C:.+]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: %[[F:.+]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK: %[[X:.+]] = tensor.expand_shape %[[F]] {{\[\[}}0, 1]] output_shape [4, 6] : tensor<24xf32> into tensor<4x6xf32>
// CHECK: %[[S:.+]] = tensor.collapse_shape %arg1 [] : tensor<1x1xi32> into tensor<i32>
// CHECK: return %[[C]], %[[X]], %[[S]]
func.func @reshape(%a: tensor<2x3x4xf32>, %b: tensor<1x1xi32>) -> (tensor<6x4xf32>, tensor<4x6xf32>, tensor<i32>) {
  %0 = remat.reshape %a : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %1 = remat.reshape %a : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
  %2 = remat.reshape %b : (tensor<1x1xi32>) -> tensor<i32>
  return %0, %1, %2 : tensor<6x4xf32>, tensor<4x6xf32>, tensor<i32>
}

// -----

// CHECK-LABEL: func @transpose
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4x2x3xf32>
// CHECK: linalg.transpose ins(%arg0 : tensor<2x3x4xf32>) outs(%[[E]] : tensor<4x2x3xf32>) permutation = [2, 0, 1]
func.func @transpose(%a: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = remat.transpose %a {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func @concat
// CHECK: %[[E:.+]] = tensor.empty() : tensor<2x7xf32>
// CHECK: %[[I0:.+]] = tensor.insert_slice %arg0 into %[[E]][0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x7xf32>
// CHECK: %[[I1:.+]] = tensor.insert_slice %arg1 into %[[I0]][0, 3] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<2x7xf32>
// CHECK: return %[[I1]]
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) -> tensor<2x7xf32> {
  %0 = remat.concat %a, %b {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x7xf32>
  return %0 : tensor<2x7xf32>
}

// -----

// CHECK-LABEL: func @slice
// CHECK: tensor.extract_slice %arg0[1, 0] [2, 3] [2, 3] : tensor<6x9xf32> to tensor<2x3xf32>
func.func @slice(%a: tensor<6x9xf32>) -> tensor<2x3xf32> {
  %0 = remat.slice %a {offsets = array<i64: 1, 0>, strides = array<i64: 2, 3>} : (tensor<6x9xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @slice_grad
// CHECK: %[[Z:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<6x9xf32>)
// CHECK: tensor.insert_slice %arg0 into %[[Z]][1, 0] [2, 3] [2, 3] : tensor<2x3xf32> into tensor<6x9xf32>
func.func @slice_grad(%g: tensor<2x3xf32>) -> tensor<6x9xf32> {
  %0 = remat.slice_grad %g {offsets = array<i64: 1, 0>, strides = array<i64: 2, 3>} : (tensor<2x3xf32>) -> tensor<6x9xf32>
  return %0 : tensor<6x9xf32>
}

// -----

// CHECK-DAG: #[[$BR_IN:.+]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-DAG: #[[$BR_OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func @broadcast_to
// CHECK: linalg.generic {indexing_maps = [#[[$BR_IN]], #[[$BR_OUT]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<3x1xf32>) outs(%{{.+}} : tensor<2x3x4xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT:   linalg.yield %[[IN]] : f32
func.func @broadcast_to(%a: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %0 = remat.broadcast_to %a : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// The summed dimensions are reduction iterators; the summed size-1
// dimension is reinserted by expand_shape.
// CHECK-DAG: #[[$ST_IN:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$ST_KEPT:.+]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func @sum_to
// CHECK: %[[S:.+]] = linalg.generic {indexing_maps = [#[[$ST_IN]], #[[$ST_KEPT]]], iterator_types = ["reduction", "parallel", "reduction"]} ins(%arg0 : tensor<2x3x4xf32>) outs(%{{.+}} : tensor<3xf32>)
// CHECK:   arith.addf
// CHECK: tensor.expand_shape %[[S]] {{\[\[}}0, 1]] output_shape [3, 1] : tensor<3xf32> into tensor<3x1xf32>
func.func @sum_to(%a: tensor<2x3x4xf32>) -> tensor<3x1xf32> {
  %0 = remat.sum_to %a : (tensor<2x3x4xf32>) -> tensor<3x1xf32>
  return %0 : tensor<3x1xf32>
}

// -----

// CHECK-DAG: #[[$EM_IDX:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @embedding
// CHECK: linalg.generic {indexing_maps = [#[[$EM_IDX]], #{{.+}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1 : tensor<2x3xi32>) outs(%{{.+}} : tensor<2x3x4xf32>)
// CHECK-NEXT: ^bb0(%[[ID:.+]]: i32, %{{.+}}: f32):
// CHECK-NEXT:   %[[ROW:.+]] = arith.index_cast %[[ID]] : i32 to index
// CHECK-NEXT:   %[[COL:.+]] = linalg.index 2 : index
// CHECK-NEXT:   %[[V:.+]] = tensor.extract %arg0[%[[ROW]], %[[COL]]] : tensor<5x4xf32>
// CHECK-NEXT:   linalg.yield %[[V]] : f32
func.func @embedding(%t: tensor<5x4xf32>, %i: tensor<2x3xi32>) -> tensor<2x3x4xf32> {
  %0 = remat.embedding %t, %i : (tensor<5x4xf32>, tensor<2x3xi32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Scatter-add: a loop over the 6 index positions adds each gradient row into
// its table row.
// CHECK-LABEL: func @embedding_grad
// CHECK: %[[G:.+]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: %[[I:.+]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1]] : tensor<2x3xi32> into tensor<6xi32>
// CHECK: %[[Z:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<5x4xf32>)
// CHECK: %[[C6:.+]] = arith.constant 6 : index
// CHECK: %[[R:.+]] = scf.for %[[P:.+]] = %{{.+}} to %[[C6]] step %{{.+}} iter_args(%[[T:.+]] = %[[Z]]) -> (tensor<5x4xf32>) {
// CHECK:   %[[IDX:.+]] = tensor.extract %[[I]][%[[P]]] : tensor<6xi32>
// CHECK:   %[[ROW:.+]] = arith.index_cast %[[IDX]] : i32 to index
// CHECK:   %[[GR:.+]] = tensor.extract_slice %[[G]][%[[P]], 0] [1, 4] [1, 1] : tensor<6x4xf32> to tensor<1x4xf32>
// CHECK:   %[[CUR:.+]] = tensor.extract_slice %[[T]][%[[ROW]], 0] [1, 4] [1, 1] : tensor<5x4xf32> to tensor<1x4xf32>
// CHECK:   %[[ADD:.+]] = linalg.generic {{.+}} ins(%[[GR]] : tensor<1x4xf32>) outs(%[[CUR]] : tensor<1x4xf32>)
// CHECK:     arith.addf
// CHECK:   %[[NEW:.+]] = tensor.insert_slice %[[ADD]] into %[[T]][%[[ROW]], 0] [1, 4] [1, 1]
// CHECK:   scf.yield %[[NEW]] : tensor<5x4xf32>
// CHECK: return %[[R]]
func.func @embedding_grad(%g: tensor<2x3x4xf32>, %i: tensor<2x3xi32>) -> tensor<5x4xf32> {
  %0 = remat.embedding_grad %g, %i : (tensor<2x3x4xf32>, tensor<2x3xi32>) -> tensor<5x4xf32>
  return %0 : tensor<5x4xf32>
}

// -----

// The mask hashes the seed (read at () by every iteration) with the
// row-major linear index; rate 0.25 keeps (h >> 40) >= 4194304 and scales by
// 4/3. Rate 0 is the identity.
// CHECK-DAG: #[[$DR_SEED:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func @dropout
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[$DR_SEED]], #{{.+}}], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<i64>)
// CHECK: ^bb0(%[[X:.+]]: f32, %[[SEED:.+]]: i64, %{{.+}}: f32):
// CHECK:   %[[I0:.+]] = linalg.index 0 : index
// CHECK:   %[[I1:.+]] = linalg.index 1 : index
// CHECK:   arith.constant 8 : i64
// CHECK:   arith.constant -7046029254386353131 : i64
// CHECK:   arith.constant 33 : i64
// CHECK:   arith.shrui
// CHECK:   arith.xori
// CHECK:   arith.constant -49064778989728563 : i64
// CHECK:   arith.constant -4265267296055464877 : i64
// CHECK:   arith.constant 40 : i64
// CHECK:   %[[TOP:.+]] = arith.shrui
// CHECK:   %[[TH:.+]] = arith.constant 4194304 : i64
// CHECK:   %[[KEEP:.+]] = arith.cmpi uge, %[[TOP]], %[[TH]] : i64
// CHECK:   %[[SCALE:.+]] = arith.constant 1.33333337 : f32
// CHECK:   %[[SX:.+]] = arith.mulf %[[X]], %[[SCALE]] : f32
// CHECK:   arith.select %[[KEEP]], %[[SX]], %{{.+}} : f32
// CHECK: return %{{.+}}, %arg0
func.func @dropout(%x: tensor<4x8xf32>, %s: tensor<i64>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = remat.dropout %x, %s {rate = 2.5e-01 : f64} : (tensor<4x8xf32>, tensor<i64>) -> tensor<4x8xf32>
  %1 = remat.dropout %x, %s {rate = 0.0 : f64} : (tensor<4x8xf32>, tensor<i64>) -> tensor<4x8xf32>
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Row statistics, then the mean of max + log(sum) - logit[label].
// CHECK-LABEL: func @softmax_cross_entropy
// CHECK: %[[MAX:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<6x5xf32>) outs(%{{.+}} : tensor<6xf32>)
// CHECK: %[[SUM:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%arg0, %[[MAX]] : tensor<6x5xf32>, tensor<6xf32>)
// CHECK: %[[TOT:.+]] = linalg.generic {{.+}} iterator_types = ["reduction"]} ins(%[[MAX]], %[[SUM]], %arg1 : tensor<6xf32>, tensor<6xf32>, tensor<6xi64>) outs(%{{.+}} : tensor<f32>)
// CHECK: ^bb0(%[[M:.+]]: f32, %[[S:.+]]: f32, %[[L:.+]]: i64, %[[ACC:.+]]: f32):
// CHECK:   %[[ROW:.+]] = linalg.index 0 : index
// CHECK:   %[[CLS:.+]] = arith.index_cast %[[L]] : i64 to index
// CHECK:   %[[LOGIT:.+]] = tensor.extract %arg0[%[[ROW]], %[[CLS]]] : tensor<6x5xf32>
// CHECK:   %[[LOG:.+]] = math.log %[[S]] : f32
// CHECK:   %[[LSE:.+]] = arith.addf %[[M]], %[[LOG]] : f32
// CHECK:   %[[NLL:.+]] = arith.subf %[[LSE]], %[[LOGIT]] : f32
// CHECK:   arith.addf %[[ACC]], %[[NLL]] : f32
// CHECK: linalg.generic {{.+}} ins(%[[TOT]] : tensor<f32>) outs(%{{.+}} : tensor<f32>)
// CHECK:   arith.constant 0.166666672 : f32
func.func @softmax_cross_entropy(%l: tensor<6x5xf32>, %y: tensor<6xi64>) -> tensor<f32> {
  %0 = remat.softmax_cross_entropy %l, %y : (tensor<6x5xf32>, tensor<6xi64>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// (softmax - onehot) * dloss / 6, dloss read at ().
// CHECK-DAG: #[[$CE_G:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func @softmax_cross_entropy_grad
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}, #{{.+}}, #{{.+}}, #[[$CE_G]], #{{.+}}], iterator_types = ["parallel", "parallel"]} ins(%arg0, %{{.+}}, %{{.+}}, %arg1, %arg2 : tensor<6x5xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xi64>, tensor<f32>)
// CHECK:   math.exp
// CHECK:   %[[C:.+]] = linalg.index 1 : index
// CHECK:   %[[L:.+]] = arith.index_cast
// CHECK:   arith.cmpi eq, %[[C]], %[[L]] : index
// CHECK:   arith.constant 0.166666672 : f32
func.func @softmax_cross_entropy_grad(%l: tensor<6x5xf32>, %y: tensor<6xi64>, %g: tensor<f32>) -> tensor<6x5xf32> {
  %0 = remat.softmax_cross_entropy_grad %l, %y, %g : (tensor<6x5xf32>, tensor<6xi64>, tensor<f32>) -> tensor<6x5xf32>
  return %0 : tensor<6x5xf32>
}

// -----

// CHECK-LABEL: func @mse
// CHECK: %[[TOT:.+]] = linalg.generic {{.+}} iterator_types = ["reduction", "reduction"]} ins(%arg0, %arg1 : tensor<3x4xf32>, tensor<3x4xf32>) outs(%{{.+}} : tensor<f32>)
// CHECK:   %[[D:.+]] = arith.subf
// CHECK:   %[[SQ:.+]] = arith.mulf %[[D]], %[[D]] : f32
// CHECK:   arith.addf %{{.+}}, %[[SQ]] : f32
// CHECK: linalg.generic {{.+}} ins(%[[TOT]] : tensor<f32>)
// CHECK:   arith.constant 0.0833333358 : f32
// mse_grad: 2 (p - t) dloss / 12, dloss broadcast from rank 0.
// CHECK: linalg.generic {{.+}} ins(%arg0, %arg1, %arg2 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<f32>)
// CHECK:   arith.constant 0.166666672 : f32
func.func @mse(%p: tensor<3x4xf32>, %t: tensor<3x4xf32>, %g: tensor<f32>) -> (tensor<f32>, tensor<3x4xf32>) {
  %0 = remat.mse %p, %t : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<f32>
  %1 = remat.mse_grad %p, %t, %g : (tensor<3x4xf32>, tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xf32>
  return %0, %1 : tensor<f32>, tensor<3x4xf32>
}

// -----

// remat.keep is erased; phases and parameter marks are dropped (also from
// arith.constant); the training-step mark stays.
// CHECK-LABEL: func @attributes
// CHECK-SAME: (%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {remat.training_step}
// CHECK: %[[C:.+]] = arith.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NOT: remat.keep
// CHECK-NOT: remat.phase
// CHECK: linalg.generic {{.+}} ins(%arg0, %[[C]] : tensor<4xf32>, tensor<4xf32>)
// CHECK-NOT: remat.
func.func @attributes(%x: tensor<4xf32> {remat.param}) -> tensor<4xf32> attributes {remat.training_step} {
  %c = arith.constant {remat.phase = #remat.phase<backward>} dense<1.0> : tensor<4xf32>
  remat.keep %x : tensor<4xf32>
  %0 = remat.mul %x, %c {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Ops inside remat.recompute are lowered; the region stays closed.
// CHECK-LABEL: func @recompute
// CHECK: %[[R:.+]] = remat.recompute(%arg0) : (tensor<4xf32>) -> tensor<4xf32> {
// CHECK: ^bb0(%[[A:.+]]: tensor<4xf32>):
// CHECK:   %[[T:.+]] = linalg.generic {{.+}} ins(%[[A]] : tensor<4xf32>)
// CHECK:     math.tanh
// CHECK:   remat.yield %[[T]] : tensor<4xf32>
// CHECK: }
// CHECK: linalg.generic {{.+}} ins(%arg1, %[[R]] : tensor<4xf32>, tensor<4xf32>)
// CHECK-NOT: remat.tanh
func.func @recompute(%x: tensor<4xf32>, %dy: tensor<4xf32>) -> tensor<4xf32> {
  %r = remat.recompute(%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %0 = remat.tanh %a : (tensor<4xf32>) -> tensor<4xf32>
    remat.yield %0 : tensor<4xf32>
  }
  %1 = remat.tanh_grad %dy, %r {remat.phase = #remat.phase<backward>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// An empty product (M = 0): the batch size is not derived by dividing by
// M * N (which was a division by zero).
// CHECK-LABEL: func @matmul_zero_rows
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<0x4xf32>, tensor<4x3xf32>) outs(%{{.*}} : tensor<0x3xf32>)
func.func @matmul_zero_rows(%a: tensor<0x4xf32>, %b: tensor<4x3xf32>) -> tensor<0x3xf32> {
  %0 = remat.matmul %a, %b : (tensor<0x4xf32>, tensor<4x3xf32>) -> tensor<0x3xf32>
  return %0 : tensor<0x3xf32>
}
