"""Tensor types and attribute values, printed in MLIR textual syntax."""

import math
from dataclasses import dataclass
from typing import Sequence, Tuple

#: Floating-point element types accepted for model activations and parameters.
FLOAT_DTYPES = ("f16", "bf16", "f32", "f64")
#: Integer element types accepted for indices, labels and seeds.
INT_DTYPES = ("i1", "i8", "i16", "i32", "i64")
#: Size in bytes of one element of each supported element type.
DTYPE_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8,
               "i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8}


def is_float(dtype: str) -> bool:
    return dtype in FLOAT_DTYPES


def is_int(dtype: str) -> bool:
    return dtype in INT_DTYPES


@dataclass(frozen=True)
class TensorType:
    """A ranked tensor type with static shape, e.g. ``tensor<4x8xf32>``."""

    shape: Tuple[int, ...]
    dtype: str

    def __post_init__(self):
        object.__setattr__(self, "shape", tuple(int(d) for d in self.shape))
        if self.dtype not in DTYPE_BYTES:
            raise ValueError(f"unsupported element type {self.dtype!r}")
        for d in self.shape:
            if d < 0:
                raise ValueError(f"negative dimension in shape {self.shape}")

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.numel * DTYPE_BYTES[self.dtype]

    def with_shape(self, shape: Sequence[int]) -> "TensorType":
        return TensorType(tuple(shape), self.dtype)

    def with_dtype(self, dtype: str) -> "TensorType":
        return TensorType(self.shape, dtype)

    def __str__(self) -> str:
        dims = "".join(f"{d}x" for d in self.shape)
        return f"tensor<{dims}{self.dtype}>"


def tensor(shape: Sequence[int], dtype: str = "f32") -> TensorType:
    return TensorType(tuple(shape), dtype)


def format_float(value: float) -> str:
    """Formats a float as an MLIR float literal (always with a '.')."""
    value = float(value)
    if math.isnan(value) or math.isinf(value):
        raise ValueError("non-finite float literals are not supported")
    text = repr(value)
    mantissa, sep, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + (("e" + exponent) if sep else "")


class Attr:
    """Base class of attribute values that know how to print themselves."""

    def render(self, name: str) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class UnitAttr(Attr):
    def render(self, name: str) -> str:
        return name


@dataclass(frozen=True)
class I64Attr(Attr):
    value: int

    def render(self, name: str) -> str:
        return f"{name} = {int(self.value)} : i64"


@dataclass(frozen=True)
class F64Attr(Attr):
    value: float

    def render(self, name: str) -> str:
        return f"{name} = {format_float(self.value)} : f64"


@dataclass(frozen=True)
class I64ArrayAttr(Attr):
    values: Tuple[int, ...]

    def __post_init__(self):
        object.__setattr__(self, "values", tuple(int(v) for v in self.values))

    def render(self, name: str) -> str:
        if not self.values:
            return f"{name} = array<i64>"
        return f"{name} = array<i64: {', '.join(str(v) for v in self.values)}>"


def format_attr_dict(attrs) -> str:
    """Prints ``{a, b = 1 : i64}`` for a list of (name, Attr); '' if empty."""
    if not attrs:
        return ""
    return "{" + ", ".join(attr.render(name) for name, attr in attrs) + "}"
