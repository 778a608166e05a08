"""scripts/summarize-tests.py: the CI's 'N passed, N failed' line."""
import pathlib
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "summarize-tests.py"

PASSING = ('<testsuites><testsuite name="s"><testcase name="a"/>'
           '<testcase name="b"/></testsuite></testsuites>')
FAILING = ('<testsuites><testsuite name="s"><testcase name="a"/>'
           '<testcase name="b"><failure message="x"/></testcase>'
           '</testsuite></testsuites>')


def summarize(*paths):
    out = subprocess.run([sys.executable, str(SCRIPT), *map(str, paths)],
                         capture_output=True, text=True)
    return out.returncode, out.stdout.strip().splitlines()[-1]


def record_exit(name, status, result, out):
    return subprocess.run([sys.executable, str(SCRIPT), "--exit", name,
                           str(status), str(result), str(out)],
                          capture_output=True, text=True, check=True)


def test_abort_after_passing_tests_counts_as_a_failure(tmp_path):
    # LeakSanitizer aborts at exit after gtest wrote an all-passing XML.
    result = tmp_path / "T.xml"
    result.write_text(PASSING)
    record_exit("T", 134, result, tmp_path / "exit-T.xml")
    assert summarize(result, tmp_path / "exit-T.xml") == (1, "2 passed, 1 failed")
    assert "T exited with status 134" in (tmp_path / "exit-T.xml").read_text()


def test_crash_before_any_result_counts_as_a_failure(tmp_path):
    record_exit("T", 139, tmp_path / "missing.xml", tmp_path / "exit-T.xml")
    assert summarize(tmp_path / "exit-T.xml") == (1, "0 passed, 1 failed")


def test_failing_tests_are_not_counted_twice(tmp_path):
    result = tmp_path / "T.xml"
    result.write_text(FAILING)
    record_exit("T", 1, result, tmp_path / "exit-T.xml")
    assert not (tmp_path / "exit-T.xml").exists()
    assert summarize(result) == (1, "1 passed, 1 failed")


def test_clean_exit_records_nothing(tmp_path):
    result = tmp_path / "T.xml"
    result.write_text(PASSING)
    record_exit("T", 0, result, tmp_path / "exit-T.xml")
    assert not (tmp_path / "exit-T.xml").exists()
    assert summarize(result) == (0, "2 passed, 0 failed")


LISTING = """Running main() from ./googletest/src/gtest_main.cc
S.
  a
  b
P/T.
  c/0  # GetParam() = 4
"""


def shard(path, *tests):
    cases = "".join(f'<testcase classname="{t.rsplit(".", 1)[0]}" '
                    f'name="{t.rsplit(".", 1)[1]}"/>' for t in tests)
    path.write_text(f"<testsuites><testsuite>{cases}</testsuite></testsuites>")
    return path


def check_shards(tmp_path, *shards, listing_text=LISTING):
    listing = tmp_path / "T.tests"
    listing.write_text(listing_text)
    out = tmp_path / "shards-T.xml"
    subprocess.run([sys.executable, str(SCRIPT), "--shards", "T", str(listing),
                    str(out), *map(str, shards)],
                   capture_output=True, text=True, check=True)
    return out


def test_shards_that_run_every_listed_test_once_record_nothing(tmp_path):
    out = check_shards(tmp_path, shard(tmp_path / "0.xml", "S.a", "P/T.c/0"),
                       shard(tmp_path / "1.xml", "S.b"))
    assert not out.exists()


def test_a_test_in_no_shard_counts_as_a_failure(tmp_path):
    # A shard that crashed before writing its results, or sharding that
    # skipped a test: the listed test is in no shard's results.
    first = shard(tmp_path / "0.xml", "S.a", "P/T.c/0")
    out = check_shards(tmp_path, first, tmp_path / "missing.xml")
    assert summarize(first, out) == (1, "2 passed, 1 failed")
    assert "1 tests in no shard's results (S.b)" in out.read_text()


def test_a_test_in_two_shards_counts_as_a_failure(tmp_path):
    # Shards that each ran everything (GTEST_TOTAL_SHARDS not honoured).
    out = check_shards(tmp_path,
                       shard(tmp_path / "0.xml", "S.a", "S.b", "P/T.c/0"),
                       shard(tmp_path / "1.xml", "S.a", "S.b", "P/T.c/0"))
    assert summarize(out) == (1, "0 passed, 1 failed")
    assert "3 tests in more than one shard's results" in out.read_text()


def test_an_unlisted_test_counts_as_a_failure(tmp_path):
    out = check_shards(tmp_path,
                       shard(tmp_path / "0.xml", "S.a", "S.b", "P/T.c/0"),
                       shard(tmp_path / "1.xml", "S.z"))
    assert "1 tests not listed (S.z)" in out.read_text()


def test_typed_suites_and_disabled_tests_are_listed(tmp_path):
    # gtest lists a typed suite as 'Y/0.  # TypeParam = int': its tests are
    # listed tests, not "not listed" ones; a DISABLED_ test is listed too
    # and is reported (skipped) by the shard that owns it.
    typed = LISTING + "Y/0.  # TypeParam = int\n  d\n  DISABLED_e\n"
    out = check_shards(tmp_path,
                       shard(tmp_path / "0.xml", "S.a", "P/T.c/0", "Y/0.d"),
                       shard(tmp_path / "1.xml", "S.b", "Y/0.DISABLED_e"),
                       listing_text=typed)
    assert not out.exists()
