//===- RematOps.td - remat operations ----------------------*- tablegen -*-===//
//
// Part of the remat project.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_DIALECT_REMAT_IR_REMATOPS_TD
#define REMAT_DIALECT_REMAT_IR_REMATOPS_TD

include "remat/Dialect/Remat/IR/RematDialect.td"
include "remat/Dialect/Remat/IR/RematAttributes.td"
include "remat/Dialect/Remat/IR/RematInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/CommonAttrConstraints.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Remat_FloatTensor : Type<
    And<[RankedTensorOf<[F16, BF16, F32]>.predicate, HasStaticShapePred]>,
    "statically shaped tensor of f16, bf16 or f32", "::mlir::RankedTensorType">;
def Remat_IntTensor : Type<
    And<[RankedTensorOf<[I32, I64]>.predicate, HasStaticShapePred]>,
    "statically shaped tensor of i32 or i64", "::mlir::RankedTensorType">;
def Remat_StaticTensor : Type<
    And<[AnyRankedTensor.predicate, HasStaticShapePred]>,
    "statically shaped tensor", "::mlir::RankedTensorType">;

def Remat_FloatPositive : AttrConstraint<
    CPred<"::llvm::cast<::mlir::FloatAttr>($_self).getValueAsDouble() > 0.0">,
    "whose value is positive">;
def Remat_FloatNonNegative : AttrConstraint<
    CPred<"::llvm::cast<::mlir::FloatAttr>($_self).getValueAsDouble() >= 0.0">,
    "whose value is non-negative">;
def Remat_FloatBelowOne : AttrConstraint<
    CPred<"::llvm::cast<::mlir::FloatAttr>($_self).getValueAsDouble() < 1.0">,
    "whose value is below 1">;

def Remat_Pair : ConfinedAttr<DenseI64ArrayAttr, [DenseArrayCount<2>]>;

class Remat_ComputeOp<string mnemonic, list<Trait> traits = []>
    : Remat_Op<mnemonic, !listconcat(traits, [Pure, RematCostOpInterface])> {
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

class Remat_DiffOp<string mnemonic, list<Trait> traits = []>
    : Remat_ComputeOp<mnemonic, !listconcat(traits,
          [DeclareOpInterfaceMethods<RematGradientOpInterface>])>;

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def Remat_MatmulOp : Remat_DiffOp<"matmul",
    [DeclareOpInterfaceMethods<RematCostOpInterface, ["getComputeCost"]>]> {
  let summary = "(batched) matrix product with optional transposes";
  let description = [{
    Multiplies the last two dimensions of `lhs` and `rhs`, transposing
    either first when `transpose_a` / `transpose_b` is set. Leading (batch)
    dimensions must be equal, or `rhs` may be 2-D and is then shared by every
    batch of `lhs` (a dense layer applied to a sequence).

    ```mlir
    %y = remat.matmul %x, %w {transpose_b} : (tensor<4x8xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
    ```
  }];
  let arguments = (ins Remat_FloatTensor:$lhs, Remat_FloatTensor:$rhs,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b);
  let results = (outs Remat_FloatTensor:$result);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

class Remat_BinaryOp<string mnemonic, string desc>
    : Remat_DiffOp<mnemonic> {
  let summary = "elementwise " # desc # " with broadcasting";
  let description = [{
    Elementwise }] # desc # [{ of two tensors of the same element type with
    numpy-style broadcasting: shapes are aligned at the trailing dimension and
    each dimension pair must be equal or contain a 1. The result has the
    broadcast shape.
  }];
  let arguments = (ins Remat_FloatTensor:$lhs, Remat_FloatTensor:$rhs);
  let results = (outs Remat_FloatTensor:$result);
  let hasVerifier = 1;
}

def Remat_AddOp : Remat_BinaryOp<"add", "addition">;
def Remat_SubOp : Remat_BinaryOp<"sub", "subtraction">;
def Remat_MulOp : Remat_BinaryOp<"mul", "multiplication">;
def Remat_DivOp : Remat_BinaryOp<"div", "division">;

class Remat_UnaryOp<string mnemonic, string desc>
    : Remat_DiffOp<mnemonic, [SameOperandsAndResultType]> {
  let summary = "elementwise " # desc;
  let description = "Applies " # desc # " to every element.";
  let arguments = (ins Remat_FloatTensor:$input);
  let results = (outs Remat_FloatTensor:$result);
}

def Remat_ReluOp : Remat_UnaryOp<"relu", "max(x, 0)">;
def Remat_Relu6Op : Remat_UnaryOp<"relu6", "min(max(x, 0), 6)">;
def Remat_GeluOp : Remat_UnaryOp<"gelu",
    "the tanh approximation of GELU, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))">;
def Remat_GeluErfOp : Remat_UnaryOp<"gelu_erf",
    "exact GELU, x Phi(x) = 0.5 x (1 + erf(x / sqrt(2)))"> {
  let description = [{
    Applies the exact Gaussian error linear unit, `x * Phi(x)` with `Phi` the
    standard normal distribution function, `0.5 x (1 + erf(x / sqrt(2)))`
    (PyTorch's `gelu(approximate='none')`, `nn.GELU()`'s default), to every
    element. `remat.gelu` is the tanh approximation, a different function.
  }];
}
def Remat_TanhOp : Remat_UnaryOp<"tanh", "the hyperbolic tangent">;
def Remat_SigmoidOp : Remat_UnaryOp<"sigmoid", "the logistic function 1 / (1 + exp(-x))">;
def Remat_ExpOp : Remat_UnaryOp<"exp", "the exponential">;
def Remat_LogOp : Remat_UnaryOp<"log", "the natural logarithm">;
def Remat_NegOp : Remat_UnaryOp<"neg", "negation">;

class Remat_ActivationGradOp<string mnemonic, string fwd, string saved>
    : Remat_ComputeOp<mnemonic, [SameOperandsAndResultType]> {
  let summary = "gradient of " # fwd;
  let description = "Computes the input gradient of `remat." # fwd #
      "` from the result gradient `grad` and the forward " # saved # ".";
  let arguments = (ins Remat_FloatTensor:$grad, Remat_FloatTensor:$saved);
  let results = (outs Remat_FloatTensor:$result);
}

def Remat_ReluGradOp : Remat_ActivationGradOp<"relu_grad", "relu", "input">;
def Remat_Relu6GradOp : Remat_ActivationGradOp<"relu6_grad", "relu6", "input"> {
  let description = [{
    Computes the input gradient of `remat.relu6`: `grad` where the forward
    input `saved` lies strictly between 0 and 6, zero elsewhere (at both
    clamp boundaries too, as PyTorch's `hardtanh_backward`).
  }];
}
def Remat_GeluGradOp : Remat_ActivationGradOp<"gelu_grad", "gelu", "input">;
def Remat_GeluErfGradOp
    : Remat_ActivationGradOp<"gelu_erf_grad", "gelu_erf", "input"> {
  let description = [{
    Computes the input gradient of `remat.gelu_erf` from the result gradient
    `grad` and the forward input `saved`: `grad * (Phi(x) + x phi(x))`, with
    `phi(x) = exp(-x^2 / 2) / sqrt(2 pi)` the standard normal density.
  }];
}
def Remat_TanhGradOp : Remat_ActivationGradOp<"tanh_grad", "tanh", "result">;
def Remat_SigmoidGradOp
    : Remat_ActivationGradOp<"sigmoid_grad", "sigmoid", "result">;

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

class Remat_SoftmaxBase<string mnemonic, string desc>
    : Remat_DiffOp<mnemonic, [SameOperandsAndResultType,
          DeclareOpInterfaceMethods<RematCostOpInterface, ["getComputeCost"]>]> {
  let summary = desc # " along one axis";
  let description = "Computes " # desc # [{ along `axis` (negative values
    count from the last dimension).}];
  let arguments = (ins Remat_FloatTensor:$input,
                       DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs Remat_FloatTensor:$result);
  let hasVerifier = 1;
}

def Remat_SoftmaxOp : Remat_SoftmaxBase<"softmax", "softmax">;
def Remat_LogSoftmaxOp : Remat_SoftmaxBase<"log_softmax", "log-softmax">;

class Remat_SoftmaxGradBase<string mnemonic, string fwd>
    : Remat_ComputeOp<mnemonic, [SameOperandsAndResultType]> {
  let summary = "gradient of " # fwd;
  let description = "Input gradient of `remat." # fwd #
      "` from the result gradient and the forward result.";
  let arguments = (ins Remat_FloatTensor:$grad, Remat_FloatTensor:$output,
                       DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs Remat_FloatTensor:$result);
  let hasVerifier = 1;
}

def Remat_SoftmaxGradOp : Remat_SoftmaxGradBase<"softmax_grad", "softmax">;
def Remat_LogSoftmaxGradOp
    : Remat_SoftmaxGradBase<"log_softmax_grad", "log_softmax">;

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

class Remat_NormOp<string mnemonic>
    : Remat_DiffOp<mnemonic,
          [DeclareOpInterfaceMethods<RematCostOpInterface, ["getComputeCost"]>]> {
  let arguments = (ins Remat_FloatTensor:$input, Remat_FloatTensor:$scale,
                       Remat_FloatTensor:$bias,
                       DefaultValuedAttr<ConfinedAttr<F64Attr,
                           [Remat_FloatPositive]>, "1.0e-5">:$epsilon);
  let results = (outs Remat_FloatTensor:$result);
  let hasVerifier = 1;
}

def Remat_LayerNormOp : Remat_NormOp<"layer_norm"> {
  let summary = "layer normalization over the last dimension";
  let description = [{
    Normalizes every row (the last dimension) of `input` to zero mean and
    unit variance (biased variance plus `epsilon`), then scales by `scale`
    and shifts by `bias`, both of shape `[D]` where `D` is the last dimension.
  }];
}

def Remat_BatchNormOp : Remat_DiffOp<"batch_norm",
    [DeclareOpInterfaceMethods<RematCostOpInterface, ["getComputeCost"]>,
     DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "batch normalization in training mode";
  let description = [{
    Normalizes every channel (dimension 1) of a `[N, C]` or `[N, C, H, W]`
    input with the batch statistics (mean and biased variance over every
    dimension but 1, plus `epsilon`), then applies the per-channel `scale`
    and `bias` of shape `[C]`. Running statistics are not tracked: the op is a
    pure function of its operands, so recomputing it reproduces it exactly.

    With two more results, the op also returns the batch statistics it
    normalized with, for a running-statistics update: the per-channel batch
    mean and the *unbiased* batch variance (squared deviations summed over
    the `K = N * H * W` elements of a channel, divided by `K - 1`, as
    PyTorch's running variance uses; `K` must be at least 2). Both are `[C]`
    and come from the same statistics pass as the normalization, so an
    update needs no full-size temporary. No gradient flows into them.

    ```mlir
    %y, %mean, %var = remat.batch_norm %x, %s, %b
        : (tensor<8x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>)
        -> (tensor<8x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>)
    ```
  }];
  let arguments = (ins Remat_FloatTensor:$input, Remat_FloatTensor:$scale,
                       Remat_FloatTensor:$bias,
                       DefaultValuedAttr<ConfinedAttr<F64Attr,
                           [Remat_FloatPositive]>, "1.0e-5">:$epsilon);
  let results = (outs Remat_FloatTensor:$result,
                      Variadic<Remat_FloatTensor>:$batch_stats);
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The batch mean and unbiased batch variance results, or null values
    /// when the op does not return its statistics.
    ::mlir::Value getBatchMean() {
      return getBatchStats().empty() ? ::mlir::Value() : getBatchStats()[0];
    }
    ::mlir::Value getBatchVar() {
      return getBatchStats().empty() ? ::mlir::Value() : getBatchStats()[1];
    }
  }];
}

class Remat_NormGradOp<string mnemonic, string fwd>
    : Remat_ComputeOp<mnemonic,
          [DeclareOpInterfaceMethods<RematCostOpInterface, ["getComputeCost"]>]> {
  let summary = "gradients of " # fwd;
  let description = "Computes the gradients of `remat." # fwd # [{` with
    respect to its input, scale and bias from the result gradient `grad`,
    the forward input and the scale. The statistics are recomputed from the
    input.}];
  let arguments = (ins Remat_FloatTensor:$grad, Remat_FloatTensor:$input,
                       Remat_FloatTensor:$scale,
                       DefaultValuedAttr<ConfinedAttr<F64Attr,
                           [Remat_FloatPositive]>, "1.0e-5">:$epsilon);
  let results = (outs Remat_FloatTensor:$input_grad,
                      Remat_FloatTensor:$scale_grad,
                      Remat_FloatTensor:$bias_grad);
  let hasVerifier = 1;
}

def Remat_LayerNormGradOp : Remat_NormGradOp<"layer_norm_grad", "layer_norm">;
def Remat_BatchNormGradOp : Remat_NormGradOp<"batch_norm_grad", "batch_norm">;

//===----------------------------------------------------------------------===//
// Convolution and pooling (NCHW activations, OIHW filters)
//===----------------------------------------------------------------------===//

def Remat_Conv2DOp : Remat_DiffOp<"conv2d",
    [DeclareOpInterfaceMethods<RematCostOpInterface,
        ["getComputeCost", "getWorkspaceBytes"]>]> {
  let summary = "2-D convolution, NCHW input and OIHW filter";
  let description = [{
    Cross-correlation of an `[N, C, H, W]` input with an `[O, C/groups, KH, KW]`
    filter. `padding` is symmetric per spatial dimension. The output is
    `[N, O, OH, OW]` with `OH = (H + 2 ph - dh (KH - 1) - 1) / sh + 1`.
  }];
  let arguments = (ins Remat_FloatTensor:$input, Remat_FloatTensor:$filter,
      DefaultValuedAttr<Remat_Pair, "{1, 1}">:$strides,
      DefaultValuedAttr<Remat_Pair, "{0, 0}">:$padding,
      DefaultValuedAttr<Remat_Pair, "{1, 1}">:$dilations,
      DefaultValuedAttr<ConfinedAttr<I64Attr, [IntPositive]>, "1">:$groups);
  let results = (outs Remat_FloatTensor:$result);
  let hasVerifier = 1;
}

def Remat_Conv2DInputGradOp : Remat_ComputeOp<"conv2d_input_grad",
    [DeclareOpInterfaceMethods<RematCostOpInterface,
        ["getComputeCost", "getWorkspaceBytes"]>]> {
  let summary = "gradient of conv2d with respect to its input";
  let description = [{
    Transposed convolution of the output gradient `grad` with `filter`; the
    result type is the type of the forward input.
  }];
  let arguments = (ins Remat_FloatTensor:$grad, Remat_FloatTensor:$filter,
      DefaultValuedAttr<Remat_Pair, "{1, 1}">:$strides,
      DefaultValuedAttr<Remat_Pair, "{0, 0}">:$padding,
      DefaultValuedAttr<Remat_Pair, "{1, 1}">:$dilations,
      DefaultValuedAttr<ConfinedAttr<I64Attr, [IntPositive]>, "1">:$groups);
  let results = (outs Remat_FloatTensor:$result);
  let hasVerifier = 1;
}

def Remat_Conv2DFilterGradOp : Remat_ComputeOp<"conv2d_filter_grad",
    [DeclareOpInterfaceMethods<RematCostOpInterface,
        ["getComputeCost", "getWorkspaceBytes"]>]> {
  let summary = "gradient of conv2d with respect to its filter";
  let description = [{
    Correlates the forward `input` with the output gradient `grad`; the result
    type is the type of the filter.
  }];
  let arguments = (ins Remat_FloatTensor:$grad, Remat_FloatTensor:$input,
      DefaultValuedAttr<Remat_Pair, "{1, 1}">:$strides,
      DefaultValuedAttr<Remat_Pair, "{0, 0}">:$padding,
      DefaultValuedAttr<Remat_Pair, "{1, 1}">:$dilations,
      DefaultValuedAttr<ConfinedAttr<I64Attr, [IntPositive]>, "1">:$groups);
  let results = (outs Remat_FloatTensor:$result);
  let hasVerifier = 1;
}

class Remat_PoolOp<string mnemonic, string desc>
    : Remat_DiffOp<mnemonic,
          [DeclareOpInterfaceMethods<RematCostOpInterface,
        ["getComputeCost", "getWorkspaceBytes"]>]> {
  let summary = "2-D " # desc # " pooling over an NCHW tensor";
  let description = "Takes the " # desc # [{ of every `kernel` window
    (zero padding of `padding` per side, counted in the average).}];
  let arguments = (ins Remat_FloatTensor:$input,
      DefaultValuedAttr<Remat_Pair, "{2, 2}">:$kernel,
      DefaultValuedAttr<Remat_Pair, "{2, 2}">:$strides,
      DefaultValuedAttr<Remat_Pair, "{0, 0}">:$padding);
  let results = (outs Remat_FloatTensor:$result);
  let hasVerifier = 1;
}

def Remat_MaxPool2DOp : Remat_PoolOp<"max_pool2d", "maximum">;
def Remat_AvgPool2DOp : Remat_PoolOp<"avg_pool2d", "average">;

def Remat_MaxPool2DGradOp : Remat_ComputeOp<"max_pool2d_grad",
    [DeclareOpInterfaceMethods<RematCostOpInterface,
        ["getComputeCost", "getWorkspaceBytes"]>]> {
  let summary = "gradient of max_pool2d";
  let description = [{
    Routes every element of `grad` to the first maximal element of its window
    in the forward `input`; the result has the type of `input`.
  }];
  let arguments = (ins Remat_FloatTensor:$grad, Remat_FloatTensor:$input,
      DefaultValuedAttr<Remat_Pair, "{2, 2}">:$kernel,
      DefaultValuedAttr<Remat_Pair, "{2, 2}">:$strides,
      DefaultValuedAttr<Remat_Pair, "{0, 0}">:$padding);
  let results = (outs Remat_FloatTensor:$result);
  let hasVerifier = 1;
}

def Remat_AvgPool2DGradOp : Remat_ComputeOp<"avg_pool2d_grad",
    [DeclareOpInterfaceMethods<RematCostOpInterface,
        ["getComputeCost", "getWorkspaceBytes"]>]> {
  let summary = "gradient of avg_pool2d";
  let description = [{
    Spreads every element of `grad` evenly over its window; the result type
    is the type of the forward input.
  }];
  let arguments = (ins Remat_FloatTensor:$grad,
      DefaultValuedAttr<Remat_Pair, "{2, 2}">:$kernel,
      DefaultValuedAttr<Remat_Pair, "{2, 2}">:$strides,
      DefaultValuedAttr<Remat_Pair, "{0, 0}">:$padding);
  let results = (outs Remat_FloatTensor:$result);
  let hasVerifier = 1;
}

def Remat_GlobalAvgPoolOp : Remat_DiffOp<"global_avg_pool",
    [DeclareOpInterfaceMethods<RematCostOpInterface, ["getWorkspaceBytes"]>]> {
  let summary = "mean over the spatial dimensions, [N, C, H, W] to [N, C]";
  let description = "Averages every channel of every sample.";
  let arguments = (ins Remat_FloatTensor:$input);
  let results = (outs Remat_FloatTensor:$result);
  let hasVerifier = 1;
}

def Remat_GlobalAvgPoolGradOp : Remat_ComputeOp<"global_avg_pool_grad"> {
  let summary = "gradient of global_avg_pool, [N, C] to [N, C, H, W]";
  let description = "Spreads every `[n, c]` gradient evenly over `H x W`.";
  let arguments = (ins Remat_FloatTensor:$grad);
  let results = (outs Remat_FloatTensor:$result);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

def Remat_ReshapeOp : Remat_DiffOp<"reshape"> {
  let summary = "reshape to the result type (same element count)";
  let description = "Reinterprets the elements in row-major order.";
  let arguments = (ins Remat_StaticTensor:$input);
  let results = (outs Remat_StaticTensor:$result);
  let hasVerifier = 1;
}

def Remat_TransposeOp : Remat_DiffOp<"transpose"> {
  let summary = "permutes the dimensions";
  let description = [{
    Result dimension `i` is input dimension `permutation[i]`.
  }];
  let arguments = (ins Remat_StaticTensor:$input,
                       DenseI64ArrayAttr:$permutation);
  let results = (outs Remat_StaticTensor:$result);
  let hasVerifier = 1;
}

def Remat_ConcatOp : Remat_DiffOp<"concat"> {
  let summary = "concatenates tensors along one axis";
  let description = "All inputs agree on every dimension but `axis`.";
  let arguments = (ins Variadic<Remat_StaticTensor>:$inputs, I64Attr:$axis);
  let results = (outs Remat_StaticTensor:$result);
  let hasVerifier = 1;
}

def Remat_SliceOp : Remat_DiffOp<"slice"> {
  let summary = "strided slice; the result type gives the sizes";
  let description = [{
    Result element `i` is input element `offsets + i * strides` per dimension.
  }];
  let arguments = (ins Remat_StaticTensor:$input, DenseI64ArrayAttr:$offsets,
                       DenseI64ArrayAttr:$strides);
  let results = (outs Remat_StaticTensor:$result);
  let hasVerifier = 1;
}

def Remat_SliceGradOp : Remat_ComputeOp<"slice_grad"> {
  let summary = "gradient of slice: scatters into zeros of the input's shape";
  let description = [{
    The result (of the forward input's type) is zero except at the positions
    `offsets + i * strides`, which receive `grad[i]`.
  }];
  let arguments = (ins Remat_FloatTensor:$grad, DenseI64ArrayAttr:$offsets,
                       DenseI64ArrayAttr:$strides);
  let results = (outs Remat_FloatTensor:$result);
  let hasVerifier = 1;
}

def Remat_BroadcastToOp : Remat_DiffOp<"broadcast_to"> {
  let summary = "numpy-style broadcast to the result shape";
  let description = "The input shape must broadcast to the result shape.";
  let arguments = (ins Remat_FloatTensor:$input);
  let results = (outs Remat_FloatTensor:$result);
  let hasVerifier = 1;
}

def Remat_SumToOp : Remat_DiffOp<"sum_to"> {
  let summary = "sums a tensor down to a shape that broadcasts to it";
  let description = [{
    The inverse of `broadcast_to` for gradients: the result shape must
    broadcast to the input shape; the dimensions that broadcasting would
    expand are summed.
  }];
  let arguments = (ins Remat_FloatTensor:$input);
  let results = (outs Remat_FloatTensor:$result);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Embedding and dropout
//===----------------------------------------------------------------------===//

def Remat_EmbeddingOp : Remat_DiffOp<"embedding"> {
  let summary = "looks up rows of a [V, D] table";
  let description = [{
    For integer `indices` of shape `S`, the result of shape `S x [D]` holds
    the table rows. Out-of-range indices are undefined behaviour.
  }];
  let arguments = (ins Remat_FloatTensor:$table, Remat_IntTensor:$indices);
  let results = (outs Remat_FloatTensor:$result);
  let hasVerifier = 1;
}

def Remat_EmbeddingGradOp : Remat_ComputeOp<"embedding_grad"> {
  let summary = "gradient of embedding: scatter-add of rows into the table";
  let description = "The result has the table's type.";
  let arguments = (ins Remat_FloatTensor:$grad, Remat_IntTensor:$indices);
  let results = (outs Remat_FloatTensor:$result);
  let hasVerifier = 1;
}

def Remat_DropoutOp : Remat_DiffOp<"dropout"> {
  let summary = "dropout whose mask is a function of an explicit seed";
  let description = [{
    Zeroes each element with probability `rate` and scales the others by
    `1 / (1 - rate)`. The mask is a deterministic function of the scalar
    `seed` and the element's linear index, so a recomputation reproduces it
    exactly, and the gradient is the same dropout applied to the result
    gradient.
  }];
  let arguments = (ins Remat_FloatTensor:$input,
      0DTensorOf<[I64]>:$seed,
      ConfinedAttr<F64Attr, [Remat_FloatNonNegative, Remat_FloatBelowOne]>:$rate);
  let results = (outs Remat_FloatTensor:$result);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

def Remat_SoftmaxCrossEntropyOp : Remat_DiffOp<"softmax_cross_entropy",
    [DeclareOpInterfaceMethods<RematCostOpInterface, ["getComputeCost"]>]> {
  let summary = "mean softmax cross-entropy with integer class labels";
  let description = [{
    `logits` has shape `S x [C]`, `labels` shape `S`; the result is the
    scalar mean over `S` of `-log_softmax(logits)[label]`.
  }];
  let arguments = (ins Remat_FloatTensor:$logits, Remat_IntTensor:$labels);
  let results = (outs 0DTensorOf<[F16, BF16, F32]>:$result);
  let hasVerifier = 1;
}

def Remat_SoftmaxCrossEntropyGradOp
    : Remat_ComputeOp<"softmax_cross_entropy_grad"> {
  let summary = "gradient of softmax_cross_entropy with respect to logits";
  let description = "`(softmax(logits) - onehot(labels)) * grad / |S|`.";
  let arguments = (ins Remat_FloatTensor:$logits, Remat_IntTensor:$labels,
                       0DTensorOf<[F16, BF16, F32]>:$grad);
  let results = (outs Remat_FloatTensor:$result);
  let hasVerifier = 1;
}

def Remat_MseOp : Remat_DiffOp<"mse"> {
  let summary = "mean squared error";
  let description = "The scalar mean of `(prediction - target)^2`.";
  let arguments = (ins Remat_FloatTensor:$prediction,
                       Remat_FloatTensor:$target);
  let results = (outs 0DTensorOf<[F16, BF16, F32]>:$result);
  let hasVerifier = 1;
}

def Remat_MseGradOp : Remat_ComputeOp<"mse_grad"> {
  let summary = "gradient of mse with respect to the prediction";
  let description = "`2 (prediction - target) * grad / numel`.";
  let arguments = (ins Remat_FloatTensor:$prediction,
                       Remat_FloatTensor:$target,
                       0DTensorOf<[F16, BF16, F32]>:$grad);
  let results = (outs Remat_FloatTensor:$result);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Opaque ops
//===----------------------------------------------------------------------===//

def Remat_OpaqueOp : Remat_Op<"opaque", [Pure,
    DeclareOpInterfaceMethods<RematCostOpInterface, ["getComputeCost"]>]> {
  let summary = "an op without semantics: a name, a cost and a result size";
  let description = [{
    Stands for an op of a graph imported without semantics (for example the
    published Checkmate graphs). It is scheduled like any other op: its
    compute cost is `cost` and its result bytes come from its result type
    (`tensor<Nxi8>` for N bytes). Lowering rejects it.

    ```mlir
    %1 = remat.opaque "block1_conv1"(%0) {cost = 385.0 : f64} : (tensor<16xi8>) -> tensor<64xi8>
    ```
  }];
  let arguments = (ins StrAttr:$name, Variadic<Remat_StaticTensor>:$inputs,
      ConfinedAttr<F64Attr, [Remat_FloatNonNegative]>:$cost);
  let results = (outs Remat_StaticTensor:$result);
  let assemblyFormat = [{
    $name `(` $inputs `)` attr-dict `:` functional-type($inputs, $result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Rematerialization
//===----------------------------------------------------------------------===//

def Remat_KeepOp : Remat_Op<"keep"> {
  let summary = "hint: the value must stay resident";
  let description = [{
    Schedulers never drop or recompute `value`: it stays resident from its
    definition to its last use. The hint itself is not a use for liveness.
    It has no results and is kept by canonicalization.

    ```mlir
    remat.keep %3 : tensor<32x256xf32>
    ```
  }];
  let arguments = (ins Remat_StaticTensor:$value);
  let assemblyFormat = "$value attr-dict `:` type($value)";
}

def Remat_RecomputeOp : Remat_Op<"recompute", [IsolatedFromAbove,
    SingleBlock,
    DeclareOpInterfaceMethods<RematCostOpInterface,
        ["getComputeCost", "getResultBytes"]>]> {
  let summary = "forward ops executed again in the backward";
  let description = [{
    Holds a group of forward ops that a schedule recomputes in the backward
    instead of keeping their results. The region is isolated from above: the
    values it reads from outside are its `inputs` (the block arguments:
    statically shaped tensors, or scalars that payload regions of structured
    ops read, such as the zero of a `linalg.fill`), and `remat.yield` returns
    the recomputed values that later ops use.

    The op deliberately declares no memory effects (it is not `Pure`), so
    canonicalization and CSE never merge a recomputation with the original
    computation or with another recomputation, and never hoist or erase it.
    Its compute cost is the sum of the costs of its body; its result bytes
    are those of its results.

    ```mlir
    %r = remat.recompute(%x, %w) : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a: tensor<4x8xf32>, %b: tensor<8x8xf32>):
      %0 = remat.matmul %a, %b : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
      %1 = remat.relu %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
      remat.yield %1 : tensor<4x8xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyTypeOf<[Remat_StaticTensor,
      AnySignlessIntegerOrIndex, AnyFloat]>>:$inputs);
  let results = (outs Variadic<Remat_StaticTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` $inputs `)` attr-dict `:` functional-type($inputs, $results) $body
  }];
  let hasVerifier = 1;
}

def Remat_YieldOp : Remat_Op<"yield", [Pure, Terminator, ReturnLike,
    HasParent<"RecomputeOp">]> {
  let summary = "returns the recomputed values of a remat.recompute";
  let description = "Its operand types are the results of the parent.";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // REMAT_DIALECT_REMAT_IR_REMATOPS_TD
