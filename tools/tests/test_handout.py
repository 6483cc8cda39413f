"""Handouts (`./workbook handout`): both editions are written for every section and the whole
chapter, as Markdown, HTML and PDF, and the PDFs render; the student edition holds no line of
any SOLUTION region (and the same check finds them all in the instructor edition, so it can
fail); every number of the instructor's answer key is the grader's expected value."""
import atexit
import dataclasses
import html.parser
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from halo.course import handout
from halo.core import pydeps, regions
from halo.core.chapter_data import load_chapter
from halo.core.lesson import render_lesson
from tests.helpers import REPO_ROOT

CHAPTER = load_chapter(REPO_ROOT)
STEMS = [s.folder for s in CHAPTER.sections] + [handout.CHAPTER_STEM]


def setUpModule():
    # The handout module's own dependencies (Jinja2, Markdown), installed as the command does.
    if not pydeps.ensure(handout.PYTHON_DEPS):
        raise unittest.SkipTest("Jinja2 and Markdown cannot be installed (see the message above)")


_RUN = {}


def generated():
    """The output folder of `./workbook handout` for both editions (run once, about 40 s), and
    each run's (exit status, output)."""
    if not _RUN:
        out = Path(tempfile.mkdtemp(prefix="halo-handouts-"))
        atexit.register(shutil.rmtree, out, True)
        _RUN["out"] = out
        for edition in handout.EDITIONS:
            p = subprocess.run([sys.executable, str(REPO_ROOT / "workbook"), "handout", "--edition", edition,
                                "--output", str(out)], capture_output=True, text=True, timeout=1200)
            _RUN[edition] = (p.returncode, p.stdout + p.stderr)
    return _RUN["out"]


def ran_ok(test, edition):
    generated()
    status, output = _RUN[edition]
    test.assertEqual(status, 0, f"./workbook handout --edition {edition} failed:\n{output}")


class _Text(html.parser.HTMLParser):
    """The text of an HTML page (entities decoded), and the cells of each table row."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts, self.rows, self._row, self._cell = [], [], None, None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.rows.append(self._row)
            self._row = None

    def handle_data(self, data):
        self.parts.append(data)
        if self._cell is not None:
            self._cell.append(data)


def html_text(page):
    parser = _Text()
    parser.feed(page)
    return "\n".join(parser.parts), parser.rows


def pdf_text(path):
    """pdftotext's text of a PDF in content order (-raw: a wrapped code line stays in one piece);
    None when poppler-utils is not installed."""
    if not shutil.which("pdftotext"):
        return None
    p = subprocess.run(["pdftotext", "-raw", "-enc", "UTF-8", str(path), "-"], capture_output=True, text=True)
    if p.returncode != 0:
        raise AssertionError(f"pdftotext {path}: {p.stderr}")
    return p.stdout


def unescape_markdown(text):
    """Markdown's backslash escapes undone: `\\_\\_syncthreads()` is `__syncthreads()` to a reader."""
    return re.sub(r"\\([\\`*_{}\[\]()#+.!|<>-])", r"\1", text)


def texts(folder, stem):
    """{format: the readable text} of one handout: Markdown as is, HTML's text, PDF's text."""
    out = {"md": unescape_markdown((folder / f"{stem}.md").read_text(encoding="utf-8")),
           "html": html_text((folder / f"{stem}.html").read_text(encoding="utf-8"))[0]}
    pdf = pdf_text(folder / f"{stem}.pdf")
    if pdf is not None:
        out["pdf"] = pdf
    return out


# ---------------------------------------------------------------- the command

class CommandTest(unittest.TestCase):
    def test_both_editions_write_every_section_and_the_chapter_in_every_format(self):
        out = generated()
        for edition in handout.EDITIONS:
            ran_ok(self, edition)
            for stem in STEMS:
                for fmt in handout.FORMATS:
                    path = out / edition / f"{stem}.{fmt}"
                    with self.subTest(path=str(path.relative_to(out))):
                        self.assertTrue(path.is_file(), f"missing: {path}")
                        self.assertGreater(path.stat().st_size, 500)
                self.assertEqual((out / edition / f"{stem}.pdf").read_bytes()[:5], b"%PDF-")
                self.assertIn("<html", (out / edition / f"{stem}.html").read_text(encoding="utf-8")[:300])

    def test_pdf_pages_render_to_png(self):
        if not shutil.which("pdftoppm"):
            self.skipTest("pdftoppm is not installed (Debian: poppler-utils; ./workbook handout installs it "
                          "when it may use apt-get)")
        out = generated()
        pngs = Path(tempfile.mkdtemp(prefix="halo-png-"))
        self.addCleanup(shutil.rmtree, pngs, True)
        for edition in handout.EDITIONS:
            ran_ok(self, edition)
            for stem in STEMS:
                pdf = out / edition / f"{stem}.pdf"
                with self.subTest(pdf=f"{edition}/{stem}.pdf"):
                    p = subprocess.run(["pdftoppm", "-r", "20", "-png", str(pdf), str(pngs / f"{edition}-{stem}")],
                                       capture_output=True, text=True)
                    self.assertEqual(p.returncode, 0, p.stderr)
                    self.assertEqual(p.stderr.strip(), "", "pdftoppm reported problems")
                    pages = list(pngs.glob(f"{edition}-{stem}-*.png"))
                    self.assertGreaterEqual(len(pages), 2)
                    self.assertTrue(all(png.stat().st_size > 100 for png in pages))

    def test_the_instructor_edition_has_more_than_the_student_edition(self):
        out = generated()
        for stem in STEMS:
            student = (out / "student" / f"{stem}.md").read_text(encoding="utf-8")
            instructor = (out / "instructor" / f"{stem}.md").read_text(encoding="utf-8")
            for heading in ("## Answer key", "## Reference kernel", "## Common mistakes", "## The book's errata",
                            "## Formulas and expected load counts"):
                self.assertNotIn(heading, student, stem)
            self.assertIn("## Answer key", instructor, stem)
            self.assertIn("## Questions", student, stem)
            self.assertIn("## How to grade", student, stem)

    def test_an_output_folder_inside_exercises_or_solutions_is_refused(self):
        for tree in ("exercises", "solutions"):
            target = REPO_ROOT / tree / "handouts-test"
            p = subprocess.run([sys.executable, str(REPO_ROOT / "workbook"), "handout", "--format", "md",
                                "--output", str(target)], capture_output=True, text=True, timeout=300)
            self.assertNotEqual(p.returncode, 0)
            self.assertIn(f"inside {tree}/", p.stderr)
            self.assertFalse(target.exists())


# ---------------------------------------------------------------- no solution in the student edition

def _squash(text):
    """Text with whitespace and Markdown's backticks removed: a code line wrapped across PDF
    lines, or `quoted` in a sentence, still matches."""
    return re.sub(r"[\s`]+", "", text)


def solution_lines():
    """(checked, exempt): the non-blank lines of every SOLUTION region, whitespace removed.

    Exempt are lines a student is given anyway, which a handout must be able to print: lines of
    the stubs themselves (a declaration the prompt keeps, a closing brace), lines a lesson or a
    question quotes (`./workbook lesson` and answers.toml show them; tests/test_lesson.py guards
    what lessons show), and lines of braces only."""
    given = []
    for s in CHAPTER.sections:
        for path in sorted((REPO_ROOT / "solutions" / s.folder).glob("*.cu*")):
            given.append(regions.make_stub(path.read_text()))
        if (REPO_ROOT / "chapters" / s.folder / "lesson.md").exists():
            given.append(render_lesson(CHAPTER, s.id))
        given += [q.text() for q in CHAPTER.questions(s.id)]
    given = _squash("\n".join(given))
    checked, exempt = set(), set()
    for path in sorted((REPO_ROOT / "solutions").glob("**/*.cu*")):
        for region in regions.solution_regions(path.read_text()):
            for line in region.splitlines():
                line = _squash(line)
                if not line:
                    continue
                (exempt if re.fullmatch(r"[{}();]+", line) or line in given else checked).add(line)
    return checked, exempt


def leaks(text, lines):
    squashed = _squash(text)
    return sorted(line for line in lines if line in squashed)


class NoSolutionInStudentEditionTest(unittest.TestCase):
    def test_enough_lines_are_checked(self):
        checked, exempt = solution_lines()
        self.assertGreaterEqual(len(checked), 100)
        self.assertLessEqual(len(exempt), len(checked) // 10, f"exempt: {sorted(exempt)}")

    def test_no_solution_line_in_any_student_handout(self):
        out = generated()
        ran_ok(self, "student")
        checked, _ = solution_lines()
        for stem in STEMS:
            for fmt, text in texts(out / "student", stem).items():
                with self.subTest(handout=f"student/{stem}.{fmt}"):
                    self.assertEqual(leaks(text, checked), [])

    def test_the_check_finds_every_solution_line_in_the_instructor_edition(self):
        # The instructor edition prints the reference kernels whole: the same check, run on it,
        # must find every line, in each format. So the test above can fail.
        out = generated()
        ran_ok(self, "instructor")
        checked, _ = solution_lines()
        found = texts(out / "instructor", handout.CHAPTER_STEM)
        if "pdf" not in found:
            print("note: pdftotext is missing: the PDFs' text is not checked", file=sys.stderr)
        for fmt, text in found.items():
            with self.subTest(format=fmt):
                self.assertEqual(sorted(checked - set(leaks(text, checked))), [])


# ---------------------------------------------------------------- the answer key

def _cells(line):
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def key_rows_markdown(text):
    """[(section, question id, answer text)] from the answer-key tables of a Markdown handout."""
    rows = []
    for line in text.splitlines():
        cells = _cells(line) if line.startswith("|") else []
        if len(cells) == 5 and re.fullmatch(r"\d+\.\d+", cells[0]) and cells[1].startswith("`"):
            rows.append((cells[0], cells[1].strip("`"), re.sub(r"\\(.)", r"\1", cells[3])))
    return rows


def key_rows_html(page):
    _, rows = html_text(page)
    return [(r[0], r[1], r[3]) for r in rows if len(r) == 5 and re.fullmatch(r"\d+\.\d+", r[0])]


def key_problems(rows, chapter=CHAPTER, params_for=handout.same_params):
    """What differs between the key's rows and Question.expected(), the grader's values; every
    question of every section must be there exactly once."""
    problems = []
    seen = {}
    for section, qid, answer in rows:
        seen[(section, qid)] = seen.get((section, qid), 0) + 1
    for s in chapter.sections:
        for q in chapter.questions(s.id):
            q = dataclasses.replace(q, params=dict(params_for(q)))
            if seen.pop((s.id, q.id), 0) != 1:
                problems.append(f"{s.id} {q.id}: not in the key exactly once")
    problems += [f"{s} {q}: not a question" for s, q in seen]
    for section, qid, answer in rows:
        q = next((q for q in chapter.questions(section) if q.id == qid), None)
        if q is None:
            continue
        q = dataclasses.replace(q, params=dict(params_for(q)))
        expected = q.expected()
        expected = list(expected) if isinstance(expected, (list, tuple)) else [expected]
        shown = [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?", answer)]
        if len(shown) != len(expected) or any(abs(a - b) > 5e-7 + 1e-5 * abs(b) for a, b in zip(shown, expected)):
            problems.append(f"{section} {qid}: the key shows {answer!r}, the grader expects {expected}")
    return problems


class AnswerKeyTest(unittest.TestCase):
    def test_every_key_number_is_the_graders_expected_value_markdown(self):
        text = handout.render_markdown(CHAPTER, [s.id for s in CHAPTER.sections], "instructor", whole_chapter=True)
        rows = key_rows_markdown(text)
        self.assertEqual(len(rows), sum(len(CHAPTER.questions(s.id)) for s in CHAPTER.sections))
        self.assertEqual(key_problems(rows), [])

    def test_every_key_number_is_the_graders_expected_value_in_the_written_files(self):
        out = generated()
        ran_ok(self, "instructor")
        chapter_html = (out / "instructor" / f"{handout.CHAPTER_STEM}.html").read_text(encoding="utf-8")
        self.assertEqual(key_problems(key_rows_html(chapter_html)), [])
        chapter_md = (out / "instructor" / f"{handout.CHAPTER_STEM}.md").read_text(encoding="utf-8")
        self.assertEqual(key_problems(key_rows_markdown(chapter_md)), [])
        for s in CHAPTER.sections:  # each section's handout holds its own key, and only it
            rows = key_rows_html((out / "instructor" / f"{s.folder}.html").read_text(encoding="utf-8"))
            self.assertEqual({r[0] for r in rows} - {s.id}, set())
            self.assertEqual(len(rows), len(CHAPTER.questions(s.id)))

    def test_a_wrong_number_in_the_key_is_found(self):
        text = handout.render_markdown(CHAPTER, ["7.4"], "instructor")
        rows = key_rows_markdown(text)
        section, qid, answer = rows[0]
        tampered = [(section, qid, str(float(answer) + 0.01))] + rows[1:]
        self.assertTrue(any(qid in p for p in key_problems(tampered)))
        self.assertTrue(any("not in the key" in p for p in key_problems(rows[1:])))

    def test_the_working_ends_at_the_expected_value(self):
        for s in CHAPTER.sections:
            for q in CHAPTER.questions(s.id):
                value, lines = handout.working(CHAPTER, q)
                self.assertEqual(value, q.expected(), f"{s.id} {q.id}")
                self.assertTrue(lines[-1].startswith("answer: "))

    def test_the_student_edition_has_no_key(self):
        text = handout.render_markdown(CHAPTER, [s.id for s in CHAPTER.sections], "student", whole_chapter=True)
        self.assertEqual(key_rows_markdown(text), [])


# ---------------------------------------------------------------- content and rendering

class ContentTest(unittest.TestCase):
    def test_the_lesson_is_render_lesson_s_text(self):
        for s in CHAPTER.sections:
            lesson = render_lesson(CHAPTER, s.id).strip().splitlines()
            body = "\n".join(lesson[1:] if lesson[0].startswith("# ") else lesson).strip()
            self.assertIn(body, handout.render_markdown(CHAPTER, [s.id], "student"), s.id)

    def test_questions_take_their_parameters_from_params_for(self):
        q = next(q for q in CHAPTER.questions("7.4") if q.id == "exercise7_blocks")
        doubled = {**q.params, "n": q.params["n"] * 2}

        def params_for(question):
            return doubled if question.id == q.id and question.section_id == "7.4" else question.params

        text = handout.render_markdown(CHAPTER, ["7.4"], "instructor", params_for)
        self.assertIn(f"n = {doubled['n']}", text)
        self.assertEqual(key_problems([r for r in key_rows_markdown(text)],
                                      chapter=_only(CHAPTER, "7.4"), params_for=params_for), [])
        self.assertNotEqual(dataclasses.replace(q, params=doubled).expected(), q.expected())

    def test_errata_name_real_sections_and_appear_in_the_instructor_edition_only(self):
        errata = handout.load_errata(CHAPTER)
        self.assertGreaterEqual(len(errata), 8)
        for e in errata:
            s = CHAPTER.section(e["section"])
            instructor = handout.render_markdown(CHAPTER, [s.id], "instructor")
            self.assertIn(e["where"], instructor)
            self.assertNotIn(e["where"], handout.render_markdown(CHAPTER, [s.id], "student"))
            self.assertNotIn("{{", instructor)

    def test_common_mistakes_are_the_known_wrong_kernels(self):
        from halo.core import wrong_kernels
        for s in CHAPTER.sections:
            text = handout.render_markdown(CHAPTER, [s.id], "instructor")
            for w in wrong_kernels.load(REPO_ROOT, s):
                self.assertIn(handout.md_text(w.name), text, f"{s.id}: {w.name}")

    def test_text_is_never_markup(self):
        page = handout.to_html("A <b>bold</b> claim & `x < y`; " + handout.md_text("__syncthreads() [8, 21] a*b*c"),
                               "t <i>", "student")
        self.assertNotIn("<b>bold", page)
        self.assertIn("&lt;b&gt;bold&lt;/b&gt;", page)
        self.assertIn("<title>t &lt;i&gt;</title>", page)
        self.assertIn("__syncthreads() [8, 21] a*b*c", html_text(page)[0])
        self.assertNotIn("<strong>", page)
        self.assertNotIn("<em>", page)


def _only(chapter, section_id):
    """A view of the chapter with one section, for key_problems."""
    view = object.__new__(type(chapter))
    view.__dict__.update(chapter.__dict__)
    view.sections = [chapter.section(section_id)]
    return view


if __name__ == "__main__":
    unittest.main()
