"""A unittest result that notes how long each test and each test module took, for finding what is
slow in the tools' unit suite (docs/results/check-times.md). It only measures: no test is
decided by these times.

A test's time is its method with setUp and tearDown; a module's time also holds what ran
between its tests (setUpModule, setUpClass and the class tear-downs), charged to the test that
came next, so that the module times add up to the run's wall time."""
from __future__ import annotations

import time
import unittest

from tests.environment_guard import EnvironmentGuard


def module_of(test) -> str:
    """The test module a test (or a class/module fixture error) belongs to, without `tests.`."""
    name = getattr(test, "__module__", "") or ""
    if type(test).__name__ == "_ErrorHolder":  # a failed setUpModule/setUpClass: "setUpClass (tests.x.C)"
        name = test.description.split("(")[-1].rstrip(")").rsplit(".", 1)[0]
    return name.split(".", 1)[1] if name.startswith("tests.") else name


class TimedResult(EnvironmentGuard):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.tests = {}    # test id -> seconds in the test itself
        self.modules = {}  # module -> seconds, fixtures included
        self._last = time.perf_counter()
        self._start = None

    def startTest(self, test):
        self._start = time.perf_counter()
        module = module_of(test)
        self.modules[module] = self.modules.get(module, 0.0) + self._start - self._last
        super().startTest(test)

    def stopTest(self, test):
        super().stopTest(test)
        now = time.perf_counter()
        seconds = now - (self._start or now)
        self.tests[test.id()] = self.tests.get(test.id(), 0.0) + seconds
        module = module_of(test)
        self.modules[module] = self.modules.get(module, 0.0) + seconds
        self._last = now

    def report(self, slowest: int = 15) -> str:
        """The modules slowest first, then the slowest tests, as Markdown tables."""
        lines = ["| module | s |", "|---|---:|"]
        lines += [f"| {m} | {s:.1f} |" for m, s in sorted(self.modules.items(), key=lambda kv: -kv[1])]
        lines += ["", "| test | s |", "|---|---:|"]
        top = sorted(self.tests.items(), key=lambda kv: -kv[1])[:slowest]
        lines += [f"| {t.removeprefix('tests.')} | {s:.1f} |" for t, s in top]
        total = sum(self.modules.values())
        lines += ["", f"{len(self.tests)} tests, {total:.1f} s from the first test's start to the last one's end"]
        return "\n".join(lines)
