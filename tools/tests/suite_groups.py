"""The tools' unit suite cut into groups, each its own CTest entry, so that `ctest -j2` runs the
slow ones beside the rest (grader/cmake/HaloSections.cmake registers one test per name of
GROUPS; tests/test_suite_groups.py proves that every test module runs in exactly one of them).
From tools/:

    python3 -m tests.suite_groups GROUP [--times]

runs one group (`all` runs every module, as `python3 -m unittest discover -s tests -t .` does);
--times prints each module's and the slowest tests' times (tests/timed_result.py)."""
from __future__ import annotations

import argparse
import sys
import unittest
from pathlib import Path

TESTS = Path(__file__).resolve().parent
PATTERN = "test*.py"  # unittest discover's

# Group name -> its modules; REST takes every module no group names, so that a new module runs
# without anyone adding it here.
REST = "rest"
GROUPS = {
    "ir-corpus": ("test_ir_agreement",),
    "handouts": ("test_handout",),
    REST: (),
}


def all_modules() -> list[str]:
    """Every test module, as `unittest discover` finds them."""
    return sorted(p.stem for p in TESTS.glob(PATTERN) if p.is_file())


def modules(group: str) -> list[str]:
    """The modules of one group (`all`: every one); an unknown group or module is an error."""
    every = all_modules()
    if group == "all":
        return every
    if group not in GROUPS:
        raise KeyError(f"no group {group!r}; the groups are {', '.join(GROUPS)} and all")
    if group == REST:
        named = {m for g in GROUPS.values() for m in g}
        return [m for m in every if m not in named]
    missing = [m for m in GROUPS[group] if m not in every]
    if missing:
        raise KeyError(f"group {group!r} names {', '.join(missing)}, which is not a test module of {TESTS}")
    return list(GROUPS[group])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m tests.suite_groups", description=__doc__.split("\n\n")[0])
    p.add_argument("group", help=f"one of {', '.join(GROUPS)}, or all")
    p.add_argument("--times", action="store_true", help="print each module's time and the slowest tests'")
    args = p.parse_args(argv)
    try:
        names = modules(args.group)
    except KeyError as e:
        print(e.args[0], file=sys.stderr)
        return 2
    suite = unittest.defaultTestLoader.loadTestsFromNames([f"tests.{m}" for m in names])
    if suite.countTestCases() == 0:  # a group that runs nothing would pass for nothing
        print(f"group {args.group!r} holds no test", file=sys.stderr)
        return 2
    print(f"unit tests, group {args.group}: {len(names)} modules", flush=True)
    if args.times:
        from tests.timed_result import TimedResult
        runner = unittest.TextTestRunner(resultclass=TimedResult)
    else:  # a test that leaves os.environ changed fails, and the tests after it run as they would alone
        from tests.environment_guard import EnvironmentGuard
        runner = unittest.TextTestRunner(resultclass=EnvironmentGuard)
    result = runner.run(suite)
    if args.times:
        print(result.report(), flush=True)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
