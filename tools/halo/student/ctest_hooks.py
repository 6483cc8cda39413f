"""Plain `ctest` in a grade build tells the truth: what CTestCustom.cmake (written at configure,
grader/cmake/CTestCustom.cmake.in) runs before and after the tests.

Before (`internal ctest-before`): rebuild what changed. Without it, `ctest -L 7.2` after an edit
runs the programs of the last build and can report a wrong kernel as passing. A section whose
kernel no longer compiles has its programs removed (as grade does), so that its tests fail
instead of running the last good build; the compiler's first errors are printed. The old load
reports are cleared: the tests write new ones (HALO_REPORT_DIR, a test property in grade builds).

After (`internal ctest-after`): CTest prints no test output unless asked (--output-on-failure),
so this prints each distinct failure with its message (read from Testing/Temporary/LastTest.log,
grouped as grade groups them), the load reports the tests wrote, and the answers tests' count.

`./workbook grade` runs CTest itself, builds before and reports after: it sets DRIVER_ENV, and
both hooks then do nothing. Either hook always exits 0: a hook that fails stops CTest, and the
tests must run and fail on their own.
"""
import os
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

from ..core import build, ctest_log, results

DRIVER_ENV = "HALO_CTEST_DRIVER"
BUILD_FAILURES = "ctest-build-failures.txt"  # sections the last rebuild could not build, one per line


def _targets(chapter):
    for s in chapter.sections:
        if s.kernels:
            sid = s.id.replace(".", "_")
            yield s, [f"judge_{sid}", f"test_{sid}_worker"]


def before(chapter, build_dir, cmake):
    if os.environ.get(DRIVER_ENV):
        return 0
    build_dir = Path(build_dir)
    print("halo: rebuilding what changed before the tests run...", flush=True)
    everything = subprocess.run([cmake, "--build", str(build_dir), "--", "-k", "0", f"-j{build.jobs()}"],
                                capture_output=True, text=True)
    broken = []
    if everything.returncode != 0:
        for s, targets in _targets(chapter):
            failed = build.build_targets(SimpleNamespace(cmake=cmake), build_dir, targets)
            for t in failed:
                (build_dir / "grader" / t).unlink(missing_ok=True)
            if failed:
                broken.append(s.id)
                errors = results.compiler_errors("\n".join(failed.values()))[:12]
                print(f"halo: {s.id} does not compile; its tests will fail:\n" + "\n".join("    " + e for e in errors))
    (build_dir / BUILD_FAILURES).write_text("".join(f"{sid}\n" for sid in broken))
    shutil.rmtree(build_dir / "report", ignore_errors=True)
    (build_dir / "report").mkdir(exist_ok=True)
    return 0


def read_last_test_log(build_dir):
    """[{name, section, kind, status, message}] of the tests of CTest's last run."""
    log = Path(build_dir) / "Testing" / "Temporary" / "LastTest.log"
    if log.with_name("LastTest.log.tmp").is_file():  # while CTest runs (its post-test hook) the log is here
        log = log.with_name("LastTest.log.tmp")
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return []
    tests = []
    for entry in ctest_log.entries(text):
        info = results.parse_name(entry["name"])
        status = {"Passed": "passed", "Failed": "failed"}.get(entry["status"], "skipped")
        tests.append({"name": entry["name"], "section": info["section"], "kind": info["kind"], "status": status,
                      "message": results.failure_message(entry["output"]) if status == "failed" else ""})
    return tests


def after(chapter, build_dir):
    if os.environ.get(DRIVER_ENV):
        return 0
    build_dir = Path(build_dir)
    tests = [t for t in read_last_test_log(build_dir) if t["section"]]
    if not tests:
        return 0
    try:
        broken = set((build_dir / BUILD_FAILURES).read_text().split())
    except OSError:
        broken = set()
    loads = results.read_loads(build_dir / "report")
    sections = {t["section"]: {"build": "ok", "loads": loads.get(t["section"], [])} for t in tests}
    print("\nhalo: what the tests said")
    for sid in sorted(broken & set(sections)):  # the compiler's errors were printed before the tests
        print(f"\n{sid}: the kernel does not compile (the errors are above); every test of it failed")
    results.print_failures({"tests": [t for t in tests if t["section"] not in broken],
                            "sections": {k: v for k, v in sections.items() if k not in broken}})
    for sid in sections:
        answers = [t for t in tests if t["section"] == sid and t["kind"] == "answers"
                   and not t["name"].endswith("the file is well-formed")]
        if answers:
            print(f"{sid} answers: {sum(t['status'] == 'passed' for t in answers)} of {len(answers)} right")
    results.print_load_reports(sections)
    failed = sum(t["status"] == "failed" for t in tests)
    print(f"\n{failed} of {len(tests)} tests failed." if failed else f"\nAll {len(tests)} tests passed.",
          "./workbook grade shows the same, with the points and what to do next.")
    return 0
