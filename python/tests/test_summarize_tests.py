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
