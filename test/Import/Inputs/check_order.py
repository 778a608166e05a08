"""Compares two --remat-compare-strategies JSON reports of the same graphs,
the second in a shuffled op order (remat-import --shuffle).

usage: check_order.py MODE original.json shuffled.json
MODE interleave: every strategy that planned the original plans the shuffled
  graph, with the same or a smaller least peak.
MODE topological: every strategy that planned the original still plans.
Prints one 'ok' line per function, or 'FAIL' lines (exit 1).
"""
import json
import sys


def least_peaks(report):
    result = {}
    for func in report:
        peaks = {}
        for plan in func["plans"]:
            s, p = plan["strategy"], plan["peak_activation_bytes"]
            peaks[s] = min(p, peaks.get(s, p))
        result[func["function"]] = peaks
    return result


def main():
    mode, original, shuffled = sys.argv[1:4]
    base = least_peaks(json.load(open(original)))
    new = least_peaks(json.load(open(shuffled)))
    failed = False
    for func, peaks in base.items():
        worse = []
        for strategy, peak in sorted(peaks.items()):
            if strategy not in new.get(func, {}):
                print(f"FAIL: {func}: {strategy} no longer plans")
                failed = True
            elif mode == "interleave" and new[func][strategy] > peak:
                print(f"FAIL: {func}: {strategy} peak {new[func][strategy]} "
                      f"> {peak}")
                failed = True
            elif new[func][strategy] > peak:
                worse.append(strategy)
        print(f"ok: {func}: {len(peaks)} strategies plan"
              + (f", {len(worse)} with a larger peak" if mode != "interleave"
                 else ""))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
