#!/usr/bin/env python3
"""Sums JUnit XML results (lit, gtest, pytest) into 'N passed, N failed'.

Skipped and unsupported tests count as neither. Exits 1 if anything failed or
no test ran at all.

    summarize-tests.py RESULT.xml...
        prints one line per file and the total line.
    summarize-tests.py --exit NAME STATUS RESULT.xml OUT.xml
        records a test program's non-zero exit status: when STATUS is not 0
        and RESULT.xml (the program's own results) is missing, unreadable or
        holds no failure, writes OUT.xml with one failing test case naming the
        program and the status. A program can fail after its last test passed
        (a LeakSanitizer report at exit, a crash in a static destructor) or
        before it wrote anything; without this the total would say 0 failed.
"""
import sys
import xml.etree.ElementTree as ET
from xml.sax.saxutils import quoteattr


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


def record_exit(name, status, result, out):
    if int(status) == 0:
        return 0
    try:
        _, failed, _ = count(result)
    except (ET.ParseError, OSError):
        failed = 0
    if failed:
        return 0
    message = f"{name} exited with status {status} and no failing test recorded"
    with open(out, "w") as f:
        f.write(f"<testsuites><testsuite name={quoteattr(name)}>"
                f"<testcase name={quoteattr(name + ' exit status')}>"
                f"<failure message={quoteattr(message)}/>"
                f"</testcase></testsuite></testsuites>\n")
    print(message)
    return 0


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
    if len(sys.argv) > 1 and sys.argv[1] == "--exit":
        if len(sys.argv) != 6:
            sys.exit("usage: summarize-tests.py --exit NAME STATUS RESULT.xml OUT.xml")
        sys.exit(record_exit(*sys.argv[2:]))
    sys.exit(main(sys.argv[1:]))
