"""Calibrates remat-compile's time model (--time-model) on this machine.

usage: /usr/bin/python3 bench/calibrate_time.py [--build build] [--threads 1]
           [--steps 20] [-o bench/time-model.json]

For each op class of include/remat/Driver/TimeModel.h it compiles small
steps (remat.training_step functions: K independent copies of the class's
ops at one shape, each copy on its own inputs so that nothing is shared,
fused or folded) with remat-compile and times them with remat-runner: the
compiled runtime kernels (GEMMs and convolutions through the BLAS and the
runtime's own loops) and the compiled elementwise and reduction loops, as
a training step runs them. The time of a point is the fastest step of
--steps (min-of-N: the machine is shared), divided by K. A point's size is
the flops (gemm, conv, grouped_conv: the ops' RematCostOpInterface cost)
or the tensor bytes moved (operands and results; the others) per op, its
rate size / seconds. Writes the JSON table remat-compile reads.

GEMMs: y = x w, x^T dy and dy w^T (forward and both gradients) per shape.
Convolutions (groups 1): conv, conv2d per shape; conv_grad,
conv2d_input_grad and conv2d_filter_grad per shape; grouped_conv: the three
on depthwise shapes (groups = channels). elementwise: relu,
add, relu_grad, dropout; exp_log: exp, sigmoid, gelu_erf; tanh: tanh, gelu,
gelu_grad; reduction: batch_norm, batch_norm_grad, softmax, layer_norm
(rows of 64).
"""

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, ".."))

# Step time a point aims at, so that the runner's 1 us resolution and the
# call are small next to it.
TARGET_SECONDS = 0.4e-3
MAX_COPIES = 128


def tensor(shape):
    """f32 tensor of SHAPE; () is the i64 seed of remat.dropout."""
    if not shape:
        return "tensor<i64>"
    return "tensor<" + "x".join(str(d) for d in shape) + "xf32>"


def numel(shape):
    return math.prod(shape)


class Op:
    """One op of a calibration step: its operand shapes, result shapes, the
    MLIR text (with {0}, {1}, ... for operands and {r0}, ... for results)
    and its flops (RematCostOpInterface's formula)."""

    def __init__(self, text, operands, results, flops=0.0):
        self.text, self.operands, self.results = text, operands, results
        self.flops = flops

    def bytes(self):
        return sum(4.0 * numel(s) if s else 8.0
                   for s in self.operands + self.results)


def gemm_ops(m, k, n):
    flops = 2.0 * m * n * k
    return [
        Op("remat.matmul {0}, {1}", [(m, k), (k, n)], [(m, n)], flops),
        Op("remat.matmul {0}, {1} {{transpose_a}}", [(m, k), (m, n)],
           [(k, n)], flops),
        Op("remat.matmul {0}, {1} {{transpose_b}}", [(m, n), (k, n)],
           [(m, k)], flops),
    ]


def conv_ops(n, c, h, o, k, stride, pad, groups=1):
    oh = (h + 2 * pad - k) // stride + 1
    x, w, y = (n, c, h, h), (o, c // groups, k, k), (n, o, oh, oh)
    attrs = (f"strides = array<i64: {stride}, {stride}>, "
             f"padding = array<i64: {pad}, {pad}>, groups = {groups} : i64")
    flops = 2.0 * numel(y) * (c // groups) * k * k
    return [
        Op("remat.conv2d {0}, {1} {{" + attrs + "}}", [x, w], [y], flops),
        Op("remat.conv2d_input_grad {0}, {1} {{" + attrs + "}}", [y, w], [x],
           flops),
        Op("remat.conv2d_filter_grad {0}, {1} {{" + attrs + "}}", [y, x], [w],
           flops),
    ]


def elementwise_ops(elements):
    s = (elements // 64, 64)
    return [Op("remat.relu {0}", [s], [s]),
            Op("remat.add {0}, {1}", [s, s], [s]),
            Op("remat.relu_grad {0}, {1}", [s, s], [s]),
            Op("remat.dropout {0}, {1} {{rate = 0.1 : f64}}", [s, ()], [s])]


def exp_log_ops(elements):
    s = (elements // 64, 64)
    return [Op("remat.exp {0}", [s], [s]),
            Op("remat.sigmoid {0}", [s], [s]),
            Op("remat.gelu_erf {0}", [s], [s])]


def tanh_ops(elements):
    s = (elements // 64, 64)
    return [Op("remat.tanh {0}", [s], [s]),
            Op("remat.gelu {0}", [s], [s]),
            Op("remat.gelu_grad {0}, {1}", [s, s], [s])]


def reduction_ops(elements):
    c = 16
    hw = max(1, int(math.isqrt(elements // (8 * c))))
    x, v = (8, c, hw, hw), (c,)
    rows, r = (elements // 64, 64), (64,)
    eps = "{{epsilon = 1.0e-05 : f64}}"
    return [
        Op("remat.batch_norm {0}, {1}, {2} " + eps, [x, v, v], [x]),
        Op("remat.batch_norm_grad {0}, {1}, {2}", [x, x, v], [x, v, v]),
        Op("remat.softmax {0} {{axis = -1 : i64}}", [rows], [rows]),
        Op("remat.layer_norm {0}, {1}, {2} " + eps, [rows, r, r], [rows]),
    ]


# (n, c, h, o, k, stride, pad): small CNN, resnet_n4, imported ResNet-18
# (batch 2, 64x64) 3x3 layers 1-4 (equal flops: pooled), its stem,
# MobileNetV2's 1x1 expansions and projections (batch 8). conv: the
# forward; conv_grad: both gradients.
CONV_SHAPES = [(2, 3, 8, 4, 3, 1, 1), (8, 16, 16, 32, 1, 2, 0),
               (8, 144, 8, 32, 1, 1, 0), (8, 8, 32, 48, 1, 1, 0),
               (8, 32, 8, 32, 3, 1, 1), (8, 24, 16, 144, 1, 1, 0),
               (2, 512, 2, 512, 3, 1, 1), (2, 256, 4, 256, 3, 1, 1),
               (2, 128, 8, 128, 3, 1, 1), (8, 16, 32, 16, 3, 1, 1),
               (2, 64, 16, 64, 3, 1, 1), (2, 3, 64, 64, 7, 2, 3),
               (8, 64, 32, 64, 3, 1, 1)]
ELEMENTS = [128, 512, 4096, 32768, 262144, 1048576, 4194304]
POINTS = {
    # (m, k, n): LSTM and GPT-example sized to MLP-100 and beyond.
    "gemm": [gemm_ops(*s) for s in [(4, 16, 32), (4, 32, 128), (16, 64, 64),
                                    (64, 64, 64), (64, 64, 256),
                                    (32, 256, 256), (128, 256, 256),
                                    (256, 512, 512), (512, 1024, 1024)]],
    "conv": [conv_ops(*s)[:1] for s in CONV_SHAPES],
    "conv_grad": [conv_ops(*s)[1:] for s in CONV_SHAPES],
    # Depthwise 3x3 (MobileNetV2 at width 0.25, batch 8, 64x64).
    "grouped_conv": [conv_ops(n, c, h, c, 3, s, 1, groups=c)
                     for n, c, h, s in [(2, 8, 8, 1), (8, 8, 16, 1),
                                        (8, 24, 16, 1), (8, 48, 32, 2),
                                        (8, 96, 32, 1)]],
    "elementwise": [elementwise_ops(e) for e in ELEMENTS],
    "exp_log": [exp_log_ops(e) for e in ELEMENTS],
    "tanh": [tanh_ops(e) for e in ELEMENTS],
    "reduction": [reduction_ops(e) for e in ELEMENTS],
}
BY_FLOPS = {"gemm", "conv", "conv_grad", "grouped_conv"}
# Crude rates for choosing the copies only (the table is what is measured).
GUESS = {"gemm": 30e9, "conv": 30e9, "conv_grad": 30e9,
         "grouped_conv": 5e9}


def copies_for(opclass, ops):
    size = sum(op.flops if opclass in BY_FLOPS else op.bytes() for op in ops)
    guess = size / GUESS.get(opclass, 5e9)
    return max(1, min(MAX_COPIES, math.ceil(TARGET_SECONDS / guess)))


def step_module(ops, copies):
    """A remat.training_step with COPIES copies of OPS, each op on its own
    arguments, every result returned."""
    args, lines, results = [], [], []
    for copy in range(copies):
        for i, op in enumerate(ops):
            names = []
            for j, shape in enumerate(op.operands):
                names.append(f"%a{copy}_{i}_{j}")
                args.append(f"{names[-1]}: {tensor(shape)}")
            outs = [f"%r{copy}_{i}_{j}" for j in range(len(op.results))]
            types = ", ".join(tensor(s) for s in op.operands)
            rtypes = ", ".join(tensor(s) for s in op.results)
            if len(op.results) > 1:
                rtypes = "(" + rtypes + ")"
            lines.append(f"  {', '.join(outs)} = " + op.text.format(*names) +
                         f" : ({types}) -> {rtypes}")
            results += [(o, tensor(s)) for o, s in zip(outs, op.results)]
    return ("func.func @calibrate(" + ", ".join(args) + ") -> (" +
            ", ".join(t for _, t in results) +
            ") attributes {remat.training_step} {\n" + "\n".join(lines) +
            "\n  return " + ", ".join(o for o, _ in results) + " : " +
            ", ".join(t for _, t in results) + "\n}\n")


def fastest_step_seconds(build, module, steps, threads, base):
    """Compiles MODULE, runs STEPS steps; the fastest step after the first,
    in seconds."""
    with open(base + ".mlir", "w") as f:
        f.write(module)
    subprocess.run([os.path.join(build, "bin", "remat-compile"),
                    base + ".mlir", "-o", base + ".o",
                    "--header=" + base + ".h"], check=True,
                   stderr=subprocess.DEVNULL)
    subprocess.run([os.path.join(build, "bin", "remat-runner"), "--header",
                    base + ".h", "--object", base + ".o", "-o",
                    base + ".run"], check=True)
    out = subprocess.run([base + ".run", "--steps", str(steps + 1),
                          "--threads", str(threads)], check=True,
                         capture_output=True, text=True).stdout
    times = [float(t) for t in re.findall(r"^perf step \d+ ms ([0-9.]+)$",
                                          out, re.M)][1:]
    return min(times) / 1e3


def merge_points(points):
    """(size, seconds) pairs to sorted [size, rate] with distinct sizes
    (equal sizes pooled: total size over total seconds)."""
    pooled = {}
    for size, seconds in points:
        total = pooled.setdefault(size, [0.0, 0.0])
        total[0] += size
        total[1] += seconds
    return [[size, pooled[size][0] / pooled[size][1]]
            for size in sorted(pooled)]


def format_table(table):
    """The table as JSON, one class per line, rates to 4 digits."""
    head = {k: v for k, v in table.items() if k != "classes"}
    lines = json.dumps(head, indent=1)[:-2].split("\n")
    classes = [f'  "{name}": ' + json.dumps(
        [[round(size, 1), float(f"{rate:.4g}")] for size, rate in points])
        for name, points in table["classes"].items()]
    return "\n".join(lines) + ',\n "classes": {\n' + ",\n".join(classes) + \
        "\n }\n}\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--classes", default=",".join(POINTS))
    parser.add_argument("-o", "--output",
                        default=os.path.join(HERE, "time-model.json"))
    args = parser.parse_args()
    loads = [os.getloadavg()[0]]
    classes = {}
    with tempfile.TemporaryDirectory() as tmp:
        for opclass in args.classes.split(","):
            measured = []
            for index, ops in enumerate(POINTS[opclass]):
                copies = copies_for(opclass, ops)
                seconds = fastest_step_seconds(
                    args.build, step_module(ops, copies), args.steps,
                    args.threads, os.path.join(tmp, f"{opclass}{index}"))
                per_op = seconds / (copies * len(ops))
                size = sum(op.flops if opclass in BY_FLOPS else op.bytes()
                           for op in ops) / len(ops)
                measured.append((size, per_op))
                print(f"{opclass} point {index}: {copies} x {len(ops)} ops, "
                      f"size {size:.6g}, {per_op * 1e6:.2f} us/op, "
                      f"rate {size / per_op:.4g}/s", file=sys.stderr)
            classes[opclass] = merge_points(measured)
            loads.append(os.getloadavg()[0])
    table = {
        "format": "remat-time-model-1",
        "threads": args.threads,
        "command": "bench/calibrate_time.py " + " ".join(sys.argv[1:]),
        "load_average": [round(min(loads), 1), round(max(loads), 1)],
        "units": "gemm, conv, conv_grad, grouped_conv: [flops, flops/s]; "
                 "others: "
                 "[bytes, bytes/s]",
        "classes": classes,
    }
    with open(args.output, "w") as f:
        f.write(format_table(table))
    print(f"wrote {args.output} (load {min(loads):.1f}-{max(loads):.1f})",
          file=sys.stderr)


if __name__ == "__main__":
    main()
