"""Where a compiled step's CPU time goes, per thread: the compiled loops
(serial, or inside OpenMP regions), the runtime's kernels, OpenBLAS, libomp
(forks, joins, and threads spinning while they wait), libc and the kernel.

usage: /usr/bin/python3 bench/step_profile.py RUNNER [--object FILE.o]
           [--steps 100] [--threads 1,2] [--freq 997] [--top 15]
           [--lines MODEL.mlir] [-- ARGS for the runner]

RUNNER is a program built by remat-runner (e.g. bench/perf.py's
<model>.run, or remat-compile + remat-runner by hand). For every thread
count, `perf record -e cpu-clock` samples one process of --steps steps;
only the samples between the first and the last one in compiled code count
(loading weights and writing results fall outside). Each sample is one
period of CPU time (1 / --freq s) of one thread, so the table gives CPU ms
per step, not wall time: a thread that waits off the CPU (descheduled by
another process) adds nothing, one that spins in libomp adds its spinning.
On 2 threads the main thread's column is the step's critical path as far
as it ran: its compiled-serial row is the loops no other thread helps with.

Compiled code is recognised by its symbols: the functions defined in the
object remat-compile wrote (--object, default RUNNER with `.run` replaced
by `.o`, as bench/perf.py names them; `nm`): the step's entry functions,
`<entry>..omp_par.N` (the bodies of OpenMP regions: compiled parallel
loops) and `<entry>.extracted.N` (loops split into functions of their own,
run by the calling thread).

With --lines (an object compiled with `remat-compile -g`, whose line tables
point into MODEL.mlir, the file remat-compile read), the compiled samples
are also summed per input line, i.e. per model op (the backward's loops
mostly carry the line of the forward op they differentiate; those without
one count as line 0), serial and in regions: which op's loops stay serial
on 2 threads and what they cost.
"""

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

# Categories, in the table's order.
COMPILED_SERIAL = "compiled loops, serial"
COMPILED_PARALLEL = "compiled loops, OpenMP regions"
RUNTIME = "runtime (GEMM, conv, im2col)"
BLAS = "OpenBLAS"
OPENMP = "libomp (fork, join, spin)"
LIBC = "libc (memset, memcpy)"
KERNEL = "kernel"
OTHER = "other"
RUNNER = "runner (I/O)"
ORDER = [COMPILED_SERIAL, COMPILED_PARALLEL, RUNTIME, BLAS, OPENMP, LIBC,
         KERNEL, OTHER]

SAMPLE = re.compile(r"^\s*(\d+)\s+([0-9.]+):\s+[0-9a-f]+\s+(.*?)\s+\((.*)\)$")
# The source line perf prints under a sample with `-F ...,srcline`.
SRCLINE = re.compile(r"^\s+(\S+):(\d+)$")


def compiled_symbols(obj):
    """The functions an object file defines (`nm --defined-only`)."""
    out = subprocess.run(["nm", "--defined-only", obj], check=True,
                         capture_output=True, text=True).stdout
    return {fields[2] for fields in (line.split() for line in
                                     out.splitlines())
            if len(fields) == 3 and fields[1] in "Tt"}


def category(symbol, dso, runner, compiled):
    """The category of one sample: its symbol in its shared object;
    `compiled` holds the symbols of the compiled step."""
    base = os.path.basename(dso)
    if dso.startswith("[kernel") or base.startswith("[kernel"):
        return KERNEL
    if "libomp" in base or "libgomp" in base:
        return OPENMP
    if "openblas" in base or "libblas" in base:
        return BLAS
    if base.startswith("libc.") or base.startswith("libm."):
        return LIBC
    if base != os.path.basename(runner):
        return OTHER
    if symbol.startswith("remat_runner::") or symbol in ("main", "_start"):
        return RUNNER
    if symbol in compiled:
        return COMPILED_PARALLEL if "..omp_par" in symbol else \
            COMPILED_SERIAL
    return RUNTIME


def parse_samples(text, runner, compiled):
    """(tid, time s, symbol, category, input line or 0) of every sample of
    `perf script -F tid,time,ip,sym,dso[,srcline]` output."""
    samples = []
    for line in text.splitlines():
        match = SAMPLE.match(line)
        if match:
            tid, time, symbol, dso = match.groups()
            samples.append([int(tid), float(time), symbol,
                            category(symbol, dso, runner, compiled), 0])
            continue
        source = SRCLINE.match(line)
        if source and samples and samples[-1][3] in (COMPILED_SERIAL,
                                                     COMPILED_PARALLEL):
            samples[-1][4] = int(source.group(2))
    return [tuple(sample) for sample in samples]


def summarise(samples, steps, freq):
    """Per thread (the main thread first, then the others by samples): CPU ms
    per step of every category and of every compiled function, counting
    the samples from the first to the last in compiled code."""
    compiled = [time for _, time, _, cat, _ in samples
                if cat in (COMPILED_SERIAL, COMPILED_PARALLEL)]
    if not compiled:
        return None
    first, last = min(compiled), max(compiled)
    ms = 1000.0 / freq / steps
    threads = collections.OrderedDict()
    functions = collections.defaultdict(collections.Counter)
    main = samples[0][0] if samples else None
    for tid, time, symbol, cat, _ in samples:
        if time < first or time > last:
            continue
        threads.setdefault(tid, collections.Counter())[cat] += ms
        if cat in (COMPILED_SERIAL, COMPILED_PARALLEL):
            functions[tid][symbol] += ms
    order = sorted(threads, key=lambda t: (t != main,
                                           -sum(threads[t].values())))
    return [(tid, threads[tid], functions[tid]) for tid in order]


def per_line(samples, steps, freq):
    """CPU ms per step of the compiled samples per input line: {line:
    (serial on the main thread, in regions on the main thread, in regions
    on the others)}; line 0 holds the samples without a line."""
    ms = 1000.0 / freq / steps
    main = samples[0][0] if samples else None
    lines = collections.defaultdict(lambda: [0.0, 0.0, 0.0])
    for tid, _, _, cat, line in samples:
        if cat == COMPILED_SERIAL:
            lines[line][0] += ms
        elif cat == COMPILED_PARALLEL:
            lines[line][1 if tid == main else 2] += ms
    return dict(lines)


def op_of(text):
    """`%name = dialect.op` of an input line, for the per-line table."""
    match = re.match(r"\s*(%[\w:#]+\s*=\s*)?([\w.]+)", text)
    return (match.group(1) or "") + match.group(2) if match else text.strip()


def table(rows_by_threads):
    """Markdown: one column per thread of every run, one row per category."""
    header = ["category"]
    columns = []
    for count, rows in rows_by_threads:
        for index, (_, cats, _) in enumerate(rows):
            if index and sum(cats.values()) < 0.05:
                continue
            header.append(f"{count}T {'main' if index == 0 else 'worker'}")
            columns.append(cats)
    lines = ["| " + " | ".join(header) + " |",
             "|---" + "|---:" * len(columns) + "|"]
    for cat in ORDER:
        lines.append(f"| {cat} | " +
                     " | ".join(f"{c[cat]:.2f}" for c in columns) + " |")
    lines.append("| **total** | " + " | ".join(
        f"**{sum(v for k, v in c.items() if k != RUNNER):.2f}**"
        for c in columns) + " |")
    return "\n".join(lines)


def record(runner, steps, threads, freq, extra, lines=False):
    """perf script text of one sampled run, and the runner's mean step."""
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        done = subprocess.run(
            ["perf", "record", "-q", "-e", "cpu-clock", "-F", str(freq),
             "-o", data, runner, "--steps", str(steps), "--threads",
             str(threads)] + extra, check=True, capture_output=True,
            text=True)
        fields = "tid,time,ip,sym,dso" + (",srcline" if lines else "")
        mean = re.search(r"mean_step_ms ([0-9.]+)", done.stdout)
        text = subprocess.run(
            ["perf", "script", "-i", data, "-F", fields],
            check=True, capture_output=True, text=True).stdout
    return text, float(mean.group(1)) if mean else None


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    parser = argparse.ArgumentParser()
    parser.add_argument("runner")
    parser.add_argument("--object")
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--freq", type=int, default=997)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--lines", metavar="MODEL.mlir")
    args = parser.parse_args(argv)
    runner = os.path.abspath(args.runner)
    obj = args.object or re.sub(r"\.run$", "", runner) + ".o"
    compiled = compiled_symbols(obj)
    results = []
    for count in (int(t) for t in args.threads.split(",")):
        load = os.getloadavg()[0]
        text, mean = record(runner, args.steps, count, args.freq, extra,
                            lines=bool(args.lines))
        samples = parse_samples(text, runner, compiled)
        rows = summarise(samples, args.steps, args.freq)
        if rows is None:
            sys.exit(f"step_profile: no sample in compiled code of {runner}")
        print(f"{count} thread(s): runner's mean step {mean} ms, load "
              f"average {load:.2f} before the run")
        results.append((count, rows,
                        per_line(samples, args.steps, args.freq)))
    print()
    print(f"CPU ms per step (perf cpu-clock samples at {args.freq} Hz, "
          f"{args.steps} steps; the runner's I/O left out):")
    print()
    print(table([(count, rows) for count, rows, _ in results]))
    source = open(args.lines).read().splitlines() if args.lines else []
    for count, rows, lines in results:
        print()
        print(f"Compiled functions, {count} thread(s), CPU ms per step "
              f"(main thread / others):")
        names = collections.Counter()
        for _, _, functions in rows:
            names.update(functions)
        for name, _ in names.most_common(args.top):
            print(f"  {name}: " + " / ".join(
                f"{functions[name]:.3f}" for _, _, functions in rows))
        if not source:
            continue
        print()
        print(f"Compiled loops per input line, {count} thread(s), CPU ms "
              f"per step (serial / in regions, main thread / in regions, "
              f"others):")
        for line, (serial, mine, others) in sorted(
                lines.items(), key=lambda item: -sum(item[1]))[:args.top]:
            text = op_of(source[line - 1]) if 0 < line <= len(source) \
                else "(no line)"
            print(f"  {line}: {text}: {serial:.3f} / {mine:.3f} / "
                  f"{others:.3f}")


if __name__ == "__main__":
    main()
