"""Step times of compiled runners at several thread counts, alone and beside
one busy process, over many fresh processes.

usage: /usr/bin/python3 bench/thread_scaling.py --runner NAME=PATH
           [--runner NAME=PATH ...] [--reps 8] [--steps 10] [--threads 1,2]
           [--competitor no,yes] [-o FILE] [-- ARGS for every runner]

Each runner is a program built by remat-runner (e.g. the same model compiled
by two builds). For every repetition, competitor setting, runner and thread
count, in that order (so that the machine's load drifts over all of them
alike), one fresh process runs --steps steps after one warm-up step; its
time is the median of those steps. With competitor 'yes', a busy loop (one
more process that never sleeps, as a build or another benchmark on the same
cores would be) runs during the measurement. Prints a markdown table: per
runner, thread count and competitor, the least, median and largest of the
repetitions' times, and the 1-thread median over this row's median
(scaling), with the machine's load average.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys


def step_ms(runner, steps, threads, extra):
    """Median step time (ms) of one fresh process, after its first step."""
    output = subprocess.run(
        [runner, "--steps", str(steps + 1), "--threads", str(threads)] + extra,
        check=True, capture_output=True, text=True).stdout
    times = [float(m) for m in re.findall(r"^perf step \d+ ms ([0-9.]+)$",
                                          output, re.M)][1:]
    return statistics.median(times)


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    parser = argparse.ArgumentParser()
    parser.add_argument("--runner", action="append", required=True,
                        help="NAME=PATH of a runner built by remat-runner")
    parser.add_argument("--reps", type=int, default=8)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--competitor", default="no,yes")
    parser.add_argument("-o", "--output")
    args = parser.parse_args(argv)
    runners = []
    for spec in args.runner:
        name, sep, path = spec.partition("=")
        if not sep or not os.access(path, os.X_OK):
            parser.error(f"--runner {spec}: expected NAME=PATH of a program")
        runners.append((name, path))
    threads = [int(t) for t in args.threads.split(",")]
    competitors = [c == "yes" for c in args.competitor.split(",")]
    times = {}
    loads = [os.getloadavg()[0]]
    for _ in range(args.reps):
        for competitor in competitors:
            busy = None
            if competitor:
                busy = subprocess.Popen(
                    [sys.executable, "-c", "while True: pass"])
            try:
                for name, path in runners:
                    for t in threads:
                        times.setdefault((name, t, competitor), []).append(
                            step_ms(path, args.steps, t, extra))
            finally:
                if busy:
                    busy.kill()
                    busy.wait()
            loads.append(os.getloadavg()[0])

    lines = ["| runner | threads | busy process beside | min ms | median ms | "
             "max ms | scaling (1-thread median / median) |",
             "|---|---:|---|---:|---:|---:|---:|"]
    for name, _ in runners:
        for competitor in competitors:
            one = times.get((name, 1, competitor))
            for t in threads:
                values = times[(name, t, competitor)]
                median = statistics.median(values)
                scaling = f"{statistics.median(one) / median:.2f}" if one \
                    else "-"
                lines.append(f"| {name} | {t} | "
                             f"{'yes' if competitor else 'no'} | "
                             f"{min(values):.2f} | {median:.2f} | "
                             f"{max(values):.2f} | {scaling} |")
    lines.append("")
    lines.append(f"{args.reps} fresh processes per row, {args.steps} timed "
                 f"steps each (median). Load average (1 min) during the "
                 f"run: {min(loads):.1f} to {max(loads):.1f} on "
                 f"{os.cpu_count()} cores.")
    table = "\n".join(lines)
    print(table)
    if args.output:
        with open(args.output, "w") as f:
            f.write(table + "\n")


if __name__ == "__main__":
    main()
