"""CTest's Testing/Temporary/LastTest.log, read in one place: the student's `ctest` summary
(halo.student.ctest_hooks) takes each test's output and verdict from it, the suite's timing
table (halo.dev.check_times) each test's time. One pattern, so the two never read the log apart."""
import re

# A test's entry: "N/M Test: NAME", its output between "Output:" and "<end of output>", then
# "Test time = S sec" on the next line and, a few lines on, "Test Passed." (or Failed, ...).
_BLOCK = re.compile(r"^\d+/\d+ Test: (?P<name>.*?)\n.*?^Output:\n-+\n(?P<output>.*?)<end of output>\n"
                    r"(?:Test time =\s*(?P<seconds>[0-9.]+) sec\n)?"
                    r".*?^Test (?P<status>Passed|Failed|Skipped|Not Run)", re.M | re.S)
_STAMP = re.compile(r"^(?P<which>Start|End) testing: (?P<when>.*)$", re.M)


def entries(text: str) -> list:
    """[{name, output, seconds (None where the entry has no time), status, line}] in the log's
    order; `status` is CTest's word (Passed, Failed, Skipped, Not Run), `line` the entry's first."""
    return [{"name": m["name"], "output": m["output"], "status": m["status"], "line": text.count("\n", 0, m.start()) + 1,
             "seconds": float(m["seconds"]) if m["seconds"] is not None else None}
            for m in _BLOCK.finditer(text)]


def stamps(text: str) -> dict:
    """{"start": ..., "end": ...}: when the run began and ended, as CTest wrote them."""
    return {m["which"].lower(): m["when"] for m in _STAMP.finditer(text)}
