"""The unit suite's CTest entries (one per group of tests/suite_groups.py) run every test that
`unittest discover` finds, each in exactly one entry: a new module cannot be left out of
`./workbook check`, nor run twice; and a test that leaves os.environ changed fails the group."""
import io
import os
import re
import unittest
from unittest import mock

from tests import suite_groups
from tests.environment_guard import EnvironmentGuard
from tests.helpers import REPO_ROOT

CMAKE = REPO_ROOT / "grader" / "cmake" / "HaloSections.cmake"


def registered_groups(text: str) -> list[str]:
    """The groups HaloSections.cmake makes a CTest entry of (its HALO_UNIT_TEST_GROUPS)."""
    found = re.findall(r"^\s*set\(HALO_UNIT_TEST_GROUPS\s+([^)]*)\)", text, re.M)
    if len(found) != 1:
        raise ValueError(f"{CMAKE.name}: expected one set(HALO_UNIT_TEST_GROUPS ...), found {len(found)}")
    return found[0].split()


def test_ids(suite) -> list[str]:
    out = []
    for item in suite:
        out += test_ids(item) if isinstance(item, unittest.TestSuite) else [item.id()]
    return out


def coverage_problems(groups) -> list[str]:
    """What keeps the groups from running every discovered test exactly once."""
    loader = unittest.TestLoader()
    discovered = test_ids(loader.discover(str(suite_groups.TESTS), pattern=suite_groups.PATTERN,
                                          top_level_dir=str(suite_groups.TESTS.parent)))
    runs = {}
    for group in groups:
        names = [f"tests.{m}" for m in suite_groups.modules(group)]
        for test in test_ids(loader.loadTestsFromNames(names)):
            runs.setdefault(test, []).append(group)
    problems = [f"{t}: in no group" for t in discovered if t not in runs]
    problems += [f"{t}: in {len(g)} groups ({', '.join(g)})" for t, g in runs.items() if len(g) > 1]
    problems += [f"{t}: not a test discover finds" for t in runs if t not in set(discovered)]
    return problems


class SuiteGroups(unittest.TestCase):
    def test_cmake_registers_every_group(self):
        self.assertEqual(sorted(registered_groups(CMAKE.read_text())), sorted(suite_groups.GROUPS))

    def test_the_groups_run_every_discovered_test_once(self):
        problems = coverage_problems(registered_groups(CMAKE.read_text()))
        self.assertEqual(problems, [])

    def test_a_module_left_out_or_run_twice_is_found(self):
        registered = registered_groups(CMAKE.read_text())
        without_rest = [g for g in registered if g != suite_groups.REST]
        left_out = coverage_problems(without_rest)
        self.assertTrue(any(p.startswith("tests.test_suite_groups.") and p.endswith("in no group") for p in left_out))
        twice = coverage_problems(registered + [suite_groups.REST])
        self.assertTrue(any("in 2 groups" in p for p in twice))

    def test_an_unknown_group_or_module_is_an_error(self):
        with self.assertRaises(KeyError):
            suite_groups.modules("no-such-group")
        saved = dict(suite_groups.GROUPS)
        self.addCleanup(lambda: (suite_groups.GROUPS.clear(), suite_groups.GROUPS.update(saved)))
        suite_groups.GROUPS["typo"] = ("test_no_such_module",)
        with self.assertRaisesRegex(KeyError, "test_no_such_module"):
            suite_groups.modules("typo")

    def test_a_cmake_file_without_the_list_is_refused(self):
        with self.assertRaisesRegex(ValueError, "HALO_UNIT_TEST_GROUPS"):
            registered_groups("add_test(NAME x COMMAND y)\n")


if __name__ == "__main__":
    unittest.main()


class EnvironmentGuardTest(unittest.TestCase):
    """The groups' result class fails a test that leaves os.environ changed, by the variable's
    name, and puts the environment back for the tests after it."""

    def run_cases(self, *cases):
        suite = unittest.TestSuite(cases)
        return unittest.TextTestRunner(stream=io.StringIO(), resultclass=EnvironmentGuard).run(suite)

    def test_a_leaked_variable_fails_its_test_and_is_undone(self):
        class Leaky(unittest.TestCase):
            def test_sets(self):
                os.environ["HALO_GUARD_PROBE"] = "a secret value"

            def test_after(self):
                self.assertNotIn("HALO_GUARD_PROBE", os.environ)

        with mock.patch.dict(os.environ):
            os.environ.pop("HALO_GUARD_PROBE", None)
            result = self.run_cases(Leaky("test_sets"), Leaky("test_after"))
            self.assertNotIn("HALO_GUARD_PROBE", os.environ)
        self.assertEqual(len(result.errors), 1, result.errors)
        failed, text = result.errors[0]
        self.assertEqual(failed.id().rsplit(".", 1)[-1], "test_sets")
        self.assertIn("HALO_GUARD_PROBE set", text)
        self.assertNotIn("a secret value", text)
        self.assertEqual(result.failures, [])

    def test_a_test_that_restores_what_it_changes_passes(self):
        class Tidy(unittest.TestCase):
            def test_patched(self):
                with mock.patch.dict(os.environ, {"HALO_GUARD_PROBE": "x"}):
                    pass

        self.assertTrue(self.run_cases(Tidy("test_patched")).wasSuccessful())
