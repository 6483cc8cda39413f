"""The time of a `./workbook check` run per test group (CTest label), read from what the run
itself wrote: CTest's log of each of the check's two runs (check.py keeps a copy of each
LastTest.log) for each test's time and verdict, and
`ctest --show-only=json-v1` for each test's labels (the log does not carry them). Used for
docs/results/check-times.md (issue 36, item 5), so that the table there comes from a real run
and the lead can redo it on a quiet machine with one command (from tools/):

    python3 -m halo.dev.check_times ../build/check

A test carries several labels (a red-team test is `project`, `trust` and `redteam`), so the
label rows overlap; the "all tests" row is the sum of every test once."""
import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Optional

from ..core import ctest_log


class LogError(ValueError):
    pass


def read_log(text: str) -> tuple:
    """(tests, run) from a LastTest.log: tests maps name -> (seconds, CTest's verdict word); run
    holds when the run began and ended. An entry with no time is an error naming its line, never a
    silent zero."""
    tests = {}
    for entry in ctest_log.entries(text):
        if entry["seconds"] is None:
            raise LogError(f"line {entry['line']}: test {entry['name']!r} has no 'Test time' line")
        tests[entry["name"]] = (entry["seconds"], entry["status"])
    return tests, ctest_log.stamps(text)


def read_labels(show_only_json: str) -> dict:
    """name -> labels, from `ctest --show-only=json-v1`."""
    labels = {}
    for test in json.loads(show_only_json).get("tests", []):
        values = [p.get("value", []) for p in test.get("properties", []) if p.get("name") == "LABELS"]
        labels[test["name"]] = list(values[0]) if values else []
    return labels


def per_label(tests: dict, labels: dict) -> list:
    """[(label, count, seconds)], slowest first; a test with no label counts under '(none)'."""
    sums = {}
    for name, (seconds, _) in tests.items():
        for label in labels.get(name) or ["(none)"]:
            count, total = sums.get(label, (0, 0.0))
            sums[label] = (count + 1, total + seconds)
    return sorted(((k, c, s) for k, (c, s) in sums.items()), key=lambda row: (-row[2], row[0]))


def table(tests: dict, labels: dict, run: dict, slowest: int = 12) -> str:
    total = sum(s for s, _ in tests.values())
    lines = [f"CTest run: {run.get('start', '?')} to {run.get('end', '?')}; {len(tests)} tests, "
             f"{total:.0f} s of test time in all", "",
             "| label | tests | test time (s) |", "|---|---:|---:|"]
    lines += [f"| {label} | {count} | {seconds:.0f} |" for label, count, seconds in per_label(tests, labels)]
    lines.append(f"| all tests | {len(tests)} | {total:.0f} |")
    lines += ["", f"The {slowest} slowest tests:", "", "| test | time (s) | verdict |", "|---|---:|---|"]
    ranked = sorted(tests.items(), key=lambda item: -item[1][0])[:slowest]
    lines += [f"| {name} | {seconds:.0f} | {verdict} |" for name, (seconds, verdict) in ranked]
    return "\n".join(lines) + "\n"


def _labels_of(build: Path, labels_json: Optional[Path]) -> dict:
    if labels_json:
        return read_labels(labels_json.read_text())
    p = subprocess.run(["ctest", "--show-only=json-v1", "--test-dir", str(build)], capture_output=True, text=True)
    if p.returncode != 0:
        raise LogError(f"ctest --show-only=json-v1 in {build} failed: {p.stderr.strip()}")
    return read_labels(p.stdout)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m halo.dev.check_times", description=__doc__.splitlines()[0])
    ap.add_argument("build", type=Path, help="the CTest build folder (build/check)")
    ap.add_argument("--log", type=Path, help="default: the logs ./workbook check kept of its two CTest runs, or else "
                                             "BUILD/Testing/Temporary/LastTest.log")
    ap.add_argument("--labels-json", type=Path, help="the output of ctest --show-only=json-v1 (default: run it)")
    args = ap.parse_args(argv)
    logs = [args.log] if args.log else default_logs(args.build)
    tests, runs = {}, []
    try:
        for log in logs:
            more, run = read_log(log.read_text(errors="replace"))
            tests.update(more)
            runs.append(run)
        span = {"start": runs[0].get("start", "?"), "end": runs[-1].get("end", "?")}
        print(table(tests, _labels_of(args.build, args.labels_json), span), end="")
    except (OSError, LogError, json.JSONDecodeError) as e:
        print(f"halo check_times: {log}: {e}", file=sys.stderr)
        return 2
    return 0


def default_logs(build: Path) -> list:
    """The logs `./workbook check` kept of its two CTest runs (check.RUNS), or else CTest's last."""
    from .check import RUNS, kept_log
    kept = [kept_log(build, run) for run in RUNS]
    if all(p.is_file() for p in kept):
        return kept
    return [build / "Testing" / "Temporary" / "LastTest.log"]


if __name__ == "__main__":
    sys.exit(main())
