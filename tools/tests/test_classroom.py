"""GitHub Classroom's autograding workflow, generated from the manifest."""
import re
import unittest

from halo.chapter_data import load_chapter
from halo.export_classroom import COMMAND_GRADER, REPORTER, apt_packages, step_id, workflow

from .helpers import REPO_ROOT

try:
    import yaml
except ImportError:  # PyYAML is not a dependency of Halo; the text checks below still run
    yaml = None


class ClassroomWorkflow(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)
        cls.text = workflow(cls.chapter)

    def graded(self):
        return [s for s in self.chapter.sections if sum(s.points.values())]

    def test_one_grading_step_per_section_worth_its_points(self):
        steps = re.findall(r"id: (\S+)\n      uses: (\S+)\n      with:\n(?:        .*\n)*?        command: (.*)\n"
                           r"        timeout: \d+\n        max-score: (\S+)\n", self.text)
        self.assertEqual([(sid, uses, cmd, float(score)) for sid, uses, cmd, score in steps],
                         [(step_id(s), COMMAND_GRADER, f'"./workbook grade {s.id}"', float(sum(s.points.values())))
                          for s in self.graded()])

    def test_the_reporter_reads_every_step(self):
        runners = re.search(r"runners: (\S+)", self.text).group(1).split(",")
        self.assertEqual(runners, [step_id(s) for s in self.graded()])
        for s in self.graded():
            self.assertIn(f'{step_id(s).upper()}_RESULTS: "${{{{steps.{step_id(s)}.outputs.result}}}}"', self.text)
        self.assertIn(f"uses: {REPORTER}", self.text)

    def test_step_ids_are_what_github_accepts(self):
        for s in self.chapter.sections:
            self.assertRegex(step_id(s), r"^[A-Za-z_][A-Za-z0-9_-]*$")

    def test_classroom_names_and_the_toolchain(self):
        self.assertIn("name: Autograding Tests\n", self.text)
        self.assertIn("  run-autograding-tests:\n", self.text)
        self.assertIn("'on':", self.text)  # a bare on: is the boolean true in YAML 1.1
        self.assertIn(" ".join(apt_packages()), self.text)
        self.assertIn("clang", apt_packages())

    @unittest.skipIf(yaml is None, "PyYAML is not installed")
    def test_it_is_yaml_with_the_structure_classroom_expects(self):
        doc = yaml.safe_load(self.text)
        self.assertEqual(doc["name"], "Autograding Tests")
        self.assertEqual(doc["on"], ["push", "repository_dispatch"])
        steps = doc["jobs"]["run-autograding-tests"]["steps"]
        grading = [st for st in steps if st.get("uses") == COMMAND_GRADER]
        self.assertEqual(sum(st["with"]["max-score"] for st in grading),
                         sum(sum(s.points.values()) for s in self.chapter.sections))
        reporter = steps[-1]
        self.assertEqual(reporter["uses"], REPORTER)
        self.assertEqual(sorted(reporter["env"]), sorted(f"{st['id'].upper()}_RESULTS" for st in grading))


if __name__ == "__main__":
    unittest.main()
