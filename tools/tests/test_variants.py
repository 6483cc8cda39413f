"""Per-student variants: picking the numbers, writing a student's answers file, grading it."""
import contextlib
import io
import os
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from halo import cli
from halo.core import variants
from halo.core.answers import answers_template, check_file, check_question, parse_answers
from halo.core.chapter_data import ChapterError, load_chapter
from halo.core.tomlcompat import loads_toml
from tests.helpers import REPO_ROOT, make_chapter, stubs

SECRET = "course secret for the tests"
TOOLS = Path(__file__).resolve().parents[1]


def varied(chapter):
    return [(s.id, q) for s in chapter.sections for q in chapter.questions(s.id) if q.vary]


class Picking(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)

    def test_enough_questions_vary_in_several_sections(self):
        found = varied(self.chapter)
        self.assertGreaterEqual(len(found), 10)
        self.assertGreaterEqual(len({sid for sid, _ in found}), 3)

    def test_two_students_get_different_parameters(self):
        alice = variants.chapter_params(self.chapter, "alice", SECRET)
        bob = variants.chapter_params(self.chapter, "bob", SECRET)
        self.assertEqual(alice.keys(), bob.keys())
        self.assertNotEqual(alice, bob)
        differing = [key for key in alice if alice[key] != bob[key]]
        self.assertTrue(differing)
        # ... and so a different answer for at least one question
        questions = dict(((sid, q.id), q) for sid, q in varied(self.chapter))
        self.assertTrue(any(
            variants.variant_question(questions[k], "alice", SECRET).expected()
            != variants.variant_question(questions[k], "bob", SECRET).expected() for k in differing))

    def test_a_class_gets_many_variants(self):
        # 40 students: every one's chapter differs from every other's (the picks spread).
        seen = {}
        for k in range(40):
            params = variants.chapter_params(self.chapter, f"student{k:03}", SECRET)
            frozen = tuple(sorted((key, tuple(sorted(p.items()))) for key, p in params.items()))
            self.assertNotIn(frozen, seen, f"student{k:03} has the variant of {seen.get(frozen)}")
            seen[frozen] = f"student{k:03}"

    def test_same_student_same_parameters(self):
        self.assertEqual(variants.chapter_params(self.chapter, "alice", SECRET),
                         variants.chapter_params(self.chapter, "alice", SECRET))
        self.assertEqual(variants.chapter_params(self.chapter, " alice ", SECRET),
                         variants.chapter_params(self.chapter, "alice", SECRET))

    def test_same_parameters_in_other_processes(self):
        mine = repr(sorted(variants.chapter_params(self.chapter, "alice", SECRET).items()))
        code = ("import sys; from pathlib import Path; from halo.core import variants; "
                "from halo.core.chapter_data import load_chapter; "
                "c = load_chapter(Path(sys.argv[1])); "
                "print(repr(sorted(variants.chapter_params(c, 'alice', sys.argv[2]).items())))")
        for hash_seed in ("1", "2", "random"):
            with self.subTest(PYTHONHASHSEED=hash_seed):
                env = {**os.environ, "PYTHONHASHSEED": hash_seed}
                out = subprocess.run([sys.executable, "-c", code, str(REPO_ROOT), SECRET], cwd=TOOLS,
                                     env=env, capture_output=True, text=True, check=True).stdout
                self.assertEqual(out.strip(), mine)

    def test_the_secret_changes_the_parameters(self):
        self.assertNotEqual(variants.chapter_params(self.chapter, "alice", SECRET),
                            variants.chapter_params(self.chapter, "alice", "another course"))
        self.assertNotEqual(variants.chapter_params(self.chapter, "alice", ""),
                            variants.chapter_params(self.chapter, "alice", SECRET))

    def test_picks_come_from_the_choices_and_groups_agree(self):
        for sid, q in varied(self.chapter):
            params = variants.params_for(q, "alice", SECRET)
            self.assertEqual(set(params), set(q.vary))
            for name, value in params.items():
                self.assertIn(value, q.vary[name], f"{sid} {q.id}")
        exercise4 = [q for q in self.chapter.questions("7.1") if q.vary_group == "exercise4"]
        self.assertEqual(len(exercise4), 3)
        picks = [variants.params_for(q, "carol", SECRET) for q in exercise4]
        self.assertTrue(all(p == picks[0] for p in picks), picks)

    def test_with_params_is_a_copy(self):
        q = next(q for q in self.chapter.questions("7.1") if q.id == "exercise4_multiplications_with_ghosts")
        v = q.with_params({"n": 300, "m": 5})
        self.assertEqual(v.expected(), 1500)
        self.assertIn("n = 300", v.text())
        self.assertEqual(q.params["n"], 500)
        self.assertEqual(q.expected(), 5500)
        with self.assertRaises(KeyError):
            q.with_params({"nn": 1})

    def test_bad_student_ids(self):
        for bad in ("", "   ", "a/b", "..", "x\ny"):
            with self.subTest(bad=bad), self.assertRaises(variants.VariantError):
                variants.check_student_id(bad)


class VaryDeclaration(unittest.TestCase):
    BASE = '''
        [formulas.inverse]
        params = ["m"]
        expr = "1 / (m - 3)"

        [measurements.launch]
        Width = 100

        [[questions]]
        id = "q"
        title = "t"
        {extra}
        '''

    def load(self, extra):
        return load_chapter(make_chapter(self.BASE.replace("{extra}", extra)))

    def assertRefused(self, extra, *words):
        with self.assertRaises(ChapterError) as ctx:
            self.load(extra)
        for word in words:
            self.assertIn(word, str(ctx.exception))

    def test_a_good_declaration_loads(self):
        chapter = self.load('params = { m = 5, n = 2 }\nvary = { m = [5, 7] }\n'
                            'text = "m = {m}"\nanswer = "inverse(m) * n"')
        q = chapter.questions("1.0")[0]
        self.assertEqual(q.vary, {"m": [5, 7]})
        self.assertEqual(q.expected(), 1)
        self.assertEqual(q.with_params({"m": 7}).expected(), 0.5)

    def test_unknown_param(self):
        self.assertRefused('params = { m = 5 }\nvary = { k = [5, 7] }\ntext = "{m}"\nanswer = "m"',
                           "question 'q'", "'k' is not one of the question's params")

    def test_not_a_list_of_numbers(self):
        for vary in ("{ m = [] }", "{ m = 7 }", '{ m = ["7"] }', "{ m = [true] }", "{ m = [5, 5] }", "[5]"):
            with self.subTest(vary=vary):
                self.assertRefused(f'params = {{ m = 5 }}\nvary = {vary}\ntext = "{{m}}"\nanswer = "m"', "vary")

    def test_a_choice_that_breaks_the_answer(self):
        self.assertRefused('params = { m = 5 }\nvary = { m = [5, 3] }\ntext = "{m}"\nanswer = "inverse(m)"',
                           "with m = 3 the answer fails", "division by zero")

    def test_a_varied_param_the_text_hides(self):
        self.assertRefused('params = { m = 5, n = 1 }\nvary = { n = [1, 2] }\ntext = "{m}"\nanswer = "m + n"',
                           "'n' varies but the text never shows it")

    def test_measured_questions_cannot_vary(self):
        self.assertRefused('measurement = "launch"\nparams = { m = 5 }\nvary = { m = [5, 7] }\n'
                           'text = "{m} {Width}"\nanswer = "m"', "with 'measurement' cannot vary")
        self.assertRefused('measured_ratio = ["a@b:N:internal", "c@b:N:internal"]\nparams = { m = 5 }\n'
                           'vary = { m = [5, 7] }\ntext = "{m}"\nanswer = "m"', "with 'measured_ratio' cannot vary")

    def test_a_group_shares_its_choices(self):
        text = ('[[questions]]\nid = "{id}"\ntitle = "t"\nparams = {{ m = 5 }}\nvary = {{ m = {choices} }}\n'
                'vary_group = "g"\ntext = "{{m}}"\nanswer = "m"\n')
        good = text.format(id="a", choices="[5, 7]") + text.format(id="b", choices="[5, 7]")
        self.assertEqual(len(load_chapter(make_chapter(good)).questions("1.0")), 2)
        bad = text.format(id="a", choices="[5, 7]") + text.format(id="b", choices="[5, 9]")
        with self.assertRaises(ChapterError) as ctx:
            load_chapter(make_chapter(bad))
        self.assertIn("question 'b': vary_group 'g'", str(ctx.exception))

    def test_variant_is_not_a_question_id(self):
        with self.assertRaises(ChapterError) as ctx:
            load_chapter(make_chapter('[[questions]]\nid = "variant"\ntitle = "t"\ntext = "x"\nanswer = "1"\n'))
        self.assertIn("reserved", str(ctx.exception))


class VariantAnswers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = Path(tmp.name)

    def write(self, text, name="answers.toml"):
        path = self.dir / name
        path.write_text(text)
        return path

    def grade(self, section, path, **kw):
        return {q.id: check_question(self.chapter, section, q.id, path, secret=SECRET, **kw)
                for q in self.chapter.questions(section)}

    def test_the_file_records_the_variant_and_is_valid_toml(self):
        text = answers_template(self.chapter, "7.4", student="alice", secret=SECRET)
        values = loads_toml(text)
        self.assertEqual(values["variant"]["student"], "alice")
        self.assertEqual(values["variant"]["course"], variants.secret_fingerprint(SECRET))
        self.assertNotEqual(variants.secret_fingerprint(SECRET), variants.secret_fingerprint(""))
        recorded = values["variant"]["params"]
        for q in self.chapter.questions("7.4"):
            if q.vary:
                right = variants.params_for(q, "alice", SECRET)
                self.assertEqual(recorded[q.id], right)
                # the question text shows the variant's numbers
                self.assertIn(variants.variant_question(q, "alice", SECRET).text()[:60],
                              " ".join(line[2:] for line in text.splitlines() if line.startswith("# ")))
            else:
                self.assertNotIn(q.id, recorded)
            self.assertEqual(values[q.id], "")
        self.assertLess(text.index("variant.student"), text.index("\nratio_internal_b128 ="))
        self.assertTrue(all(len(line) <= 96 for line in text.splitlines()))

    def test_own_answers_pass_for_every_section(self):
        for s in self.chapter.sections:
            if not self.chapter.questions(s.id):
                continue
            with self.subTest(section=s.id):
                path = self.write(answers_template(self.chapter, s.id, with_key=True, student="alice",
                                                   secret=SECRET))
                verdicts = self.grade(s.id, path)
                self.assertEqual({v.status for v in verdicts.values()}, {"right"}, verdicts)
                self.assertEqual(check_file(self.chapter, s.id, path), [])

    def test_own_answers_fail_for_another_variant(self):
        alice_key = loads_toml(answers_template(self.chapter, "7.1", with_key=True, student="alice",
                                                secret=SECRET))
        bob_file = answers_template(self.chapter, "7.1", student="bob", secret=SECRET)
        # bob's file with alice's answers filled in
        copied = re.sub(r'^(\w+) = ""$', lambda m: f"{m.group(1)} = {alice_key[m.group(1)]}", bob_file,
                        flags=re.M)
        verdicts = self.grade("7.1", self.write(copied))
        wrong = [qid for qid, v in verdicts.items() if v.status == "wrong"]
        self.assertTrue(wrong)
        vary = {q.id: q.vary for q in self.chapter.questions("7.1")}
        for qid in wrong:
            self.assertTrue(vary[qid], qid)
        for qid, v in verdicts.items():
            if qid not in wrong:
                self.assertEqual(v.status, "right", qid)
        # alice's own file, graded as bob's submission: refused
        alice = self.write(answers_template(self.chapter, "7.1", with_key=True, student="alice", secret=SECRET),
                           "alice.toml")
        v = check_question(self.chapter, "7.1", "exercise4_ghost_cells", alice, secret=SECRET, student="bob")
        self.assertEqual(v.status, "invalid")
        self.assertIn("variant of 'alice', not of 'bob'", v.message)
        self.assertEqual(check_question(self.chapter, "7.1", "exercise4_ghost_cells", alice, secret=SECRET,
                                        student="alice").status, "right")

    def test_the_plain_key_fails_a_student_who_must_answer_a_variant(self):
        plain = self.write(answers_template(self.chapter, "7.1", with_key=True))
        v = check_question(self.chapter, "7.1", "exercise4_ghost_cells", plain, secret=SECRET, student="alice")
        self.assertEqual(v.status, "invalid")
        self.assertIn("has no variant", v.message)

    def test_an_edited_parameter_is_reported_not_accepted(self):
        text = answers_template(self.chapter, "7.1", with_key=True, student="alice", secret=SECRET)
        q = next(q for q in self.chapter.questions("7.1") if q.id == "exercise4_multiplications_with_ghosts")
        right = variants.params_for(q, "alice", SECRET)
        other = next(c for c in q.vary["n"] if c != right["n"])
        line_start = f"variant.params.{q.id} = "
        line_no = next(k for k, line in enumerate(text.splitlines(), 1) if line.startswith(line_start))
        edited_line = f"{line_start}{{ n = {other}, m = {right['m']} }}"
        # the student edits n and answers for the edited n: right for those numbers, but refused
        edited = re.sub(rf"^{re.escape(line_start)}.*$", edited_line, text, flags=re.M)
        answer = q.with_params({"n": other, "m": right["m"]}).expected()
        edited = re.sub(rf"^{q.id} = .*$", f"{q.id} = {int(answer)}", edited, flags=re.M)
        path = self.write(edited)
        v = check_question(self.chapter, "7.1", q.id, path, secret=SECRET)
        self.assertEqual(v.status, "invalid")
        for part in (f"{path}:{line_no}:", q.id, "parameter n was edited", f"it is {other} here",
                     f"n = {right['n']}", "alice"):
            self.assertIn(part, v.message)
        # the other questions, whose lines were not touched, are still right
        self.assertEqual(check_question(self.chapter, "7.1", "exercise4_ghost_cells", path,
                                        secret=SECRET).status, "right")

    def test_a_changed_student_or_a_missing_line_is_reported(self):
        text = answers_template(self.chapter, "7.1", with_key=True, student="alice", secret=SECRET)
        stolen = self.write(text.replace('variant.student = "alice"', 'variant.student = "mallory"'), "m.toml")
        statuses = [v.status for v in self.grade("7.1", stolen).values()]
        self.assertIn("invalid", statuses)
        self.assertNotIn("wrong", statuses)
        missing = self.write("\n".join(line for line in text.splitlines()
                                       if not line.startswith("variant.params.exercise5_ghost_cells")))
        v = check_question(self.chapter, "7.1", "exercise5_ghost_cells", missing, secret=SECRET)
        self.assertEqual(v.status, "invalid")
        self.assertIn("records no parameters", v.message)

    def test_the_grader_reads_the_secret_from_the_environment(self):
        path = self.write(answers_template(self.chapter, "7.2", with_key=True, student="alice", secret=SECRET))
        with mock.patch.dict(os.environ, {"HALO_COURSE_SECRET": SECRET}):
            self.assertEqual(check_question(self.chapter, "7.2", "exercise4_ghost_cells", path).status, "right")
        with mock.patch.dict(os.environ, {"HALO_COURSE_SECRET": "not the course's"}):
            v = check_question(self.chapter, "7.2", "exercise5_multiplications_with_ghosts", path)
            self.assertEqual(v.status, "invalid")
            self.assertIn("another course secret", v.message)
            # plain questions are graded as ever
            self.assertEqual(check_question(self.chapter, "7.2", "exercise1_p0", path).status, "right")

    def test_a_student_machine_without_the_secret_grades_the_recorded_numbers(self):
        text = answers_template(self.chapter, "7.1", with_key=True, student="alice", secret=SECRET)
        path = self.write(text)
        q = next(q for q in self.chapter.questions("7.1") if q.id == "exercise6_ghost_cells")
        with mock.patch.dict(os.environ), mock.patch.object(variants, "secret_configured", return_value=False):
            os.environ.pop("HALO_COURSE_SECRET", None)
            v = check_question(self.chapter, "7.1", q.id, path)
            self.assertEqual(v.status, "right", v.message)
            self.assertIn("the course's grader checks", v.message)
            right = variants.params_for(q, "alice", SECRET)
            line = f"variant.params.{q.id} = "
            edited = re.sub(rf"^{re.escape(line)}.*$", line + "{ n1 = 81, n2 = %d, m1 = %d, m2 = %d }"
                            % (right["n2"], right["m1"], right["m2"]), text, flags=re.M)
            v = check_question(self.chapter, "7.1", q.id, self.write(edited))
            self.assertEqual(v.status, "invalid")
            self.assertIn("parameter n1 was edited: the number 81 is not one of its choices", v.message)
        # the course's grader, with the secret, verifies the same file strictly
        other = next(c for c in q.vary["n1"] if c != right["n1"])
        edited = re.sub(rf"^{re.escape(line)}.*$", line + "{ n1 = %d, n2 = %d, m1 = %d, m2 = %d }"
                        % (other, right["n2"], right["m1"], right["m2"]), text, flags=re.M)
        v = check_question(self.chapter, "7.1", q.id, self.write(edited), secret=SECRET)
        self.assertEqual(v.status, "invalid")
        self.assertIn("parameter n1 was edited", v.message)

    def test_check_file_knows_the_variant_keys(self):
        text = answers_template(self.chapter, "7.2", student="alice", secret=SECRET)
        self.assertEqual(check_file(self.chapter, "7.2", self.write(text)), [])
        bad = text + "variant.params.exercise1_p0 = { n = 1 }\nvariant.params.exercise4_ghost_cell = { n = 1 }\n"
        problems = check_file(self.chapter, "7.2", self.write(bad))
        self.assertEqual(len(problems), 2, problems)
        self.assertIn("question exercise1_p0 does not vary", problems[0])
        self.assertIn("did you mean 'exercise4_ghost_cells'?", problems[1])
        lines = bad.splitlines()
        self.assertIn(f"answers.toml:{len(lines)}:", problems[1])
        problems = check_file(self.chapter, "7.2", self.write('variant = 3\nexercise1_p0 = 22\n'))
        self.assertEqual(len(problems), 1)
        self.assertIn("answers.toml:1: variant is the number 3", problems[0])

    def test_the_variant_as_a_table_is_read_too(self):
        # A student may reformat the lines as TOML tables; the numbers are what count.
        q = next(q for q in self.chapter.questions("7.4") if q.id == "ratio_limit")
        n = variants.params_for(q, "alice", SECRET)["n"]
        answer = variants.variant_question(q, "alice", SECRET).expected()
        path = self.write(f'ratio_limit = {int(answer)}\n\n[variant]\nstudent = "alice"\n\n'
                          f'[variant.params]\nratio_limit = {{ n = {n} }}\n')
        self.assertEqual(check_question(self.chapter, "7.4", "ratio_limit", path, secret=SECRET).status, "right")
        path = self.write(f'ratio_limit = {int(answer)}\n\n[variant]\nstudent = "alice"\n\n'
                          f'[variant.params]\nratio_limit = {{ n = {n + 100} }}\n')
        v = check_question(self.chapter, "7.4", "ratio_limit", path, secret=SECRET)
        self.assertEqual(v.status, "invalid")
        self.assertIn(f"{path}:7:", v.message)


class PlainEdition(unittest.TestCase):
    """Without a variant, nothing changes: the committed files are the plain templates."""

    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)

    def test_committed_files_are_the_plain_templates(self):
        for s in self.chapter.sections:
            if not self.chapter.questions(s.id):
                continue
            with self.subTest(section=s.id):
                blank = answers_template(self.chapter, s.id)
                key = answers_template(self.chapter, s.id, with_key=True)
                self.assertNotIn("variant", loads_toml(blank))
                self.assertNotIn("\nvariant.", blank)
                self.assertEqual((stubs() / s.folder / "answers.toml").read_text(), blank)
                self.assertEqual((REPO_ROOT / "solutions" / s.folder / "answers.toml").read_text(), key)

    def test_plain_key_passes_whatever_the_secret(self):
        for secret in (None, SECRET):
            for s in self.chapter.sections:
                path = REPO_ROOT / "solutions" / s.folder / "answers.toml"
                if not path.exists():
                    continue
                for q in self.chapter.questions(s.id):
                    with self.subTest(section=s.id, q=q.id, secret=secret):
                        v = check_question(self.chapter, s.id, q.id, path, secret=secret)
                        # measured-ratio questions need a report dir; the formula part is right
                        self.assertEqual(v.status, "right", v.message)


class Secret(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.root = Path(tmp.name)
        patcher = mock.patch.dict(os.environ)
        patcher.start()
        self.addCleanup(patcher.stop)
        os.environ.pop("HALO_COURSE_SECRET", None)

    def test_nothing_means_self_study(self):
        self.assertEqual(variants.secret_from_env_or_file(self.root), "")

    def test_course_file_then_environment(self):
        (self.root / "course.toml").write_text('secret = "from the file"\n')
        self.assertEqual(variants.secret_from_env_or_file(self.root), "from the file")
        os.environ["HALO_COURSE_SECRET"] = "from the environment"
        self.assertEqual(variants.secret_from_env_or_file(self.root), "from the environment")

    def test_course_file_by_path_and_malformed(self):
        other = self.root / "elsewhere.toml"
        other.write_text('secret = "s2"\n')
        self.assertEqual(variants.secret_from_env_or_file(None, other), "s2")
        other.write_text("secret = 3\n")
        with self.assertRaises(variants.VariantError) as ctx:
            variants.secret_from_env_or_file(None, other)
        self.assertIn("elsewhere.toml", str(ctx.exception))

    def test_course_toml_is_ignored_by_git(self):
        self.assertIn("/course.toml", (REPO_ROOT / ".gitignore").read_text().splitlines())


class Roster(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.path = Path(tmp.name) / "roster.csv"

    def roster(self, text):
        self.path.write_text(text, encoding="utf-8")
        return variants.read_roster(self.path)

    def test_columns(self):
        self.assertEqual(self.roster("name,Student ID\nAda,a1\nBen, b2 \n\n"), ["a1", "b2"])
        self.assertEqual(self.roster("\ufeffEmail,Name\nada@x.edu,Ada\n"), ["ada@x.edu"])
        self.assertEqual(self.roster("email,id\nada@x.edu,7\n"), ["7"])

    def test_errors_name_the_line(self):
        cases = [("name\nAda\n", ":1: no column of student IDs"),
                 ("id,name\na1,Ada\n,Ben\n", ":3: no id on this row"),
                 ("id,name\na1,Ada\nb2,Ben\na1,Ann\n", ":4: 'a1' is also on line 2"),
                 ("id,name\na/1,Ada\n", ":2: student ID 'a/1' cannot be a folder name"),
                 ("", ":1: the roster is empty"),
                 ("id\n\n", "lists no students")]
        for text, message in cases:
            with self.subTest(text=text), self.assertRaises(variants.VariantError) as ctx:
                self.roster(text)
            self.assertIn(message, str(ctx.exception))


class WriteVariantAnswers(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.out = Path(tmp.name) / "out"
        self.roster = Path(tmp.name) / "roster.csv"
        self.roster.write_text("student_id,name\nalice,A\nbob,B\n")
        patcher = mock.patch.dict(os.environ, {"HALO_COURSE_SECRET": SECRET})
        patcher.start()
        self.addCleanup(patcher.stop)
        self.chapter = load_chapter(REPO_ROOT)

    def run_cli(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = cli.main(REPO_ROOT, ["internal", "write-variant-answers", *argv])
            except SystemExit as e:
                rc, err = e.code, io.StringIO(str(e.code))
        return rc, out.getvalue() + err.getvalue()

    def test_a_roster_gets_a_folder_per_student(self):
        rc, output = self.run_cli("--roster", str(self.roster), "--out", str(self.out))
        self.assertEqual(rc, 0, output)
        sections = [s for s in self.chapter.sections if self.chapter.questions(s.id)]
        for student in ("alice", "bob"):
            for s in sections:
                path = self.out / student / s.folder / "answers.toml"
                self.assertEqual(path.read_text(),
                                 answers_template(self.chapter, s.id, student=student, secret=SECRET))
        self.assertEqual(len(list(self.out.rglob("answers.toml"))), 2 * len(sections))

    def test_refuses_to_overwrite_unless_forced_and_keeps_a_backup(self):
        self.assertEqual(self.run_cli("--student", "alice", "--out", str(self.out))[0], 0)
        path = self.out / "alice" / "7.1-background" / "answers.toml"
        work = path.read_text().replace('exercise3a = ""', "exercise3a = 3")
        path.write_text(work)
        rc, output = self.run_cli("--student", "alice", "--out", str(self.out))
        self.assertNotEqual(rc, 0)
        self.assertIn("not overwriting", output)
        self.assertEqual(path.read_text(), work)
        rc, output = self.run_cli("--student", "alice", "--out", str(self.out), "--force")
        self.assertEqual(rc, 0, output)
        self.assertNotIn("exercise3a = 3", path.read_text())
        backups = list((self.out / ".halo-backups").rglob("answers.toml"))
        self.assertEqual(len(backups), 1)
        self.assertEqual(backups[0].read_text(), work)

    def test_needs_students(self):
        rc, output = self.run_cli("--out", str(self.out))
        self.assertNotEqual(rc, 0)
        self.assertIn("--student", output)


if __name__ == "__main__":
    unittest.main()
