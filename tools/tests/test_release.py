"""`./workbook release`: a student repository of some sections, with no solution, no answer key
(summative) and nothing of the sections not handed out but the formulas their neighbours use.

The releases are made from a throwaway repository: this repository's HEAD (never its working
tree's exercises/ or chapters/) with the tools under test (tools/halo of the working tree) laid
over it and committed, because a release carries the tools of the commit it is made from and
checks them by running them. No build: `./workbook grade` in a release is checked by hand."""
import contextlib
import io
import math
import re
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

from halo.core import answers_phase
from halo import cli
from halo.course import export_autograder
from halo.core.chapter_data import ChapterError, load_chapter
from halo.course.release import files as release_files, guard as release_guard, make as release
from halo.course.release import toml_cuts as release_toml, withheld as release_withheld
from halo.core.regions import solution_regions
from halo.core import untouched_stubs
from halo.core.tomlcompat import loads_toml

from .helpers import REPO_ROOT

CHOSEN = ["7.2", "7.4"]
# Lines of a solution this short say nothing about it ("}", "float sum = 0;"): fewer than
# MIN_CHARS characters other than blanks are not searched for.
MIN_CHARS = 12
# The CUDA dialect's own words, in the grader's runtime and the tools as much as in any kernel.
GENERIC = {"__syncthreads();", "return cudaSuccess;"}
GIVEN = "grader/include/halo/given/"  # code the stubs #include: given to students by design


def _git(cwd, *args):
    subprocess.run(["git", "-C", str(cwd), "-c", "user.email=test@halo", "-c", "user.name=test", *args],
                   capture_output=True, check=True)


def make_source(into):
    """HEAD's files, with the working tree's tools/halo over them, committed: {path: bytes} of HEAD too."""
    head = {name: data for name, _m, _t, data in export_autograder.committed_files(REPO_ROOT)}
    for name, _m, _t, data in export_autograder.committed_files(REPO_ROOT):
        (into / name).parent.mkdir(parents=True, exist_ok=True)
        (into / name).write_bytes(data)
    (into / "workbook").chmod(0o755)
    tools = REPO_ROOT / "tools" / "halo"
    for path in tools.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            target = into / "tools" / "halo" / path.relative_to(tools)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    _git(into, "init", "-q")
    _git(into, "add", "-A")
    _git(into, "commit", "-qm", "source")
    return head


def make_release(source, out, *args, **kwargs):
    """release.run: (exit status, stdout, stderr)."""
    so, se = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(so), contextlib.redirect_stderr(se):
        status = release.run(source, *args, out=out, **kwargs)
    return status, so.getvalue(), se.getvalue()


def files_of(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in Path(root).rglob("*")
            if p.is_file() and ".git" not in p.relative_to(root).parts}


def normalise(line):
    return " ".join(line.split())


@unittest.skipUnless((REPO_ROOT / ".git").exists(), "needs the git checkout of Halo")
class Release(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="halo-release-test-"))
        cls.source = cls.tmp / "source"
        cls.head = make_source(cls.source)
        cls.formative = cls.tmp / "formative"
        cls.summative = cls.tmp / "summative"
        for out, mode in ((cls.formative, "formative"), (cls.summative, "summative")):
            status, text, err = make_release(cls.source, out, ",".join(CHOSEN), mode=mode)
            assert status == 0, err
        cls.head_chapter = release.head_chapter(export_autograder.committed_files(REPO_ROOT), cls.tmp / "head")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    # ------------------------------------------------------------ nothing of a solution

    def secret_lines(self):
        """Every line of every SOLUTION region of HEAD's solutions/, normalised, but the trivial
        and generic ones and those a stub's prompt already prints (the 7.4 stub spells out its
        tile's declaration, which its lesson shows too)."""
        stubs = "\n".join(normalise(line) for rel, data in self.head.items() if rel.startswith("exercises/")
                          for line in data.decode(errors="replace").splitlines())
        lines = {}
        for rel, data in self.head.items():
            if rel.startswith("solutions/"):
                for region in solution_regions(data.decode(errors="replace")):
                    for line in region.splitlines():
                        for s in (normalise(line), normalise(re.sub(r"//.*$", "", line))):
                            if len(s.replace(" ", "")) >= MIN_CHARS and s not in GENERIC and s not in stubs:
                                lines[s] = rel
        return lines

    def test_no_line_of_any_solution_is_in_either_release(self):
        secrets = self.secret_lines()
        self.assertGreater(len(secrets), 100)  # the search found the solutions: it proves something
        for root in (self.formative, self.summative):
            found = []
            for rel, data in sorted(files_of(root).items()):
                if b"\0" in data or rel.startswith(GIVEN):
                    continue
                text = "\n".join(normalise(line) for line in data.decode(errors="replace").splitlines())
                found += [f"{rel}: {s!r} (of {src})" for s, src in secrets.items() if s in text]
            self.assertFalse(found, f"lines of solutions/ in {root.name}:\n  " + "\n  ".join(found))

    def test_no_instructor_file_is_in_the_release(self):
        names = files_of(self.formative)
        for prefix in ("solutions/", "grader/wrong/", "grader/learners/", "grader/redteam/", "tools/tests/", ".ci/",
                       "chapters/errata.toml", "exercises/.generated.json", "tools/halo/dev/numba_sim/",
                       "docs/results/", "docs/instructor.md"):
            self.assertFalse([n for n in names if n.startswith(prefix)], prefix)
        self.assertFalse([n for n in names if Path(n).name == "course.toml"])
        self.assertIn(release_guard.MARKER, names)
        self.assertIn("assignment.toml", names)
        # The 7.4 stub includes the given mask header; 7.2's does not need the 2D filter's.
        self.assertIn(GIVEN + "constant_mask_1d.cuh", names)
        self.assertNotIn(GIVEN + "constant_filter_2d.cuh", names)

    # ------------------------------------------------------------ only the sections handed out

    def test_only_the_chosen_sections_are_listed_built_or_handed_out(self):
        chapter = load_chapter(self.formative)
        self.assertEqual([s.id for s in chapter.sections], CHOSEN)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(cli.main(self.formative, ["internal", "sections"]), 0)
        self.assertEqual([line.split("|")[1] for line in out.getvalue().splitlines() if line.startswith("section|")],
                         CHOSEN)
        names = files_of(self.formative)
        folders = {s.folder for s in self.head_chapter.sections if s.id not in CHOSEN}
        for folder in folders:
            self.assertFalse([n for n in names if n.startswith((f"exercises/{folder}/", f"grader/sections/{folder}/"))])
            self.assertNotIn(f"chapters/{folder}/lesson.md", names)
            path = self.formative / "chapters" / folder / "questions.toml"
            if path.exists():
                self.assertNotIn("questions", loads_toml(path.read_text()), folder)
        manifest = loads_toml((self.formative / "chapters" / "manifest.toml").read_text())
        self.assertEqual([e["id"] for e in manifest["sections"] if not e.get("formulas_only")], CHOSEN)

    def test_questions_handed_out_still_reach_formulas_of_other_sections(self):
        chapter = load_chapter(self.formative)
        # 7.4's exercise 7e is answered by a formula of 7.5, a section not handed out.
        self.assertEqual(chapter.formulas["cached_1d_shared_bytes_per_block"].section_id, "7.5")
        for sid in CHOSEN:
            self.assertEqual([(q.id, v) for q, v in chapter.answer_key(sid)],
                             [(q.id, v) for q, v in self.head_chapter.answer_key(sid)])
        # MAX_MASK_WIDTH, defined with 7.3, sizes the 7.4 kernel's tile.
        self.assertIn("MAX_MASK_WIDTH", chapter.defines)

    # ------------------------------------------------------------ summative

    def test_a_summative_release_holds_no_answer_of_a_question_handed_out(self):
        chapter = load_chapter(self.summative)
        asked = [q for sid in CHOSEN for q in chapter.questions(sid)]
        self.assertEqual(len(asked), sum(len(self.head_chapter.questions(sid)) for sid in CHOSEN))
        self.assertTrue(all(q.withheld and math.isnan(q.expected()) for q in asked))
        texts = {rel: data.decode() for rel, data in files_of(self.summative).items() if rel.endswith(".toml")}
        for sid in CHOSEN:
            for q in self.head_chapter.questions(sid):
                for rel, text in texts.items():
                    self.assertNotIn(q.answer_expr, text, f"{q.id}'s answer in {rel}")
        # Formulas only those answers use are gone; those the judges call stay.
        self.assertNotIn("tiled_1d_ratio_internal", chapter.formulas)
        self.assertNotIn("exercise7_tiled_shared_bytes_total", chapter.formulas)
        self.assertIn("tiled_1d_loads_internal_block", chapter.formulas)
        self.assertTrue(all(s.answers_withheld for s in chapter.sections))

    def test_no_withheld_answer_is_written_in_any_file_of_a_summative_release(self):
        withheld = {sid: [q.id for q in self.head_chapter.questions(sid)] for sid in CHOSEN}
        values = release_withheld.withheld_values(self.head_chapter, withheld)
        self.assertGreater(len(values), 20)  # the search looks for something: it proves something
        self.assertEqual(release_withheld.find(files_of(self.summative), values), [])

    def test_every_section_s_summative_release_writes_no_withheld_value(self):
        files = export_autograder.committed_files(self.source)
        for s in self.head_chapter.sections:
            with self.subTest(s.id):
                chosen = release.choose(self.head_chapter, self.source, s.id, "summative", None, None)
                tree, summary = release_files.build(files, self.head_chapter, chosen, "commit", "now")
                values = release_withheld.withheld_values(self.head_chapter, summary["withheld"])
                self.assertEqual(release_withheld.find({rel: data for rel, (_x, data) in tree.items()}, values), [])

    def test_a_page_quoting_a_withheld_answer_stops_the_release(self):
        source = self.tmp / "quoting"
        shutil.copytree(self.source, source)
        question = next(q for q in self.head_chapter.questions("7.2") if q.id == "loads_total")
        value = f"{int(question.expected()):,}"
        (source / "docs" / "quoting.md").write_text(f"# Notes\n\nThe basic kernel loads {value} elements of N.\n")
        _git(source, "add", "-A")
        _git(source, "commit", "-qm", "a page that quotes an answer")
        status, _text, err = make_release(source, self.tmp / "quoting-release", ",".join(CHOSEN), mode="summative")
        self.assertEqual(status, 2, err)
        self.assertIn(f"docs/quoting.md:3: {value} (the answer of 7.2 loads_total)", err)
        self.assertFalse((self.tmp / "quoting-release").exists())
        # The control: the same page in a formative release, whose answers are in questions.toml anyway.
        status, _text, err = make_release(source, self.tmp / "quoting-formative", ",".join(CHOSEN), mode="formative")
        self.assertEqual(status, 0, err)

    def test_grade_reports_summative_answers_as_checked_by_the_autograder(self):
        chapter = load_chapter(self.summative)
        section = chapter.section("7.4")
        work = self.tmp / "answers-summative"
        shutil.copytree(self.summative / "exercises", work)
        path = work / section.folder / "answers.toml"
        path.write_text(re.sub(r'^ratio_limit = ""', "ratio_limit = 11", path.read_text(), flags=re.M))
        with contextlib.redirect_stdout(io.StringIO()) as said:
            tests = answers_phase.run(chapter, [section], work, None)
        by_name = {t["name"].split(" / ")[-1]: t for t in tests}
        self.assertEqual(by_name["ratio_limit"]["status"], "skipped")
        self.assertIn("checked by your course's autograder", by_name["ratio_limit"]["message"])
        self.assertEqual(by_name["exercise7_blocks"]["status"], "failed")  # still "" in the file
        self.assertIn("not answered", by_name["exercise7_blocks"]["message"])
        self.assertFalse([t for t in tests if t["status"] == "passed" and t["name"].endswith("ratio_limit")])
        self.assertIn("checked by your course's autograder", said.getvalue())
        # The formative release checks the same answer: right or wrong, never deferred.
        formative = load_chapter(self.formative)
        with contextlib.redirect_stdout(io.StringIO()):
            tests = answers_phase.run(formative, [formative.section("7.4")], work, None)
        self.assertIn(next(t for t in tests if t["name"].endswith("/ ratio_limit"))["status"], ("passed", "failed"))

    # ------------------------------------------------------------ refusals

    def test_instructor_commands_refuse_in_a_release(self):
        for argv in (["handout", "--edition", "instructor"], ["docs", "--instructor"], ["sync"], ["check"],
                     ["export", "gradescope-autograder"], ["release", "--sections", "7.2", "--out", str(self.tmp / "x")],
                     ["release"]):
            with self.subTest(argv=argv), contextlib.redirect_stderr(io.StringIO()):
                with self.assertRaises(SystemExit) as cm:
                    cli.main(self.formative, argv)
                message = str(cm.exception.code)
                self.assertIn("this is a student release", message)
                self.assertIn("is for instructors", message)
                self.assertNotIn("\n", message)
        self.assertFalse((self.tmp / "x").exists())
        # The same commands are the instructor's in the course's repository, and a student's
        # commands are never refused.
        parser = cli._parser()
        self.assertIsNone(release_guard.refusal(self.source, parser.parse_args(["sync"])))
        self.assertIsNone(release_guard.refusal(self.formative, parser.parse_args(["handout"])))
        self.assertIsNone(release_guard.refusal(self.formative, parser.parse_args(["grade", "7.2"])))

    # ------------------------------------------------------------ the output folder

    def test_a_folder_with_work_in_it_is_never_overwritten_without_a_backup(self):
        out = self.tmp / "student-work"
        out.mkdir()
        (out / "mine.cu").write_text("// a student's work\n")
        status, _text, err = make_release(self.source, out, "7.2")
        self.assertEqual(status, 2)
        self.assertIn("not empty", err)
        self.assertEqual(sorted(p.name for p in out.iterdir()), ["mine.cu"])
        status, text, err = make_release(self.source, out, "7.2", force=True)
        self.assertEqual(status, 0, err)
        backups = list(self.tmp.glob("student-work.backup-*"))
        self.assertEqual(len(backups), 1)
        self.assertEqual((backups[0] / "mine.cu").read_text(), "// a student's work\n")
        self.assertTrue((out / release_guard.MARKER).is_file())
        self.assertFalse(list(self.tmp.glob(".student-work.partial-*")))

    # ------------------------------------------------------------ assignments

    def test_an_assignment_of_the_course_file_names_what_is_handed_out_without_its_secret(self):
        course = self.tmp / "course.toml"
        course.write_text('secret = "never-in-a-release-0123456789"\n\n[assignments.conv1d]\ntitle = "Tiling"\n'
                          'sections = ["7.4"]\nrelease = "summative"\ndue = "2030-12-04 23:59"\n'
                          'points = { "7.4" = { tests = 20, answers = 5 } }\n')
        out = self.tmp / "conv1d"
        status, text, err = make_release(self.source, out, assignment_name="conv1d", course=str(course))
        self.assertEqual(status, 0, err)
        for rel, data in files_of(out).items():
            self.assertNotIn(b"never-in-a-release", data, rel)
        marker = loads_toml((out / release_guard.MARKER).read_text())
        self.assertEqual((marker["mode"], marker["sections"], marker["assignment"]), ("summative", ["7.4"], "conv1d"))
        assignment = loads_toml((out / "assignment.toml").read_text())["assignments"]["conv1d"]
        self.assertEqual((assignment["due"], assignment["points"]["7.4"]["tests"]), ("2030-12-04 23:59", 20))
        readme = (out / "README.md").read_text()
        for words in ("Tiling", "2030-12-04 23:59", "./workbook grade 7.4", "autograder"):
            self.assertIn(words, readme)
        self.assertEqual([s.id for s in load_chapter(out).sections], ["7.4"])
        # --sections that disagree with the assignment are refused, not merged.
        status, _text, err = make_release(self.source, self.tmp / "other", "7.2", assignment_name="conv1d",
                                          course=str(course))
        self.assertEqual(status, 2)
        self.assertIn("differs", err)

    def test_every_release_holds_the_dev_container_and_what_its_image_copies(self):
        for out in (self.formative, self.summative):
            for rel in release_files.REQUIRED:
                self.assertEqual((out / rel).read_bytes(), self.head[rel], f"{out.name}: {rel}")
            lines = (out / ".devcontainer" / "Containerfile").read_text().splitlines()
            copied = [line.split()[1] for line in lines if line.startswith("COPY ")]
            self.assertTrue(copied, "the Containerfile copies the bootstrap in")
            for rel in copied:  # the build context is the release's root (devcontainer.json)
                self.assertTrue((out / rel).exists(), f"{out.name}: the image copies {rel}, which is not there")

    def test_a_commit_without_the_dev_container_makes_no_release(self):
        source = self.tmp / "source-without-devcontainer"
        shutil.copytree(self.source, source)
        _git(source, "rm", "-rq", ".devcontainer")
        _git(source, "commit", "-qm", "no Dev Container")
        status, _text, err = make_release(source, self.tmp / "no-devcontainer", "7.2")
        self.assertEqual(status, 2)
        self.assertIn(".devcontainer/devcontainer.json", err)
        self.assertFalse((self.tmp / "no-devcontainer").exists())

    def test_a_release_s_untouched_stubs_are_judged_without_a_build(self):
        # A release holds no sync record: without the record it writes, a student's first grade
        # built and ran every stub (over a minute) to print "not written yet" for each.
        for root in (self.formative, self.summative):
            chapter = load_chapter(root)
            sections = [s for s in chapter.sections if s.id in CHOSEN]
            reference = untouched_stubs.stubs_in_record(root / untouched_stubs.HANDED_OUT, sections)
            self.assertEqual(sorted(untouched_stubs.decide(sections, root / "exercises", reference)), CHOSEN)
            edited = root / "exercises" / sections[0].folder / sections[0].kernels[0]
            original = edited.read_bytes()
            try:  # one byte more: built and run
                edited.write_bytes(original + b"\n")
                self.assertEqual(sorted(untouched_stubs.decide(sections, root / "exercises", reference)), CHOSEN[1:])
            finally:
                edited.write_bytes(original)

    def test_the_readme_names_the_sections_and_how_to_grade_them(self):
        readme = (self.formative / "README.md").read_text()
        for words in ("./workbook grade 7.2 7.4", "./workbook hint 7.2", "./workbook lesson 7.2", "./workbook status",
                      "exercises/7.4-tiled-1d/convolution_1d_tiled.cu", "Codespaces", "Reopen in Container"):
            self.assertIn(words, readme)
        self.assertIn("/course.toml", (self.formative / ".gitignore").read_text())


class FormulasOnly(unittest.TestCase):
    """chapter_data's two release keys, on a chapter of two small sections."""

    def chapter(self, manifest_extra="", answer='answer = "twice(3)"'):
        root = Path(tempfile.mkdtemp(prefix="halo-formulas-only-"))
        self.addCleanup(shutil.rmtree, root, True)
        (root / "chapters" / "a").mkdir(parents=True)
        (root / "chapters" / "b").mkdir(parents=True)
        (root / "chapters" / "manifest.toml").write_text(
            '[[sections]]\nid = "1"\nslug = "a"\ntitle = "A"\nfolder = "a"\nformulas_only = true\n\n'
            f'[[sections]]\nid = "2"\nslug = "b"\ntitle = "B"\nfolder = "b"\n{manifest_extra}\n')
        (root / "chapters" / "a" / "questions.toml").write_text(
            '[formulas.twice]\nparams = ["x"]\nexpr = "2 * x"\n\n'
            '[[questions]]\nid = "q_a"\ntitle = "A"\ntext = "Twice 1?"\nanswer = "twice(1)"\n')
        (root / "chapters" / "b" / "questions.toml").write_text(
            f'[[questions]]\nid = "q_b"\ntitle = "B"\ntext = "Twice 3?"\n{answer}\n')
        return load_chapter(root)

    def test_a_formulas_only_section_lends_its_formulas_and_nothing_else(self):
        chapter = self.chapter()
        self.assertEqual([s.id for s in chapter.sections], ["2"])
        self.assertEqual(chapter.answer_key("2")[0][1], 6)
        self.assertIn("twice", chapter.formulas)
        with self.assertRaises(KeyError):
            chapter.questions("1")

    def test_a_withheld_answer_needs_the_manifest_to_say_so(self):
        with self.assertRaisesRegex(ChapterError, "'answer' is missing"):
            self.chapter(answer="")
        q = self.chapter("answers_withheld = true", answer="").questions("2")[0]
        self.assertTrue(q.withheld)
        self.assertTrue(math.isnan(q.expected()))

    def test_a_formulas_only_section_has_no_kernels(self):
        root = Path(tempfile.mkdtemp(prefix="halo-formulas-only-"))
        self.addCleanup(shutil.rmtree, root, True)
        (root / "chapters").mkdir()
        (root / "chapters" / "manifest.toml").write_text(
            '[[sections]]\nid = "1"\nslug = "a"\ntitle = "A"\nfolder = "a"\nkernels = ["k.cu"]\nformulas_only = true\n')
        with self.assertRaisesRegex(ChapterError, "no kernels"):
            load_chapter(root)


class TomlCuts(unittest.TestCase):
    TEXT = ('# top\n[formulas.keep]\nexpr = "1"\n\n# about drop\n[formulas.drop]\nexpr = "2"  # gone\n\n'
            '# next\n[[questions]]\nid = "a"\nanswer = "keep(1)"\n\n[[questions]]\nid = "b"\nanswer = "drop(1)"\n')

    def test_cuts_take_out_exactly_what_they_name(self):
        cut = release_toml.without_tables(self.TEXT, {"formulas.drop"})
        self.assertEqual(loads_toml(cut)["formulas"], {"keep": {"expr": "1"}})
        self.assertIn("# next", cut)  # the next table's comment stays
        cut = release_toml.without_key(self.TEXT, "questions", "answer", lambda k: k == 1)
        self.assertEqual(loads_toml(cut)["questions"], [{"id": "a", "answer": "keep(1)"}, {"id": "b"}])
        self.assertNotIn("questions", loads_toml(release_toml.without_arrays(self.TEXT, "questions")))

    def test_a_multi_line_string_is_refused(self):
        with self.assertRaises(release_toml.TomlCutError):
            release_toml.blocks('[formulas.x]\ndoc = """\n[formulas.y]\n"""\nexpr = "1"\n')


if __name__ == "__main__":
    unittest.main()
