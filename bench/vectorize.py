"""The loops that call no library: LLVM's vectorizers against upstream
tiling + vectorisation (remat-compile --cpu-vectorize=llvm|upstream).

usage: /usr/bin/python3 bench/vectorize.py [--build build] [--steps 10]
           [--threads 1,2] [--models gpt_l2,...] [--imported resnet18,...]
           [--types f64,f16,bf16] [--size 256]

Models (examples/<model>.mlir, and python/remat/zoo.py's models imported as
bench/perf.py does): the store-all step compiled both ways (compile wall and
CPU seconds), the dumped buffers after one step compared bytewise, then the
median step time of each at every thread count, interleaved (llvm,
upstream, llvm, upstream; the fastest of the --rounds runs of each).
--baseline contractions compares against remat-compile's default instead
of --cpu-vectorize=llvm.
Matmuls (--types): f32 matmuls call cblas_sgemm, f64/f16/bf16 ones stay
loops; one `linalg.matmul` of two size x size matrices per type, both ways,
the runner's mean call time (same interleaving) and whether the result
bits agree. Prints two markdown tables with upstream / llvm ratios.
"""

import argparse
import filecmp
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import perf  # noqa: E402  (compile_step, run_step, import_zoo)

MATMUL = """func.func @mm(%a: tensor<{n}x{n}x{t}>, %b: tensor<{n}x{n}x{t}>)
    -> tensor<{n}x{n}x{t}> {{
  %z = arith.constant 0.0 : {t}
  %e = tensor.empty() : tensor<{n}x{n}x{t}>
  %c = linalg.fill ins(%z : {t}) outs(%e : tensor<{n}x{n}x{t}>)
      -> tensor<{n}x{n}x{t}>
  %r = linalg.matmul ins(%a, %b : tensor<{n}x{n}x{t}>, tensor<{n}x{n}x{t}>)
      outs(%c : tensor<{n}x{n}x{t}>) -> tensor<{n}x{n}x{t}>
  return %r : tensor<{n}x{n}x{t}>
}}
"""


def build_runner(build, model, flags, out):
    """Compiles and links a runner; returns the compile wall seconds."""
    start = time.perf_counter()
    subprocess.run([os.path.join(build, "bin", "remat-compile"), model,
                    "-o", out + ".o", "--header=" + out + ".h"] + flags,
                   check=True, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    subprocess.run([os.path.join(build, "bin", "remat-runner"), "--header",
                    out + ".h", "--object", out + ".o", "-o", out + ".run"],
                   check=True, stdout=subprocess.DEVNULL)
    return wall


def run(runner, steps, threads):
    """Returns (mean ms, the result lines) of `steps` calls."""
    out = subprocess.run([runner, "--steps", str(steps), "--threads",
                          str(threads)], check=True, capture_output=True,
                         text=True).stdout
    ms = [float(line.split()[2]) for line in out.splitlines()
          if line.startswith("perf mean_step_ms")]
    results = [line for line in out.splitlines() if line.startswith("result")]
    return ms[0], results


def same_dumps(a, b):
    """True if directories a and b hold the same files, bytewise."""
    names = sorted(os.listdir(a))
    if names != sorted(os.listdir(b)) or not names:
        return False
    match, _, _ = filecmp.cmpfiles(a, b, names, shallow=False)
    return len(match) == len(names)


def compare_models(args, tmp, threads):
    b = args.baseline
    lines = [f"| model | threads | {b} ms | upstream ms | upstream / {b} | "
             f"compile wall s {b} / upstream | compile CPU s {b} / upstream "
             "| same bits |",
             "|---|---:|---:|---:|---:|---:|---:|---|"]
    models = [(n, False) for n in args.models.split(",") if n]
    models += [(n, True) for n in args.imported.split(",") if n]
    for name, imported in models:
        base = os.path.join(tmp, name)
        extra = []
        if imported:
            model, extra = perf.import_zoo(name, base)
        else:
            model = os.path.join(ROOT, "examples", name + ".mlir")
        compiled = {}
        for v in (b, "upstream"):
            compiled[v] = perf.compile_step(
                args.build, model,
                ["--strategy=store-all", "--cpu-vectorize=" + v],
                base + "-" + v)
            os.makedirs(base + "-" + v + "-dump")
            perf.run_step(base + "-" + v + ".run", 1, 1,
                          base + "-" + v + "-dump", extra)
        same = same_dumps(base + "-" + b + "-dump", base + "-upstream-dump")
        for t in threads:
            best = {}
            for _ in range(args.rounds):
                for v in (b, "upstream"):
                    ms = perf.run_step(base + "-" + v + ".run", args.steps,
                                       t, extra=extra)[0]
                    best[v] = min(ms, best.get(v, ms))
            shown = name + (" (imported)" if imported else "")
            lines.append(
                f"| {shown} | {t} | {best[b]:.2f} | "
                f"{best['upstream']:.2f} | "
                f"{best['upstream'] / best[b]:.2f} | "
                f"{compiled[b][0]:.1f} / {compiled['upstream'][0]:.1f} | "
                f"{compiled[b][1]:.1f} / {compiled['upstream'][1]:.1f} | "
                f"{'yes' if same else 'NO'} |")
            print(lines[-1], file=sys.stderr)
    return lines


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--models", default="")
    parser.add_argument("--imported", default="")
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--types", default="")
    parser.add_argument("--baseline", default="llvm",
                        choices=["llvm", "contractions"],
                        help="the models' other build: --cpu-vectorize=llvm "
                        "(LLVM's vectorizers) or contractions (the default: "
                        "upstream for the matmuls that call no library)")
    parser.add_argument("--rounds", type=int, default=2,
                        help="interleaved runs of each build per thread "
                        "count (the fastest is shown)")
    args = parser.parse_args()
    threads = [int(n) for n in args.threads.split(",")]
    loads = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory() as tmp:
        lines = []
        if args.models or args.imported:
            lines += compare_models(args, tmp, threads) + [""]
        if args.types:
            lines += compare_matmuls(args, tmp, threads) + [""]
    loads.append(os.getloadavg()[0])
    lines.append(f"Load average (1 min) at start and end: {min(loads):.1f} "
                 f"to {max(loads):.1f} on {os.cpu_count()} cores.")
    print("\n".join(lines))


def compare_matmuls(args, tmp, threads):
    lines = ["| type | threads | llvm ms | upstream ms | upstream / llvm | "
             "compile llvm s | compile upstream s | same bits |",
             "|---|---:|---:|---:|---:|---:|---:|---|"]
    for t in [t for t in args.types.split(",") if t]:
        model = os.path.join(tmp, t + ".mlir")
        with open(model, "w") as f:
            f.write(MATMUL.format(n=args.size, t=t))
        walls = {}
        for v in ("llvm", "upstream"):
            walls[v] = build_runner(args.build, model,
                                    ["--cpu-vectorize=" + v],
                                    os.path.join(tmp, t + "-" + v))
        for n in threads:
            # Interleaved: llvm, upstream, llvm, upstream; the faster
            # of each pair.
            best = {}
            for _ in range(2):
                for v in ("llvm", "upstream"):
                    ms, results = run(os.path.join(tmp, t + "-" + v +
                                                   ".run"),
                                      args.steps, n)
                    old = best.get(v)
                    if old and old[1] != results:
                        sys.exit("results differ between runs")
                    best[v] = (min(ms, old[0]) if old else ms, results)
            same = best["llvm"][1] == best["upstream"][1]
            lines.append(
                f"| {t} {args.size}^3 | {n} | "
                f"{best['llvm'][0]:.2f} | {best['upstream'][0]:.2f} | "
                f"{best['upstream'][0] / best['llvm'][0]:.2f} | "
                f"{walls['llvm']:.1f} | {walls['upstream']:.1f} | "
                f"{'yes' if same else 'NO'} |")
            print(lines[-1], file=sys.stderr)
    return lines


if __name__ == "__main__":
    main()
