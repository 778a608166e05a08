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
    summarize-tests.py --shards NAME LIST.txt OUT.xml SHARD.xml...
        checks that the shards of a gtest program (GTEST_TOTAL_SHARDS) ran
        every test it lists (LIST.txt: its --gtest_list_tests output) exactly
        once between them: when a listed test is in no shard's results, in
        more than one, or a shard reports a test that is not listed, writes
        OUT.xml with one failing test case that names them. A shard that
        crashed before writing its results reports none of its tests (its
        exit is recorded by --exit as well).
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


def listed_tests(path):
    """Test names (Suite.Test) in gtest's --gtest_list_tests output."""
    names, suite = [], None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("  ") and suite is not None:
                names.append(suite + line.split("#", 1)[0].strip())
            elif line and not line[0].isspace() and \
                    line.split("#", 1)[0].rstrip().endswith("."):
                # A typed suite's line carries a comment: 'T/0.  # TypeParam = int'.
                suite = line.split("#", 1)[0].rstrip()
            else:
                suite = None
    return names


def check_shards(name, listing, out, shards):
    listed = listed_tests(listing)
    seen = {}
    for path in shards:
        try:
            root = ET.parse(path).getroot()
        except (ET.ParseError, OSError):
            continue
        for case in root.iter("testcase"):
            test = f"{case.get('classname')}.{case.get('name')}"
            seen[test] = seen.get(test, 0) + 1
    wanted = set(listed)
    problems = []
    for what, tests in (
            ("in no shard's results", [t for t in listed if t not in seen]),
            ("in more than one shard's results",
             sorted(t for t, k in seen.items() if k > 1)),
            ("not listed", sorted(t for t in seen if t not in wanted))):
        if tests:
            problems.append(f"{len(tests)} tests {what} ({', '.join(tests[:5])}"
                            f"{', ...' if len(tests) > 5 else ''})")
    if len(listed) != len(wanted):
        problems.append(f"{len(listed) - len(wanted)} tests listed twice")
    if not problems:
        print(f"{name}: {len(listed)} tests, each run once in "
              f"{len(shards)} shards")
        return 0
    message = f"{name} shards: " + "; ".join(problems)
    with open(out, "w") as f:
        f.write(f"<testsuites><testsuite name={quoteattr(name)}>"
                f"<testcase name={quoteattr(name + ' shards')}>"
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
    if len(sys.argv) > 1 and sys.argv[1] == "--shards":
        if len(sys.argv) < 6:
            sys.exit("usage: summarize-tests.py --shards NAME LIST.txt OUT.xml "
                     "SHARD.xml...")
        sys.exit(check_shards(sys.argv[2], sys.argv[3], sys.argv[4],
                              sys.argv[5:]))
    sys.exit(main(sys.argv[1:]))
