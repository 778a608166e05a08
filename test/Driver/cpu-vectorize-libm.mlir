// The exact GELU's erf has no LLVM intrinsic: under
// --cpu-vectorize=upstream its vectorised tile becomes one erff call per lane
// (convert-math-to-libm unrolls it into vector.extract / call /
// vector.insert), and the CPU pipeline lowers those vector ops too, so the
// module translates to LLVM IR. Before the fix the vector.extract ops
// reached mlir-translate ("missing LLVMTranslationDialectInterface") and
// remat-compile failed on every imported model with an exact GELU.
// RUN: remat-opt %s --remat-linalg-pipeline | remat-opt --remat-buffer-pipeline 2>/dev/null \
// RUN:   | remat-opt --remat-cpu-llvm-pipeline='upstream-vectorize=1' -o %t.llvm.mlir
// RUN: FileCheck %s < %t.llvm.mlir
// RUN: mlir-translate --mlir-to-llvmir %t.llvm.mlir | FileCheck %s --check-prefix=IR
// With upstream-vectorize=0 (LLVM's vectorizers) erf stays a scalar call.
// RUN: remat-opt %s --remat-linalg-pipeline | remat-opt --remat-buffer-pipeline 2>/dev/null \
// RUN:   | remat-opt --remat-cpu-llvm-pipeline='upstream-vectorize=0' \
// RUN:   | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=SCALAR

// CHECK-LABEL: llvm.func @gelu_erf
// CHECK-NOT: vector.extract
// CHECK-NOT: vector.insert
// CHECK: llvm.call @erff({{.*}}) : (f32) -> f32
// CHECK-NOT: vector.extract

// IR-LABEL: define {{.*}} @gelu_erf
// IR: extractelement <8 x float>
// IR: call float @erff(float
// IR: insertelement <8 x float>

// SCALAR-LABEL: define {{.*}} @gelu_erf
// SCALAR-NOT: extractelement <8 x float>
// SCALAR: call float @erff(float
func.func @gelu_erf(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %y = remat.gelu_erf %x : (tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
