"""Points exactly as stated (issue 34, item 7): exact shares, one rounding of the total, and
every row a student sees adding up to the total shown (core/cents.py, core/points.py)."""
import random
import unittest
from fractions import Fraction
from types import SimpleNamespace

from halo.core import cents, points
from halo.course import gradebook
from halo.course.export_classroom import classroom_result
from halo.course.export_gradescope import to_gradescope, validate

from .helpers import result_test, section_result

QUESTIONS = ("a", "b", "c")


class OneSection:
    """7.2 with 15 CPU tests (10 points) and 3 questions (5 points)."""

    def __init__(self):
        self.sections = [SimpleNamespace(id="7.2", slug="basic-1d", title="Basic", folder="7.2-basic-1d",
                                         kernels=["basic.cu"], points={"tests": 10, "answers": 5},
                                         visibility="visible")]

    def questions(self, sid):
        return [SimpleNamespace(id=q) for q in QUESTIONS]

    def section(self, sid):
        return self.sections[0]


def _results(failed_tests, wrong_questions):
    tests = [result_test(f"7.2 basic-1d / correct / t{k:02d}", "failed" if k < failed_tests else "passed")
             for k in range(15)]
    tests += [result_test(f"7.2 basic-1d / answers / {q}", "failed" if q in wrong_questions else "passed")
              for q in QUESTIONS]
    return {"version": 1, "seed": "1", "tests": tests, "sections": {"7.2": section_result()}}


class IssueExample(unittest.TestCase):
    def test_ten_of_fifteen_tests_and_two_of_three_answers_is_ten_points(self):
        # 10 x 10/15 + 2 x 5/3 = 10 exactly. Shares of 0.67 and 0.66 taken as they fall gave 6.65 +
        # 3.33 = 9.98 here: the odd hundredths of the failed tests were lost.
        chapter = OneSection()
        res = _results(failed_tests=5, wrong_questions=("a",))
        assignment = SimpleNamespace(sections=chapter.sections)
        self.assertEqual(gradebook.scores(res, chapter, assignment), {"7.2": (10.0, 15.0)})
        doc = to_gradescope(res, chapter, sections=chapter.sections)
        self.assertEqual(validate(doc), [])
        self.assertEqual(doc["score"], 10.0)
        self.assertEqual(round(sum(t["score"] for t in doc["tests"]), 2), 10.0)
        self.assertEqual(round(sum(t["max_score"] for t in doc["tests"]), 2), 15.0)

    def test_every_passing_test_shows_its_whole_share(self):
        chapter = OneSection()
        doc = to_gradescope(_results(failed_tests=4, wrong_questions=()), chapter, sections=chapter.sections)
        self.assertEqual(validate(doc), [])  # strict: a passed test scores its max_score
        self.assertEqual(doc["score"], 12.33)  # 11 x 10/15 + 5 = 12.333...


class TwoSections:
    """7.2 and 7.4, each 1 point over 8 CPU tests: one passed test is 1/8 = 0.125 points."""

    def __init__(self):
        self.sections = [SimpleNamespace(id=sid, slug=slug, title=slug, folder=f"{sid}-{slug}", kernels=["k.cu"],
                                         points={"tests": 1}, visibility="visible")
                         for sid, slug in (("7.2", "basic-1d"), ("7.4", "tiled-1d"))]

    def questions(self, sid):
        return []

    def section(self, sid):
        return next(s for s in self.sections if s.id == sid)


class EveryPlatformAddsUp(unittest.TestCase):
    def test_classroom_steps_add_up_to_the_gradebook_total(self):
        # 0.125 + 0.125 = 0.25: rounded per step, each would be 0.13 and Classroom would record 0.26.
        chapter = TwoSections()
        tests = [result_test(f"{s.id} {s.slug} / correct / t{k}", "passed" if k == 0 else "failed")
                 for s in chapter.sections for k in range(8)]
        res = {"version": 1, "seed": "1", "tests": tests,
               "sections": {s.id: section_result() for s in chapter.sections}}
        total = gradebook.scores(res, chapter, SimpleNamespace(sections=chapter.sections))
        self.assertEqual(round(sum(got for got, _ in total.values()), 2), 0.25)
        steps = [classroom_result(res, chapter, chapter.sections, only={s.id}) for s in chapter.sections]
        self.assertEqual(round(sum(t["score"] for step in steps for t in step["tests"]), 2), 0.25)
        self.assertEqual([round(sum(t["score"] for t in step["tests"]), 2) for step in steps],
                         [total[s.id][0] for s in chapter.sections])


class RoundingRule(unittest.TestCase):
    def test_half_up(self):
        self.assertEqual([cents.half_up(Fraction(n, 2)) for n in (1, 3, 5)], [1, 2, 3])
        self.assertEqual(cents.half_up(Fraction(2, 3)), 1)
        self.assertEqual(cents.half_up(Fraction(1, 3)), 0)

    def test_apportion_adds_up_and_rounds_each_share_down_or_up(self):
        shares = [Fraction(2000, 3), Fraction(1000, 3)]
        self.assertEqual(cents.apportion(1000, shares), [667, 333])

    def test_random_classes_keep_every_promise(self):
        # A fixed seed: the same 800 made-up students every run.
        rng = random.Random(34)
        for case in range(800):
            sections = []
            for _ in range(rng.randint(1, 4)):
                tests = []
                for kind, points_worth in (("correct", rng.choice([0, 3, 7, 10, 7.5, 12])),
                                           ("answers", rng.choice([0, 1, 2, 5, 4.5]))):
                    n = rng.randint(1, 17)
                    for _ in range(n if points_worth else 0):
                        earned = rng.choice([1, 1, 0, Fraction(1, 2)])
                        status = {1: points.PASSED, 0: points.FAILED}.get(earned, points.PARTIAL)
                        tests.append(points.Scored("t", cents.exact(points_worth) / n, Fraction(earned), status, "",
                                                   kind))
                sections.append(tests)
            points.settle(sections)
            exact_total = sum((t.worth * t.earned for s in sections for t in s), Fraction(0))
            shown_total = sum(round(t.score * 100) for s in sections for t in s)
            with self.subTest(case=case):
                self.assertEqual(shown_total, cents.half_up(exact_total * 100))
                for s in sections:
                    exact_section = sum((t.worth * t.earned * 100 for t in s), Fraction(0))
                    self.assertLess(abs(sum(round(t.score * 100) for t in s) - exact_section), 1)
                    self.assertEqual(sum(round(t.max_score * 100) for t in s),
                                     cents.half_up(sum((t.worth * 100 for t in s), Fraction(0))))
                    for t in s:
                        self.assertLessEqual(t.score, t.max_score)
                        self.assertLess(abs(Fraction(round(t.max_score * 100)) - t.worth * 100), 1)
                        if t.status == points.PASSED:
                            self.assertEqual(t.score, t.max_score)
                        if t.status == points.FAILED:
                            self.assertEqual(t.score, 0)


if __name__ == "__main__":
    unittest.main()
