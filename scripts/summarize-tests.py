#!/usr/bin/env python3
"""Sums JUnit XML results (lit, gtest, pytest) into 'N passed, N failed'.

Skipped and unsupported tests count as neither. Exits 1 if anything failed or
no test ran at all.
"""
import sys
import xml.etree.ElementTree as ET


def count(path):
    passed = failed = skipped = 0
    root = ET.parse(path).getroot()
    for case in root.iter("testcase"):
        tags = {child.tag for child in case}
        if "failure" in tags or "error" in tags:
            failed += 1
        elif "skipped" in tags or case.get("status") == "notrun":
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped


def main(paths):
    total_p = total_f = total_s = 0
    for path in paths:
        try:
            p, f, s = count(path)
        except (ET.ParseError, OSError) as e:
            print(f"{path}: unreadable results ({e})")
            p, f, s = 0, 1, 0
        print(f"{path.rsplit('/', 1)[-1]}: {p} passed, {f} failed, {s} skipped")
        total_p += p
        total_f += f
        total_s += s
    if total_s:
        print(f"({total_s} skipped or unsupported)")
    print(f"{total_p} passed, {total_f} failed")
    return 1 if total_f or total_p == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
