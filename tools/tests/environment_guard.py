"""A unittest result that fails a test which leaves os.environ changed, and puts it back.

The unit suite runs every module of a group in one process, so a variable one test sets and
never restores reaches every test after it: a grade_class.run() with a course sets
HALO_COURSE_SECRET for its own grades, a test that called it without mock.patch.dict(os.environ)
left the secret behind, and a later test that reads the secret from the environment failed, far
from the cause (in CTest, only when the group ran in that order). Each test is compared with the
environment it started with; a difference is that test's error, naming the variables (never their
values: they may be secrets), and the environment is restored so that the tests after it run as
they would alone."""
from __future__ import annotations

import os
import sys
import unittest


class EnvironmentChanged(AssertionError):
    """A test left os.environ other than it found it."""


def differences(before: dict, after: dict) -> list[str]:
    """Which variables were set, changed or removed, by name, sorted."""
    names = sorted(set(before) | set(after))
    said = []
    for name in names:
        if name not in before:
            said.append(f"{name} set")
        elif name not in after:
            said.append(f"{name} removed")
        elif before[name] != after[name]:
            said.append(f"{name} changed")
    return said


class EnvironmentGuard(unittest.TextTestResult):
    def startTest(self, test):
        self._environment = dict(os.environ)
        super().startTest(test)

    def stopTest(self, test):
        before = getattr(self, "_environment", None)
        if before is not None:
            changed = differences(before, dict(os.environ))
            if changed:
                os.environ.clear()
                os.environ.update(before)
                try:
                    raise EnvironmentChanged("the test left os.environ changed (" + ", ".join(changed)
                                             + "): use mock.patch.dict(os.environ) or restore it")
                except EnvironmentChanged:
                    self.addError(test, sys.exc_info())
        super().stopTest(test)
