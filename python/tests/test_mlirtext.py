"""The shared MLIR text reader (remat_models.mlirtext)."""

import pytest

from remat_models.mlir_types import TensorType
from remat_models.mlirtext import (MlirTextError, parse_attr_dict, parse_attr_value,
                                   parse_function, parse_functions, parse_generic,
                                   parse_tensor_type,
                                   parse_type_list, split_top)

# remat-opt --mlir-print-op-generic of a small function (two results).
GENERIC = '''"builtin.module"() ({
  "func.func"() <{arg_attrs = [{remat.param}, {}], function_type = (tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<f32>), sym_name = "f"}> ({
  ^bb0(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>):
    %0 = "remat.add"(%arg0, %arg1) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %1 = "remat.softmax"(%0) <{axis = 1 : i64}> : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %2 = "remat.transpose"(%1) <{permutation = array<i64: 1, 0>}> : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %3 = "remat.mse"(%0, %1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<f32>
    "func.return"(%0, %3) : (tensor<2x3xf32>, tensor<f32>) -> ()
  }) : () -> ()
}) : () -> ()
'''

CUSTOM = '''func.func @g(%x: tensor<4x8xf32> {remat.param}, %y: tensor<4x8xf32>) -> tensor<f32> {
  %a = remat.softmax %x {axis = -1 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %l = remat.mse %a, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<f32>
  return %l : tensor<f32>
}
'''

# remat-opt output (custom form): a module of functions with several results,
# ops with several results, phase attributes and upstream linalg ops.
MODULE = """#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0) -> ()>
module {
  func.func @h(%arg0: tensor<5xf32> {remat.param}, %arg1: tensor<5xf32>) -> (tensor<f32>, tensor<5xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<f32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<f32>) -> tensor<f32>
    %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction"]} ins(%arg0 : tensor<5xf32>) outs(%1 : tensor<f32>) attrs =  {remat.phase = #remat.phase<loss>} {
    ^bb0(%in: f32, %out: f32):
      %5 = arith.addf %in, %out : f32
      linalg.yield %5 : f32
    } -> tensor<f32>
    %3:2 = remat.layer_norm_grad %arg0, %arg1, %arg1 {epsilon = 1.0e-05 : f64, remat.phase = #remat.phase<backward>} : (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>)
    remat.keep %3#1 : tensor<5xf32>
    %4 = arith.mulf %3#0, %arg1 : tensor<5xf32>
    return %2, %4 : tensor<f32>, tensor<5xf32>
  }
}
"""


def test_types():
    assert parse_tensor_type(" tensor<4x8xbf16> ") == TensorType((4, 8), "bf16")
    assert parse_tensor_type("tensor<f32>") == TensorType((), "f32")
    assert parse_type_list("(tensor<2xf32>, tensor<i64>)") == [TensorType((2,), "f32"),
                                                               TensorType((), "i64")]
    assert parse_type_list("()") == []
    for bad in ("tensor<?x4xf32>", "memref<4xf32>", "tensor<4xf7>"):
        with pytest.raises(MlirTextError):
            parse_tensor_type(bad)


def test_split_top_skips_brackets_strings_and_arrows():
    assert split_top('a, f<b, c>, "x, y", (d) -> (e, f), g') == \
        ["a", "f<b, c>", '"x, y"', "(d) -> (e, f)", "g"]


def test_attribute_values():
    assert parse_attr_value("array<i64: 1, 2>") == (1, 2)
    assert parse_attr_value("array<i64>") == ()
    assert parse_attr_value("-3 : i64", strict=True) == -3
    assert parse_attr_value("1.0e-05 : f64", strict=True) == 1e-5
    assert parse_attr_value("7 : i32") == 7
    assert parse_attr_value('"name"') == "name"
    kind, literal, type_ = parse_attr_value("dense<1.5> : tensor<2xf32>")
    assert (kind, literal, type_) == ("dense", "1.5", TensorType((2,), "f32"))
    assert parse_attr_value("#foo<bar>") == ("raw", "#foo<bar>")
    # What this package writes is i64 and f64 only.
    for bad in ("7 : i32", '"name"', "2 : f64"):
        with pytest.raises(MlirTextError):
            parse_attr_value(bad, strict=True)
    with pytest.raises(MlirTextError):
        parse_attr_dict("Axis = 1 : i64", strict=True)
    assert parse_attr_dict("transpose_a, axis = 1 : i64", strict=True) == \
        {"transpose_a": True, "axis": 1}


def test_custom_form():
    fn = parse_function(CUSTOM)
    assert fn.name == "g"
    assert [(n, p) for n, _, p in fn.args] == [("x", True), ("y", False)]
    assert [op.name for op in fn.ops] == ["remat.softmax", "remat.mse"]
    assert fn.ops[0].attrs == {"axis": -1}
    assert fn.ops[1].operands == ["a", "y"]
    assert fn.result == "l" and fn.result_type == TensorType((), "f32")
    assert fn.param_count == 32
    with pytest.raises(MlirTextError):
        parse_function(CUSTOM.replace("return %l", "ret %l"))


def test_module_of_functions():
    (fn,) = parse_functions(MODULE)
    assert fn.name == "h" and [(n, p) for n, _, p in fn.args] == [("arg0", True), ("arg1", False)]
    assert fn.results == ["2", "4"] and fn.result == "2"
    assert fn.result_types == [TensorType((), "f32"), TensorType((5,), "f32")]
    names = [op.name for op in fn.ops]
    assert names == ["arith.constant", "tensor.empty", "linalg.fill", "linalg.generic",
                     "remat.layer_norm_grad", "arith.mulf"]
    cst, _, fill, gen, lng, mul = fn.ops
    assert cst.splat == "0.000000e+00" and cst.result_type == TensorType((), "f32")
    assert fill.operands == ["cst", "0"]
    assert gen.operands == ["arg0", "1"] and gen.attrs["iterator_types"] == ["reduction"]
    assert gen.attrs["indexing_maps"] == [(["d0"], ["d0"]), (["d0"], [])]
    assert gen.region == (["in", "out"], [("arith.addf", ["in", "out"], "5"),
                                          ("linalg.yield", ["5"], None)])
    assert lng.results == ["3#0", "3#1"] and lng.result_types == [TensorType((5,), "f32")] * 2
    assert lng.attrs["epsilon"] == 1e-5 and lng.attrs["remat.phase"] == ("raw", "#remat.phase<backward>")
    assert mul.operands == ["3#0", "arg1"] and mul.result_type == TensorType((5,), "f32")
    # The strict custom-form reader still refuses what this package never writes.
    with pytest.raises(MlirTextError):
        parse_function(MODULE)


def test_generic_form():
    fn = parse_generic(GENERIC)["f"]
    assert fn.args == ["%arg0", "%arg1"]
    assert fn.arg_types == [TensorType((2, 3), "f32"), TensorType((3,), "f32")]
    assert fn.params == [0]
    assert fn.result_types == [TensorType((2, 3), "f32"), TensorType((), "f32")]
    names = [op.name for op in fn.ops]
    assert names == ["remat.add", "remat.softmax", "remat.transpose", "remat.mse", "func.return"]
    assert fn.ops[1].attrs == {"axis": 1}
    assert fn.ops[2].attrs == {"permutation": (1, 0)}
    assert fn.ops[2].out_types == [TensorType((3, 2), "f32")]
    assert fn.ops[4].operands == ["%0", "%3"]
