"""remat-compile's time per stage, for several builds side by side.

usage: /usr/bin/python3 bench/compile_time.py --compiler NAME=PATH
           [--compiler NAME=PATH ...] [--models mlp_d100_w256_b32,gpt_l2,...]
           [--imported resnet18,mobilenet_v2] [--strategy store-all]
           [--repeat 1] [-o table.md]

Compiles every model (examples/<model>.mlir; models of python/remat/zoo.py
named by --imported are exported once with bench/torch_zoo_step.py) to a host
object with each remat-compile given by --compiler (e.g. an old build and a
new one), the compilers taking turns model by model so that both see the same
load, --repeat times each. Prints a markdown table (and writes it with -o):
total wall and CPU seconds of the process (the minimum over the repeats), the
CPU seconds of each stage remat-compile -v reports (same run as the total),
the object's size, whether the objects of all compilers are the same bytes,
and the load average before and after.
"""

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, ".."))
PYTHON = "/usr/bin/python3"
MODELS = ["mlp_d100_w256_b32", "gpt_l2", "resnet_n4"]
STAGE = re.compile(r"^remat-compile: (\S+)\s+wall\s+([0-9.]+) s\s+cpu\s+"
                   r"([0-9.]+) s$", re.M)


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def compile_once(compiler, model, strategy, out):
    """Returns (wall s, cpu s, {stage: cpu s}, object bytes)."""
    wall, cpu = time.perf_counter(), children_cpu()
    done = subprocess.run([compiler, model, "-o", out + ".o",
                           "--header=" + out + ".h", "-v",
                           "--strategy=" + strategy],
                          stderr=subprocess.PIPE, text=True)
    wall, cpu = time.perf_counter() - wall, children_cpu() - cpu
    if done.returncode != 0:
        sys.exit(f"{compiler} failed on {model}:\n{done.stderr}")
    stages = {name: float(c) for name, _, c in STAGE.findall(done.stderr)}
    with open(out + ".o", "rb") as obj:
        data = obj.read()
    return wall, cpu, stages, data


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--compiler", action="append", required=True,
                        help="NAME=PATH of a remat-compile")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--imported", default="resnet18,mobilenet_v2")
    parser.add_argument("--strategy", default="store-all")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("-o", "--output")
    args = parser.parse_args()
    compilers = [tuple(c.split("=", 1)) for c in args.compiler]
    load_before = os.getloadavg()
    rows = []
    stage_names = []
    with tempfile.TemporaryDirectory() as tmp:
        models = [(m, os.path.join(ROOT, "examples", m + ".mlir"))
                  for m in args.models.split(",") if m]
        for name in [n for n in args.imported.split(",") if n]:
            base = os.path.join(tmp, name)
            subprocess.run([PYTHON, os.path.join(HERE, "torch_zoo_step.py"),
                            name, "--export", base], check=True,
                           stdout=subprocess.DEVNULL)
            models.append((name + " (imported)", base + ".mlir"))
        for shown, path in models:
            best = {}
            for _ in range(args.repeat):
                for label, compiler in compilers:
                    result = compile_once(compiler, path, args.strategy,
                                          os.path.join(tmp, "step"))
                    if label not in best or result[1] < best[label][1]:
                        best[label] = result
            objects = {best[label][3] for label, _ in compilers}
            for label, _ in compilers:
                wall, cpu, stages, data = best[label]
                for stage in stages:
                    if stage not in stage_names:
                        stage_names.append(stage)
                rows.append((shown, label, wall, cpu, stages, len(data),
                             len(objects) == 1))
                print(f"{shown} {label}: wall {wall:.2f} s, CPU {cpu:.2f} s",
                      file=sys.stderr, flush=True)
    load_after = os.getloadavg()
    order = ["remat", "linalg", "buffers", "mlir-llvm", "llvm-ir",
             "llvm-split", "llvm-opt", "object"]
    stage_names.sort(key=lambda s: order.index(s) if s in order else 99)
    lines = ["| model | compiler | wall s | CPU s | " +
             " | ".join(stage_names) + " | object bytes | same object |",
             "|" + "---|" * (6 + len(stage_names))]
    for shown, label, wall, cpu, stages, size, same in rows:
        cells = [f"{stages[s]:.2f}" if s in stages else "-"
                 for s in stage_names]
        lines.append(f"| {shown} | {label} | {wall:.2f} | {cpu:.2f} | " +
                     " | ".join(cells) +
                     f" | {size} | {'yes' if same else 'no'} |")
    lines.append("")
    lines.append(f"Strategy {args.strategy}; stage columns: CPU s of "
                 f"remat-compile -v; minimum CPU over {args.repeat} "
                 f"run(s). Load average before "
                 f"{' '.join(f'{x:.2f}' for x in load_before)}, after "
                 f"{' '.join(f'{x:.2f}' for x in load_after)}.")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.output:
        with open(args.output, "w") as out:
            out.write(text)


if __name__ == "__main__":
    main()
