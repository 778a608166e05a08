#!/usr/bin/python3
"""Execution-test helper: runs a lowered remat function on the CPU and checks
its results against an independent torch (float64) evaluation of the remat
source.

Subcommands:

``main``  reads a module (after --remat-lower-to-linalg) on stdin and prints
          it with an appended ``@main`` that calls the function on
          deterministic constant inputs and prints every result with
          ``printMemrefI32`` as the raw bits of its f32 value (exact), or with
          ``printMemrefF32`` (``--print f32``, readable, for hand-written CHECK
          lines). With ``--fd K`` it also calls the function at the
          parameters +- eps*v for K random directions v and prints the two
          losses (first result), for a finite-difference check.

``check`` reads the mlir-runner output on stdin and the remat source (printed
          with --mlir-print-op-generic) from a file, regenerates the same
          inputs, evaluates the source with torch in float64 and compares:
          ``--mode forward`` compares every result of the function;
          ``--mode grad`` treats the compiled function as the training step
          of the source (the loss, then the gradient of every remat.param
          argument in argument order, as --remat-autodiff builds it) and
          compares against torch autograd; ``--mode fd`` (with ``--fd K``)
          only checks the compiled gradients against central differences of
          the compiled loss (the source is then read in its custom form, for
          steps written in upstream dialects that the torch evaluator does
          not model). Prints one line per tensor and ``OK: N tensors`` or
          exits with status 1.

Inputs: argument i is ``--input i=<json>`` when given, else integers drawn
uniformly in [0, high) for ``--int-high i=high`` and floats uniform in
[-1, 1) (times ``--scale``) from numpy's RandomState(seed * 1009 + i). 16-bit
float inputs are rounded to their type, and the reference evaluates the
rounded values.
"""

import argparse
import ast
import json
import math
import re
import sys

import os

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from remat_models.mlir_types import TensorType  # noqa: E402
from remat_models.mlirtext import (parse_generic, parse_tensor_type,  # noqa: E402
                                   parse_type_list, split_top)

FLOAT_TYPES = {"f32": np.float32, "f16": np.float16, "bf16": None, "f64": np.float64}
INT_TYPES = {"i32": np.int32, "i64": np.int64, "i1": np.bool_}

# --------------------------------------------------------------------------
# Lowered signature (custom form, for `main`)
# --------------------------------------------------------------------------

def parse_lowered_signature(text, func):
    pat = re.compile(r"func\.func\s+(?:public\s+)?@%s\((.*?)\)\s*(?:->\s*(\(.*?\)|tensor<[^>]*>))?\s*(?:attributes\s*\{[^}]*\}\s*)?\{"
                     % re.escape(func), re.S)
    m = pat.search(text)
    if not m:
        raise SystemExit("function @%s not found in the lowered module" % func)
    args = []
    params = []
    for i, a in enumerate(split_top(m.group(1))):
        ty = re.search(r"tensor<[^>]*>", a).group(0)
        args.append(parse_tensor_type(ty))
        if "remat.param" in a:
            params.append(i)
    outs = parse_type_list(m.group(2)) if m.group(2) else []
    return args, params, outs


def first_function_name(text):
    m = re.search(r"func\.func\s+(?:public\s+)?@([\w$.-]+)\(", text)
    if not m:
        raise SystemExit("no function in the input (did the lowering fail?)")
    return m.group(1)


# --------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------

def _parse_kv(items, conv):
    out = {}
    for item in items or []:
        k, _, v = item.partition("=")
        out[int(k)] = conv(v)
    return out


def make_inputs(arg_types, args):
    explicit = _parse_kv(args.input, json.loads)
    highs = _parse_kv(args.int_high, int)
    values = []
    for i, t in enumerate(arg_types):
        rng = np.random.RandomState(args.seed * 1009 + i)
        if i in explicit:
            v = np.array(explicit[i], dtype=np.float64).reshape(t.shape)
        elif t.dtype in INT_TYPES:
            if i not in highs:
                raise SystemExit("integer argument %d needs --int-high %d=N" % (i, i))
            v = rng.randint(0, highs[i], size=t.shape).astype(np.int64)
        else:
            v = rng.uniform(-1.0, 1.0, size=t.shape) * args.scale
        values.append(round_to(v, t.dtype))
    return values


def round_to(v, dtype):
    """Rounds float64 values to `dtype` and returns them as float64 (ints
    unchanged)."""
    v = np.asarray(v)
    if dtype in INT_TYPES:
        return v.astype(np.int64)
    if dtype == "bf16":
        import torch
        return torch.tensor(v, dtype=torch.float64).to(torch.bfloat16).to(torch.float64).numpy()
    return v.astype(FLOAT_TYPES[dtype]).astype(np.float64)


def dense_literal(v, t):
    def fmt(x):
        if t.dtype in INT_TYPES:
            return "%d" % int(x)
        return "%.9e" % float(x)

    def rec(a):
        if a.ndim == 0:
            return fmt(a)
        return "[" + ", ".join(rec(x) for x in a) + "]"
    return "dense<%s> : %s" % (rec(np.asarray(v).reshape(t.shape)), t)


# --------------------------------------------------------------------------
# main generation
# --------------------------------------------------------------------------

def fd_directions(arg_types, params, inputs, args):
    """Per direction: (plus inputs, minus inputs) with the parameters moved
    by +-eps*v, v uniform in [-1, 1) per element."""
    dirs = []
    for k in range(args.fd):
        rng = np.random.RandomState(args.seed * 7919 + 31 * k + 5)
        plus, minus = list(inputs), list(inputs)
        for i in params:
            v = rng.uniform(-1.0, 1.0, size=arg_types[i].shape)
            plus[i] = round_to(inputs[i] + args.fd_eps * v, arg_types[i].dtype)
            minus[i] = round_to(inputs[i] - args.fd_eps * v, arg_types[i].dtype)
        dirs.append((plus, minus))
    return dirs


def cmd_main(args):
    text = sys.stdin.read()
    func = args.func or first_function_name(text)
    arg_types, params, outs = parse_lowered_signature(text, func)
    if args.params_from:
        # The lowering drops the remat.param marks: read them from the source.
        _, params, _ = parse_lowered_signature(open(args.params_from).read(), func)
    inputs = make_inputs(arg_types, args)
    lines = []
    counter = [0]

    def fresh(prefix):
        counter[0] += 1
        return "%%%s%d" % (prefix, counter[0])

    def call(values, print_results):
        names = []
        for v, t in zip(values, arg_types):
            n = fresh("in")
            lines.append("    %s = arith.constant %s" % (n, dense_literal(v, t)))
            names.append(n)
        r = fresh("r")
        sig = "(%s) -> (%s)" % (", ".join(map(str, arg_types)), ", ".join(map(str, outs)))
        lines.append("    %s:%d = func.call @%s(%s) : %s" % (r, len(outs), func, ", ".join(names), sig))
        for j in print_results:
            emit_print("%s#%d" % (r, j), outs[j])

    def emit_print(value, t):
        rank = len(t.shape)
        dims = ", ".join("d%d" % i for i in range(rank))
        amap = "affine_map<(%s) -> (%s)>" % (dims, dims)
        iters = ", ".join(['"parallel"'] * rank)
        elt = "i32" if args.print == "bits" else "f32"
        out_t = TensorType(t.shape, elt)
        e, g, u = fresh("e"), fresh("g"), fresh("u")
        lines.append("    %s = tensor.empty() : %s" % (e, out_t))
        lines.append("    %s = linalg.generic {indexing_maps = [%s, %s], iterator_types = [%s]} "
                     "ins(%s : %s) outs(%s : %s) {" % (g, amap, amap, iters, value, t, e, out_t))
        lines.append("    ^bb0(%%x: %s, %%o: %s):" % (t.dtype, elt))
        cur = "%x"
        if t.dtype != "f32":
            lines.append("      %%w = arith.extf %%x : %s to f32" % t.dtype)
            cur = "%w"
        if args.print == "bits":
            lines.append("      %%b = arith.bitcast %s : f32 to i32" % cur)
            cur = "%b"
        lines.append("      linalg.yield %s : %s" % (cur, elt))
        lines.append("    } -> %s" % out_t)
        lines.append("    %s = tensor.cast %s : %s to tensor<*x%s>" % (u, g, out_t, elt))
        fn = "printMemrefI32" if args.print == "bits" else "printMemrefF32"
        lines.append("    func.call @%s(%s) : (tensor<*x%s>) -> ()" % (fn, u, elt))

    call(inputs, range(len(outs)))
    for plus, minus in fd_directions(arg_types, params, inputs, args):
        call(plus, [0])
        call(minus, [0])

    body = text.rstrip()
    assert body.endswith("}"), "expected a module"
    body = body[:-1]
    out = [body]
    out.append("  func.func private @printMemrefI32(tensor<*xi32>)")
    out.append("  func.func private @printMemrefF32(tensor<*xf32>)")
    out.append("  func.func @main() {")
    out.extend(lines)
    out.append("    return")
    out.append("  }")
    out.append("}")
    print("\n".join(out))


# --------------------------------------------------------------------------
# Runner output
# --------------------------------------------------------------------------

def parse_runner_output(text, bits):
    tensors = []
    for chunk in text.split("Unranked Memref")[1:]:
        m = re.search(r"sizes = \[([^\]]*)\]", chunk)
        shape = tuple(int(s) for s in m.group(1).split(",") if s.strip())
        data = chunk[chunk.index("data =") + len("data ="):]
        if bits:
            nums = [int(x) for x in re.findall(r"-?\d+", data)]
            arr = np.array(nums, dtype=np.int64).astype(np.int32).view(np.float32)
        else:
            nums = re.findall(r"-?(?:nan|inf|[\d.]+(?:e[-+]?\d+)?)", data)
            arr = np.array([float(x) for x in nums], dtype=np.float32)
        tensors.append(arr.astype(np.float64).reshape(shape))
    return tensors


# --------------------------------------------------------------------------
# torch reference
# --------------------------------------------------------------------------

def dropout_mask(shape, seed, rate):
    """The dropout mask of docs/Conventions.md (numpy uint64 arithmetic)."""
    n = int(np.prod(shape, dtype=np.int64))
    with np.errstate(over="ignore"):
        i = np.arange(n, dtype=np.uint64)
        h = np.uint64(seed & 0xFFFFFFFFFFFFFFFF) * np.uint64(0x9E3779B97F4A7C15) + i
        h ^= h >> np.uint64(33)
        h *= np.uint64(0xFF51AFD7ED558CCD)
        h ^= h >> np.uint64(33)
        h *= np.uint64(0xC4CEB9FE1A85EC53)
        h ^= h >> np.uint64(33)
    keep = (h >> np.uint64(40)) >= np.uint64(math.floor(rate * 2 ** 24))
    return keep.reshape(shape)


def evaluate(fn, inputs, torch):
    """Evaluates `fn` on torch tensors (float64 / int64)."""
    import torch.nn.functional as F
    env = dict(zip(fn.args, inputs))
    _run_ops(fn.ops, env, torch, F)
    ret = fn.ops[-1]
    assert ret.name == "func.return"
    return [env[o] for o in ret.operands]


def _vjp(f, x, dy, torch):
    with torch.enable_grad():
        xx = x.detach().clone().requires_grad_(True)
        y = f(xx)
        (g,) = torch.autograd.grad(y, xx, dy)
    return g


def _run_ops(ops, env, torch, F):
    for op in ops:
        n = op.name
        a = op.attrs
        x = [env[o] for o in op.operands]
        rt = op.out_types[0] if op.out_types else None
        if n in ("func.return", "remat.yield"):
            return
        if n == "remat.keep":
            continue
        if n == "remat.recompute":
            args, body = op.region
            inner = dict(env)
            inner.update({name: v for (name, _), v in zip(args, x)})
            _run_ops(body, inner, torch, F)
            yielded = [inner[o] for o in body[-1].operands]
            for r, v in zip(op.results, yielded):
                env[r] = v
            continue
        if n == "arith.constant":
            _, lit, t = a["value"]
            lit = lit.strip()
            if lit.startswith("["):
                val = np.array(ast.literal_eval(lit), dtype=np.float64)
            else:
                val = np.full(t.shape, float(lit.replace("true", "1").replace("false", "0")))
            r = torch.tensor(round_to(val, t.dtype).reshape(t.shape))
        elif n == "remat.matmul":
            l, rr = x
            if a.get("transpose_a"):
                l = l.transpose(-1, -2)
            if a.get("transpose_b"):
                rr = rr.transpose(-1, -2)
            r = torch.matmul(l, rr)
        elif n in ("remat.add", "remat.sub", "remat.mul", "remat.div"):
            r = getattr(torch, n[6:])(x[0], x[1])
        elif n in ("remat.relu", "remat.tanh", "remat.sigmoid", "remat.exp", "remat.log", "remat.neg"):
            r = getattr(torch, n[6:])(x[0])
        elif n == "remat.gelu":
            r = F.gelu(x[0], approximate="tanh")
        elif n == "remat.gelu_erf":
            r = F.gelu(x[0])
        elif n == "remat.relu6":
            r = F.relu6(x[0])
        elif n == "remat.relu6_grad":
            r = torch.where((x[1] > 0) & (x[1] < 6), x[0], torch.zeros_like(x[0]))
        elif n == "remat.relu_grad":
            r = _vjp(torch.relu, x[1], x[0], torch)
        elif n == "remat.gelu_grad":
            r = _vjp(lambda t: F.gelu(t, approximate="tanh"), x[1], x[0], torch)
        elif n == "remat.gelu_erf_grad":
            r = _vjp(F.gelu, x[1], x[0], torch)
        elif n == "remat.tanh_grad":
            r = x[0] * (1 - x[1] * x[1])
        elif n == "remat.sigmoid_grad":
            r = x[0] * x[1] * (1 - x[1])
        elif n == "remat.softmax":
            r = torch.softmax(x[0], a.get("axis", -1))
        elif n == "remat.log_softmax":
            r = torch.log_softmax(x[0], a.get("axis", -1))
        elif n == "remat.softmax_grad":
            # softmax(log y) = y: the vjp of softmax at log(y).
            ax = a.get("axis", -1)
            r = _vjp(lambda t: torch.softmax(t, ax), torch.log(x[1]), x[0], torch)
        elif n == "remat.log_softmax_grad":
            # log_softmax(y) = y for a log-softmax output y.
            ax = a.get("axis", -1)
            r = _vjp(lambda t: torch.log_softmax(t, ax), x[1], x[0], torch)
        elif n == "remat.reshape":
            r = x[0].reshape(rt.shape)
        elif n == "remat.transpose":
            r = x[0].permute(*a["permutation"])
        elif n == "remat.concat":
            r = torch.cat(x, a["axis"])
        elif n == "remat.slice":
            idx = tuple(slice(o, o + (s - 1) * st + 1, st)
                        for o, s, st in zip(a["offsets"], rt.shape, a["strides"]))
            r = x[0][idx]
        elif n == "remat.slice_grad":
            r = torch.zeros(rt.shape, dtype=x[0].dtype)
            idx = tuple(slice(o, o + (s - 1) * st + 1, st)
                        for o, s, st in zip(a["offsets"], x[0].shape, a["strides"]))
            r[idx] = x[0]
        elif n == "remat.broadcast_to":
            r = torch.broadcast_to(x[0], rt.shape).clone()
        elif n == "remat.sum_to":
            r = _sum_to(x[0], rt.shape, torch)
        elif n == "remat.embedding":
            r = F.embedding(x[1].long(), x[0])
        elif n == "remat.embedding_grad":
            d = rt.shape[1]
            r = torch.zeros(rt.shape, dtype=x[0].dtype)
            r.index_add_(0, x[1].reshape(-1).long(), x[0].reshape(-1, d))
        elif n == "remat.dropout":
            rate = a["rate"]
            keep = torch.tensor(dropout_mask(tuple(x[0].shape), int(x[1].item()), rate))
            scale = float(np.float32(1.0 / (1.0 - rate)))
            r = torch.where(keep, x[0] * scale, torch.zeros_like(x[0]))
        elif n == "remat.softmax_cross_entropy":
            c = x[0].shape[-1]
            r = F.cross_entropy(x[0].reshape(-1, c), x[1].reshape(-1).long())
        elif n == "remat.softmax_cross_entropy_grad":
            c = x[0].shape[-1]
            lab = x[1].reshape(-1).long()
            r = _vjp(lambda t: F.cross_entropy(t.reshape(-1, c), lab), x[0], x[2], torch)
        elif n == "remat.mse":
            r = F.mse_loss(x[0], x[1])
        elif n == "remat.mse_grad":
            r = _vjp(lambda t: F.mse_loss(t, x[1]), x[0], x[2], torch)
        else:
            raise NotImplementedError(n)
        if rt is not None:
            assert tuple(r.shape) == rt.shape, (n, tuple(r.shape), rt)
            if rt.dtype in FLOAT_TYPES and rt.dtype != "f32":
                # 16-bit results are rounded like the compiled code rounds them.
                r = _round16(r, rt.dtype, torch)
        env[op.results[0]] = r


def _round16(r, dtype, torch):
    t = torch.float16 if dtype == "f16" else torch.bfloat16
    if r.requires_grad:
        return r + (r.detach().to(t).to(torch.float64) - r.detach())
    return r.to(t).to(torch.float64)


def _sum_to(v, shape, torch):
    lead = v.dim() - len(shape)
    if lead:
        v = v.sum(tuple(range(lead)))
    dims = tuple(i for i, s in enumerate(shape) if s == 1 and v.shape[i] != 1)
    if dims:
        v = v.sum(dims, keepdim=True)
    return v.reshape(shape)


def cmd_check_fd(args):
    """--mode fd: finite differences of the compiled loss only."""
    if not args.fd:
        raise SystemExit("--mode fd needs --fd K")
    text = open(args.source).read()
    func = args.func or first_function_name(text)
    arg_types, params, _ = parse_lowered_signature(text, func)
    got = parse_runner_output(sys.stdin.read(), args.print == "bits")
    inputs = make_inputs(arg_types, args)
    fn = argparse.Namespace(arg_types=arg_types, params=params)
    n = 1 + len(params)
    if not check_fd(fn, inputs, got, n, args):
        return 1
    print("OK: %d finite differences" % args.fd)
    return 0


def cmd_check(args):
    if args.mode == "fd":
        return cmd_check_fd(args)
    import torch
    torch.set_grad_enabled(False)
    fns = parse_generic(open(args.source).read())
    fn = fns[args.func] if args.func else next(iter(fns.values()))
    got = parse_runner_output(sys.stdin.read(), args.print == "bits")
    inputs = make_inputs(fn.arg_types, args)
    tins = [torch.tensor(v) for v in inputs]
    if args.mode == "forward":
        expected = [r.detach() for r in evaluate(fn, tins, torch)]
        names = ["result %d" % i for i in range(len(expected))]
    else:
        with torch.enable_grad():
            for i in fn.params:
                tins[i].requires_grad_(True)
            (loss,) = evaluate(fn, tins, torch)
            grads = torch.autograd.grad(loss, [tins[i] for i in fn.params])
        expected = [loss.detach()] + [g.detach() for g in grads]
        names = ["loss"] + ["d/d arg%d" % i for i in fn.params]
    ok = True
    if len(got) < len(expected):
        print("MISMATCH: %d printed tensors, expected %d" % (len(got), len(expected)))
        return 1
    for name, g, e in zip(names, got, expected):
        e = e.numpy().astype(np.float64)
        if g.shape != e.shape:
            print("MISMATCH %s: shape %s vs %s" % (name, g.shape, e.shape))
            ok = False
            continue
        scale = max(float(np.max(np.abs(e))) if e.size else 0.0, args.atol)
        err = float(np.max(np.abs(g - e))) if e.size else 0.0
        rel = err / scale
        good = rel <= args.rtol and np.all(np.isfinite(g))
        ok &= bool(good)
        print("%s %s: max |got - ref| / max |ref| = %.3g (max |ref| = %.4g)"
              % ("ok" if good else "MISMATCH", name, rel, scale))
    if args.fd:
        ok &= check_fd(fn, inputs, got, len(expected), args)
    if not ok:
        return 1
    print("OK: %d tensors" % len(expected))
    return 0


def check_fd(fn, inputs, got, n, args):
    """Central differences of the compiled loss along random directions
    against the compiled gradient."""
    losses = got[n:]
    dirs = fd_directions(fn.arg_types, fn.params, inputs, args)
    if len(losses) != 2 * len(dirs):
        print("MISMATCH: %d finite-difference losses, expected %d" % (len(losses), 2 * len(dirs)))
        return False
    grads = dict(zip(fn.params, got[1:n]))
    ok = True
    for k, (plus, minus) in enumerate(dirs):
        est = (float(losses[2 * k]) - float(losses[2 * k + 1])) / 2.0
        pred = sum(float(np.sum(grads[i] * (plus[i] - minus[i]) / 2.0)) for i in fn.params)
        err = abs(est - pred) / max(abs(pred), args.fd_floor)
        good = err <= args.fd_rtol
        ok &= good
        print("%s finite difference %d: (L+ - L-)/2 = %.6g, <grad, dx> = %.6g, rel err %.3g"
              % ("ok" if good else "MISMATCH", k, est, pred, err))
    return ok


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("command", choices=["main", "check"])
    p.add_argument("source", nargs="?", help="check: the remat source in generic form")
    p.add_argument("--func", help="the function (default: the first)")
    p.add_argument("--params-from", help="main: the remat source, for the remat.param marks")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--input", action="append", help="i=<json value>")
    p.add_argument("--int-high", action="append", help="i=N: integers in [0, N)")
    p.add_argument("--print", choices=["bits", "f32"], default="bits")
    p.add_argument("--mode", choices=["forward", "grad", "fd"], default="forward")
    p.add_argument("--rtol", type=float, default=1e-5)
    p.add_argument("--atol", type=float, default=1e-6,
                   help="floor of the error scale (for all-zero references)")
    p.add_argument("--fd", type=int, default=0, help="finite-difference directions")
    p.add_argument("--fd-eps", type=float, default=1e-2)
    p.add_argument("--fd-rtol", type=float, default=2e-3)
    p.add_argument("--fd-floor", type=float, default=1e-3)
    args = p.parse_args()
    if args.command == "main":
        cmd_main(args)
        return 0
    return cmd_check(args)


if __name__ == "__main__":
    sys.exit(main())
