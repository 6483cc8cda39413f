"""The docs site (`./workbook docs`): both editions build with `mkdocs build --strict` in well
under a minute without touching docs/ or chapters/; a broken link fails the build; the student
edition holds no line of any SOLUTION region while the instructor edition holds them all; the
numbers of each lesson page are render_lesson's and the instructor's key is Question.expected();
the hints unfold; the figures are SVG; the sidebar reads as a course (lessons first, every
measured result behind one Results page) and the home page's commands are the README's; and,
where Chromium can be installed, every lesson page loads in headless Chromium with no console
message, no missing image and no 404."""
import atexit
import hashlib
import html.parser
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import urljoin, urlparse

from halo.site import docs_site, home_page, results_page
from halo.core import pydeps
from halo.core.chapter_data import load_chapter
from halo.core.lesson import render_lesson
from tests.headless_browser import HeadlessBrowser
from tests.helpers import REPO_ROOT
from tests.test_handout import html_text, key_problems, leaks, solution_lines

CHAPTER = load_chapter(REPO_ROOT)
SCREENSHOTS = REPO_ROOT / "build" / "site-screenshots"
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def setUpModule():
    if not docs_site.ensure_dependencies():
        raise unittest.SkipTest("MkDocs and mkdocs-material cannot be installed (see the message above)")


def _tree_hash(*folders):
    h = hashlib.sha256()
    for folder in folders:
        for p in sorted(folder.rglob("*")):
            if p.is_file() and "__pycache__" not in p.parts:
                h.update(str(p.relative_to(REPO_ROOT)).encode())
                h.update(p.read_bytes())
    return h.hexdigest()


_RUN = {}


def built():
    """{edition: (exit status, output, seconds, site folder)} of `./workbook docs`, run once."""
    if not _RUN:
        out = Path(tempfile.mkdtemp(prefix="halo-site-"))
        atexit.register(shutil.rmtree, out, True)
        for edition in docs_site.EDITIONS:  # the source trees these builds write under build/
            atexit.register(shutil.rmtree, docs_site.source_dir(REPO_ROOT, edition, out / edition), True)
        before = _tree_hash(REPO_ROOT / "docs", REPO_ROOT / "chapters")
        for edition in docs_site.EDITIONS:
            site = out / edition
            start = time.monotonic()
            p = subprocess.run([sys.executable, str(REPO_ROOT / "workbook"), "docs", "--output", str(site)]
                               + (["--instructor"] if edition == "instructor" else []),
                               capture_output=True, text=True, timeout=600)
            _RUN[edition] = (p.returncode, p.stdout + p.stderr, time.monotonic() - start, site)
        _RUN["sources_unchanged"] = before == _tree_hash(REPO_ROOT / "docs", REPO_ROOT / "chapters")
    return _RUN


def site(test, edition):
    status, output, _, folder = built()[edition]
    test.assertEqual(status, 0, f"./workbook docs ({edition}) failed:\n{output}")
    return folder


def source(edition):
    """The MkDocs source tree the last build of `edition` wrote (build/docs-site/<edition>/docs)."""
    return docs_site.source_dir(REPO_ROOT, edition, built()[edition][3]) / "docs"


def nav(edition):
    return json.loads((source(edition).parent / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]


def nav_pages(edition):
    """[(title, page)] of the sidebar, top to bottom, sections opened."""
    def walk(items):
        for item in items:
            for title, value in item.items():
                yield from (walk(value) if isinstance(value, list) else [(title, value)])
    return list(walk(nav(edition)))


def lesson_html(test, edition, section):
    return (site(test, edition) / docs_site.LESSONS / f"{section.folder}.html").read_text(encoding="utf-8")


def site_text(folder):
    """All text a reader of the site can reach: every page's text and the search index's."""
    parts = [html_text(p.read_text(encoding="utf-8"))[0] for p in sorted(folder.rglob("*.html"))]
    index = folder / "search" / "search_index.json"
    if index.exists():
        for doc in json.loads(index.read_text(encoding="utf-8")).get("docs", []):
            parts += [doc.get("title", ""), html_text(doc.get("text", ""))[0]]
    parts += [p.read_text(encoding="utf-8") for p in sorted(folder.rglob("*.svg"))]
    return "\n".join(parts)


# ---------------------------------------------------------------- the command

class BuildTest(unittest.TestCase):
    def test_both_editions_build_strictly_fast_and_leave_the_sources_alone(self):
        for edition in docs_site.EDITIONS:
            status, output, seconds, folder = built()[edition]
            with self.subTest(edition=edition):
                self.assertEqual(status, 0, output)
                self.assertNotIn("WARNING", output)
                self.assertLess(seconds, 60, f"the {edition} build took {seconds:.0f} s")
                self.assertTrue((folder / "index.html").is_file())
                self.assertTrue((folder / "errata.html").is_file())
                for s in CHAPTER.sections:
                    self.assertTrue((folder / docs_site.LESSONS / f"{s.folder}.html").is_file(), s.folder)
        self.assertTrue(built()["sources_unchanged"], "building the site changed docs/ or chapters/")

    def test_the_nav_has_every_lesson_in_manifest_order(self):
        site(self, "student")
        config = json.loads((source("student").parent / "mkdocs.yml").read_text(encoding="utf-8"))
        lessons = next(item["Lessons"] for item in config["nav"] if "Lessons" in item)
        self.assertEqual([list(x.values())[0] for x in lessons],
                         [f"{docs_site.LESSONS}/{s.folder}.md" for s in CHAPTER.sections])

    def test_the_nav_has_the_instructor_guide(self):
        for edition in docs_site.EDITIONS:
            site(self, edition)
            self.assertIn(("Instructor guide", "instructor.md"), nav_pages(edition), edition)
            self.assertTrue((built()[edition][3] / "instructor.html").is_file())
        page = html_text((built()["student"][3] / "instructor.html").read_text(encoding="utf-8"))[0]
        self.assertIn("Grading a whole class", page)

    def test_a_broken_link_fails_the_build(self):
        # A copy of the sources with one broken link: --strict must refuse it, so the
        # builds above prove something.
        root = Path(tempfile.mkdtemp(prefix="halo-site-broken-"))
        self.addCleanup(shutil.rmtree, root, True)
        for tree in ("chapters", "docs", "solutions"):
            shutil.copytree(REPO_ROOT / tree, root / tree)
        shutil.copy(REPO_ROOT / "README.md", root)  # the home page shows a section of it
        with open(root / "docs" / "student.md", "a", encoding="utf-8") as f:
            f.write("\nSee [a page that is not there](no-such-page.md).\n")
        with self.assertRaises(docs_site.DocsError) as caught:
            docs_site.build(root, load_chapter(root), "student", root / "build" / "site", quiet=True)
        self.assertIn("no-such-page.md", str(caught.exception))

    def test_an_output_folder_inside_the_sources_is_refused(self):
        for tree in ("docs", "chapters", "exercises"):
            with self.subTest(tree=tree), self.assertRaises(docs_site.DocsError):
                docs_site.build(REPO_ROOT, CHAPTER, "student", REPO_ROOT / tree / "site", quiet=True)

    def test_every_figure_is_well_formed_svg_and_shown(self):
        folder = site(self, "student")
        svgs = sorted((folder / docs_site.FIGURES).glob("*.svg"))
        names = {p.name for p in svgs}
        self.assertTrue({"tiles-7.2.svg", "tiles-7.4.svg", "tiles-7.5.svg", "reduction-ratio-7.6.svg",
                         "tiles-2d-7.6.svg", "tiles-2d-7.8.svg", "tiles-2d-7.9.svg",
                         "gpu-bandwidth-fractions.svg"} <= names, names)
        pages = "\n".join(p.read_text(encoding="utf-8") for p in folder.rglob("*.html"))
        for p in svgs:
            with self.subTest(svg=p.name):
                self.assertTrue(ET.parse(p).getroot().tag.endswith("svg"))
                self.assertIn(f"{docs_site.FIGURES}/{p.name}", pages)

    def test_each_measured_heat_map_is_on_its_lesson_page(self):
        from halo.site.figures_heatmap import heatmap_entries, heatmap_slug
        folder = site(self, "student")
        entries = heatmap_entries(REPO_ROOT / docs_site.HEATMAPS)
        self.assertGreaterEqual(len(entries), 5)
        for e in entries:
            with self.subTest(kernel=e["kernel"]):
                page = folder / docs_site.LESSONS / f"{CHAPTER.section(e['section']).folder}.html"
                self.assertIn(f"{docs_site.FIGURES}/{heatmap_slug(e)}.svg", page.read_text(encoding="utf-8"))


# ---------------------------------------------------------------- the site reads as a course

class _Article(html.parser.HTMLParser):
    """What a page's own content (Material's <article>, not the sidebar) shows, in order:
    [("h2", text)], [("a", href)] and [("pre", text)] events."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.events, self._depth, self._open = [], 0, None

    def handle_starttag(self, tag, attrs):
        if tag == "article":
            self._depth += 1
        elif self._depth and tag in ("h2", "pre") and self._open is None:
            self._open = [tag, ""]
        elif self._depth and tag == "a" and self._open is None and dict(attrs).get("href"):
            self.events.append(("a", dict(attrs)["href"]))

    def handle_endtag(self, tag):
        if tag == "article":
            self._depth -= 1
        elif self._open and tag == self._open[0]:
            self.events.append((tag, self._open[1].replace("\u00b6", "").strip()))  # the heading's permalink
            self._open = None

    def handle_data(self, data):
        if self._open:
            self._open[1] += data


def article(folder, page):
    parser = _Article()
    parser.feed((folder / page).read_text(encoding="utf-8"))
    return parser.events


README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")


def readme_sections_in_order():
    """The sections of the README's table of sections ('| 7.2 basic 1D | ...'), top to bottom."""
    return re.findall(r"^\| (7\.\d+) ", README, re.M)


def readme_commands():
    """The lines of the code block of the README's 'Two commands'."""
    section = home_page.readme_section(README, "Two commands")
    assert section and "```sh\n" in section, "README.md has no '## Two commands' section with a sh block"
    block = section.split("```sh\n", 1)[1].split("```", 1)[0]
    return [" ".join(line.split()) for line in block.splitlines() if line.strip()]


class CourseOrderTest(unittest.TestCase):
    """The sidebar reads as a course: home, the lessons in the order of the README and the chapter,
    then the guides and reference; the measured results behind one Results page."""

    def test_the_sidebar_opens_with_the_lessons_in_the_readme_s_order(self):
        self.assertEqual(readme_sections_in_order(), [s.id for s in CHAPTER.sections])
        for edition in docs_site.EDITIONS:
            site(self, edition)
            with self.subTest(edition=edition):
                self.assertEqual(nav(edition)[0], {"Home": "index.md"})
                self.assertEqual(list(nav(edition)[1]), ["Lessons"], "the lessons are not the sidebar's first section")
                pages = [page for _, page in nav_pages(edition)]
                lessons = [p for p in pages if p.startswith(docs_site.LESSONS + "/")]
                self.assertEqual(lessons, [f"{docs_site.LESSONS}/{CHAPTER.section(i).folder}.md"
                                           for i in readme_sections_in_order()])
                self.assertEqual(pages[1:1 + len(lessons)], lessons, "a page comes between Home and the lessons")
                for reference in ("getting-started.md", "student.md", "grader.md", "diagnostics.md", "platforms.md",
                                  "errata.md"):
                    self.assertIn(reference, pages[1 + len(lessons):])

    def test_no_results_page_is_in_the_sidebar_but_the_results_page(self):
        for edition in docs_site.EDITIONS:
            site(self, edition)
            with self.subTest(edition=edition):
                results = [(t, p) for t, p in nav_pages(edition) if p.startswith("results/")]
                self.assertEqual(results, [("Results", "results/index.md")])
                self.assertEqual(nav(edition)[-1], {"Results": "results/index.md"})

    def test_the_results_page_links_every_results_page_once_in_its_group(self):
        folder = site(self, "student")
        events = article(folder, "results/index.html")
        group, links = None, []
        for kind, value in events:
            if kind == "h2":
                group = value
            elif kind == "a" and not urlparse(value).scheme and not value.startswith("#"):
                links.append((group, value))
        pages = sorted(p for p in (REPO_ROOT / "docs" / "results").glob("*.md"))
        self.assertGreaterEqual(len(pages), 15)
        self.assertEqual(sorted(href for _, href in links), sorted(f"{p.stem}.html" for p in pages))
        for _, href in links:
            self.assertTrue((folder / "results" / href).is_file(), href)
        headings = [v for k, v in events if k == "h2"]
        self.assertEqual(headings, [g[0] for g in results_page.RESULT_GROUPS],
                         "the groups are not those of RESULT_GROUPS (a page under "
                         f"'{results_page.OTHER[0]}' needs a group: add its name to RESULT_GROUPS)")
        where = dict((href, g) for g, href in links)
        for page, expected in (("grade-loop-times", "The CPU backend"), ("cpu-vs-numba-sim", "The CPU backend"),
                               ("gpu-bench-h100", "On a GPU"), ("dialect-gpu-h200", "On a GPU"),
                               ("grade-class-times", "Course operations"), ("gradescope-limits", "Course operations"),
                               ("arm64-qemu", "Platforms"), ("container", "Platforms")):
            self.assertEqual(where[f"{page}.html"], expected, page)
        # and each results page leads back to it
        for p in pages:
            self.assertIn(("a", "index.html"), article(folder, f"results/{p.stem}.html"), p.name)

    def test_a_results_page_that_fits_no_group_is_still_listed(self):
        root = Path(tempfile.mkdtemp(prefix="halo-results-"))
        self.addCleanup(shutil.rmtree, root, True)
        (root / results_page.RESULTS).mkdir(parents=True)
        for name in ("gpu-bench-x.md", "new-kind-of-run.md"):
            (root / results_page.RESULTS / name).write_text(f"# Title of {name}\n", encoding="utf-8")
        page = results_page.results_index(root, {}, lambda *a: "")
        self.assertIn("## On a GPU\n", page)
        self.assertIn(f"## {results_page.OTHER[0]}\n", page)
        self.assertIn("- [Title of new-kind-of-run.md](new-kind-of-run.md)", page.split(results_page.OTHER[0])[1])
        shutil.rmtree(root / results_page.RESULTS)  # a student release holds no docs/results/
        self.assertIn("holds no measured results", results_page.results_index(root, {}, lambda *a: ""))

    def test_the_home_page_shows_the_readme_s_two_commands(self):
        self.assertNotIn("./workbook grade  ", (REPO_ROOT / "docs" / "index.md").read_text(encoding="utf-8"),
                         "docs/index.md types the README's commands a second time")
        for edition in docs_site.EDITIONS:
            events = article(site(self, edition), "index.html")
            with self.subTest(edition=edition):
                heading = events.index(("h2", "Two commands"))
                block = next(v for k, v in events[heading:] if k == "pre")
                shown = [" ".join(line.split()) for line in block.splitlines() if line.strip()]
                self.assertEqual(shown, readme_commands())

    def test_the_home_page_takes_its_commands_from_the_readme(self):
        root = Path(tempfile.mkdtemp(prefix="halo-home-"))
        self.addCleanup(shutil.rmtree, root, True)
        index = (REPO_ROOT / "docs" / "index.md").read_text(encoding="utf-8")
        (root / "README.md").write_text(README.replace("./workbook check  ", "./workbook changed"), encoding="utf-8")
        page = home_page.fill(index, root, "", lambda text: text)
        self.assertIn("./workbook changed", page)
        # A release's own README has no such section: the home page sends the reader to it.
        (root / "README.md").write_text(README.replace("## Two commands", "## Commands"), encoding="utf-8")
        page = home_page.fill(index, root, "", lambda text: text)
        self.assertIn(home_page.MISSING, page)
        self.assertNotIn("<!-- README:", page)


# ---------------------------------------------------------------- no solution in the student build

class NoSolutionInStudentBuildTest(unittest.TestCase):
    def test_no_solution_line_in_the_student_site(self):
        checked, _ = solution_lines()
        self.assertGreaterEqual(len(checked), 100)
        self.assertEqual(leaks(site_text(site(self, "student")), checked), [])

    def test_the_check_finds_every_solution_line_in_the_instructor_site(self):
        checked, _ = solution_lines()
        text = site_text(site(self, "instructor"))
        self.assertEqual(sorted(checked - set(leaks(text, checked))), [])

    def test_the_student_site_has_no_answer_key(self):
        folder = site(self, "student")
        for s in CHAPTER.sections:
            page = lesson_html(self, "student", s)
            with self.subTest(section=s.id):
                self.assertNotIn("Answer key", page)
                self.assertNotIn("Reference kernels", page)
        self.assertFalse(any("solutions/" in p.read_text(encoding="utf-8") for p in folder.rglob("*.svg")))


# ---------------------------------------------------------------- numbers

def _region(text, begin, end):
    return text.split(begin, 1)[1].split(end, 1)[0]


def _without_figures(text):
    return re.sub(re.escape(docs_site.FIGURE_BEGIN) + r".*?" + re.escape(docs_site.FIGURE_END), "", text, flags=re.S)


class NumbersTest(unittest.TestCase):
    def test_each_lesson_page_has_render_lesson_s_numbers(self):
        for edition in docs_site.EDITIONS:
            site(self, edition)
            for s in CHAPTER.sections:
                with self.subTest(edition=edition, section=s.id):
                    page = (source(edition) / docs_site.LESSONS / f"{s.folder}.md").read_text(encoding="utf-8")
                    lesson = _without_figures(_region(page, docs_site.LESSON_BEGIN, docs_site.LESSON_END))
                    self.assertEqual(NUMBER.findall(lesson), NUMBER.findall(render_lesson(CHAPTER, s.id)))

    def test_the_built_page_shows_every_number_of_the_lesson(self):
        for s in CHAPTER.sections:
            shown = html_text(lesson_html(self, "student", s))[0]
            with self.subTest(section=s.id):
                missing = [n for n in set(NUMBER.findall(render_lesson(CHAPTER, s.id)))
                           if not re.search(r"(?<![\d.])" + re.escape(n) + r"(?![\d])", shown)]
                self.assertEqual(missing, [])

    def _key_rows(self, edition):
        rows = []
        for s in CHAPTER.sections:
            _, cells = html_text(lesson_html(self, edition, s))
            rows += [(r[0], r[1], r[2]) for r in cells if len(r) == 4 and r[0] == s.id]
        return rows

    def test_the_instructor_key_is_the_graders_expected_value(self):
        rows = self._key_rows("instructor")
        self.assertEqual(len(rows), sum(len(CHAPTER.questions(s.id)) for s in CHAPTER.sections))
        self.assertEqual(key_problems(rows), [])

    def test_a_wrong_key_number_would_be_found(self):
        rows = self._key_rows("instructor")
        section, qid, answer = rows[0]
        self.assertNotEqual(key_problems([(section, qid, answer + "1")] + rows[1:]), [])

    def _ratio_cells(self, edition):
        page = (source(edition) / docs_site.LESSONS / f"{CHAPTER.section(docs_site.RATIO_SECTION).folder}.md"
                ).read_text(encoding="utf-8")
        out = {}
        lines = [line for line in page.splitlines() if line.startswith("| ")]
        masks = [int(m) for m in re.findall(r"Mask_Width = (\d+)", lines[0])]
        for line in lines[1:]:
            cells = [c.strip() for c in line.strip("|").split("|")]
            if cells[0].isdigit():
                for m, v in zip(masks, cells[1:]):
                    out[(int(cells[0]), m)] = float(v)
        return out

    def test_the_instructor_ratio_table_is_the_answer_key(self):
        site(self, "instructor")
        cells = self._ratio_cells("instructor")
        asked = {(q.params["T"], q.params["Mask_Width"]): q.expected() for q in CHAPTER.questions(docs_site.RATIO_SECTION)
                 if q.answer_expr.startswith(docs_site.RATIO_FORMULA) and "width" not in q.params}
        self.assertEqual(set(cells), set(asked))
        for k, v in asked.items():
            self.assertAlmostEqual(cells[k], v, delta=5e-7 + 1e-6 * v, msg=str(k))

    def test_the_student_ratio_chart_gives_no_answer_away(self):
        site(self, "student")
        cells = self._ratio_cells("student")
        self.assertEqual(len(cells), len(docs_site.RATIO_TILES) * len(docs_site.RATIO_MASKS_STUDENT))
        for (t, m), v in cells.items():
            self.assertAlmostEqual(v, CHAPTER.call(docs_site.RATIO_FORMULA, t, m), delta=1e-6 * v)
        asked = {(q.params.get("T"), q.params.get("Mask_Width")) for q in CHAPTER.questions(docs_site.RATIO_SECTION)}
        self.assertEqual(set(cells) & asked, set(), "the student chart shows ratios the questions ask for")


# ---------------------------------------------------------------- 2D tile figures

def _svg_numbers(svg_text):
    """The numbers a reader sees in an SVG: those of its text elements, title and desc."""
    root = ET.fromstring(svg_text)
    text = " ".join("".join(e.itertext()) for e in root.iter() if e.tag.split("}")[-1] in ("text", "title", "desc"))
    return text, {float(n) for n in NUMBER.findall(text)}


def _given(section_id):
    """The numbers a student reads anyway: the lesson's and the questions' texts."""
    text = render_lesson(CHAPTER, section_id) + " ".join(q.text() for q in CHAPTER.questions(section_id))
    return {round(float(n), 6) for n in NUMBER.findall(text)}


def _keys(section_id):
    """The section's answers that the student does not read anyway (7.6's ratio at T = 16,
    Mask_Width = 5 is 16, which is also O_TILE_WIDTH)."""
    out = set()
    for q in CHAPTER.questions(section_id):
        v = q.expected()
        out |= {round(float(x), 6) for x in (v if isinstance(v, (list, tuple)) else [v])}
    return out - _given(section_id)


class TileFigures2DTest(unittest.TestCase):
    def test_each_2d_lesson_embeds_its_tile_figure(self):
        for edition in docs_site.EDITIONS:
            for sid in docs_site.TILE_2D_FIGURES:
                s = CHAPTER.section(sid)
                with self.subTest(edition=edition, section=sid):
                    svg = site(self, edition) / docs_site.FIGURES / f"tiles-2d-{sid}.svg"
                    self.assertTrue(ET.parse(svg).getroot().tag.endswith("svg"))
                    self.assertIn(f"../{docs_site.FIGURES}/tiles-2d-{sid}.svg", lesson_html(self, edition, s))
                    page = (source(edition) / docs_site.LESSONS / f"{s.folder}.md").read_text(encoding="utf-8")
                    _, heading = docs_site.TILE_2D_FIGURES[sid]
                    self.assertLess(page.index(f"tiles-2d-{sid}.svg"), page.index(heading))

    def test_the_sizes_come_from_the_chapter_data(self):
        d = CHAPTER.define_values()
        f76 = CHAPTER.measurements["ratio_2d_t16_m5"].fields
        f78 = CHAPTER.measurements["tiled_2d_large"].fields
        f79 = CHAPTER.measurements["sol_loads_large"].fields
        r78, r79 = CHAPTER.call("radius", f78["Mask_Width"]), CHAPTER.call("radius", f79["Mask_Width"])
        expected = {
            "7.6": [f"O_TILE_WIDTH = {docs_site._fmt(f76['T'])}",
                    f"BLOCK_WIDTH = {docs_site._fmt(CHAPTER.call('tiled_2d_block_width', f76['T'], f76['Mask_Width']))}",
                    f"width = {docs_site._fmt(f76['width'])}"],
            "7.8": [f"IN_TILE_DIM = {docs_site._fmt(d['IN_TILE_DIM'])}",
                    f"OUT_TILE_DIM = {docs_site._fmt(CHAPTER.call('tiled_in_2d_out_tile_dim', d['IN_TILE_DIM'], r78))}"],
            "7.9": [f"{docs_site._fmt(CHAPTER.call('sol_tile_width', d['SOL_BLOCK_X']))} output columns",
                    f"+ {docs_site._fmt(CHAPTER.call('sol_halo_columns', r79))} halo columns",
                    f"{docs_site._fmt(d['SOL_ROWS_PER_THREAD'])} rows"],
        }
        for sid, needles in expected.items():
            text, _ = _svg_numbers(docs_site.tile_2d_figure(CHAPTER, sid, "student")[0])
            for needle in needles:
                with self.subTest(section=sid, needle=needle):
                    self.assertIn(needle, text)
        # the input tile's drawn width is the formula's: BLOCK_WIDTH cells of 11 px
        svg = docs_site.tile_2d_figure(CHAPTER, "7.6", "student")[0]
        bw = CHAPTER.call("tiled_2d_block_width", f76["T"], f76["Mask_Width"])
        self.assertIn(f"width='{bw * 11:.1f}'", svg)

    def test_the_student_figures_state_no_answer(self):
        # Every number of a student figure is checked against every key of its section: none may
        # show; the instructor figure states the load counts, which are formula values.
        for sid in docs_site.TILE_2D_FIGURES:
            with self.subTest(section=sid):
                _, student = _svg_numbers(docs_site.tile_2d_figure(CHAPTER, sid, "student")[0])
                _, instructor = _svg_numbers(docs_site.tile_2d_figure(CHAPTER, sid, "instructor")[0])
                keys = _keys(sid)
                self.assertEqual({round(n, 6) for n in student} & keys, set())
                self.assertGreater(len(instructor - student), 0)

    def test_a_figure_with_an_answer_would_be_found(self):
        sid = "7.9"
        key = CHAPTER.questions(sid)[3].expected()  # loads_internal_block
        _, numbers = _svg_numbers(docs_site.tile_2d_figure(CHAPTER, sid, "instructor")[0])
        self.assertIn(round(float(key), 6), {round(n, 6) for n in numbers})


# ---------------------------------------------------------------- errata

class ErrataTest(unittest.TestCase):
    def test_every_entry_is_confirmed_by_something_the_grader_checks_and_the_names_resolve(self):
        from halo.course import handout
        from halo.core import wrong_kernels
        entries = handout.load_errata(CHAPTER)
        self.assertGreaterEqual(len(entries), 10)
        for e in entries:
            with self.subTest(where=e["where"]):
                self.assertTrue(e["confirmed_by"], "an erratum the grader does not confirm")
                self.assertTrue(e["corrected"], "an erratum without corrected code")
                context = docs_site.lesson_context(CHAPTER, CHAPTER.section(e["section"]).id)
                resolved = handout.confirmations(CHAPTER, e, context, "instructor")  # raises when a name is unknown
                self.assertEqual(len(resolved), len(e["confirmed_by"]))
                for c in e["confirmed_by"]:
                    s = CHAPTER.section(c["section"])
                    if c["kind"] == "wrong_kernel":
                        self.assertIn(c["name"], [w.name for w in wrong_kernels.load(REPO_ROOT, s)])
                    elif c["kind"] == "question":
                        self.assertIn(c["name"], [q.id for q in CHAPTER.questions(s.id)])
                    else:
                        sources = "".join(p.read_text() for p in (REPO_ROOT / "grader" / "sections" / s.folder).glob("*.c*"))
                        self.assertIn(f'TEST_CASE("{c["name"]}"', sources)

    def test_an_unknown_wrong_kernel_is_refused(self):
        from halo.course import handout
        e = dict(handout.load_errata(CHAPTER)[1])
        e["confirmed_by"] = [dict(e["confirmed_by"][0], name="no such mistake")]
        with self.assertRaises(handout.HandoutError) as caught:
            handout.confirmations(CHAPTER, e, docs_site.lesson_context(CHAPTER, e["section"]), "student")
        self.assertIn("no such mistake", str(caught.exception))

    def test_the_errata_page_shows_book_correction_code_and_confirmation(self):
        from halo.course import handout
        for edition in docs_site.EDITIONS:
            page = html_text((site(self, edition) / "errata.html").read_text(encoding="utf-8"))[0]
            for e in handout.load_errata(CHAPTER):
                with self.subTest(edition=edition, where=e["where"]):
                    self.assertIn(e["where"], page)
                    for c in e["confirmed_by"]:
                        self.assertIn(c["name"], page)
            self.assertEqual(len(re.findall(r"Confirmed by\s+the", page)),
                             sum(len(e["confirmed_by"]) for e in handout.load_errata(CHAPTER)))
            self.assertIn("write to an input: write to N[row 0][col 0]", page)  # a real run, docs/diagnostics.md
        # the corrected code: in the instructor edition whole; in the student edition only where it
        # holds no line of a SOLUTION region
        instructor = (source("instructor") / "errata.md").read_text(encoding="utf-8")
        student = (source("student") / "errata.md").read_text(encoding="utf-8")
        for e in handout.load_errata(CHAPTER):
            plain = [line.strip() for line in e["corrected"].splitlines() if "{{" not in line]
            self.assertIn(plain[-1], instructor)
        self.assertIn("is part of this section's exercise", student)
        self.assertIn("int tileRow = int(threadIdx.y) - r + fRow;", student)

    def test_the_student_errata_page_gives_no_answer_away(self):
        from halo.course import handout
        student = (source("student") / "errata.md").read_text(encoding="utf-8")
        instructor = (source("instructor") / "errata.md").read_text(encoding="utf-8")
        asked = set()
        for e in handout.load_errata(CHAPTER):
            sid = CHAPTER.section(e["section"]).id
            texts = e["book"] + e["correction"] + "".join(c["note"] for c in e["confirmed_by"])
            ids = set(re.findall(r"\{\{\s*key\.(\w+)\s*\}\}", texts))
            ids |= {c["name"] for c in e["confirmed_by"] if c["kind"] == "question" and c["section"] in (sid, e["section"])}
            for q in CHAPTER.questions(sid):
                if q.id in ids and round(float(q.expected()), 6) in _keys(sid):
                    asked.add(docs_site._fmt(q.expected()))
        self.assertGreaterEqual(len(asked), 5)
        # The grader's real output quoted from docs/diagnostics.md (a page of the student site too)
        # is about a wrong kernel on small random inputs; its numbers answer no question.
        quoted = re.compile(r'^\?\?\?\+? example "What the grader prints \(a real run.*?\n(?:(?:    .*)?\n)*', re.M)
        student_own = quoted.sub("", student)
        self.assertLess(len(student_own), len(student), "no real run was quoted: the check below proves less")
        for value in asked:
            with self.subTest(value=value):
                pattern = r"(?<![\d.])" + re.escape(value) + r"(?![\d])"
                self.assertIsNone(re.search(pattern, student_own), f"{value} is on the student errata page")
                self.assertIsNotNone(re.search(pattern, instructor), f"{value} is not in the instructor key")


# ---------------------------------------------------------------- hints

class _Details(html.parser.HTMLParser):
    """[(open attribute present, summary text, body text)] of each <details> of a page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found, self._open, self._in_summary = [], 0, False

    def handle_starttag(self, tag, attrs):
        if tag == "details":
            self._open += 1
            self.found.append([("open" in dict(attrs)), "", ""])
        elif tag == "summary" and self._open:
            self._in_summary = True

    def handle_endtag(self, tag):
        if tag == "summary":
            self._in_summary = False
        elif tag == "details":
            self._open -= 1

    def handle_data(self, data):
        if self._open:
            self.found[-1][1 if self._in_summary else 2] += data


class HintsTest(unittest.TestCase):
    def test_each_hint_is_a_closed_block_in_order(self):
        for s in CHAPTER.sections:
            parser = _Details()
            parser.feed(lesson_html(self, "student", s))
            hints = [d for d in parser.found if d[1].strip().startswith("Hint ")]
            with self.subTest(section=s.id):
                self.assertEqual([d[1].strip() for d in hints], [f"Hint {k}" for k in range(1, len(s.hints) + 1)])
                self.assertFalse(any(d[0] for d in hints), "a hint is open before it is asked for")
                for d, hint in zip(hints, s.hints):
                    self.assertEqual(" ".join(d[2].split()), " ".join(hint.split()))


# ---------------------------------------------------------------- headless Chromium

def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Images(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.sources = []

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.sources.append(dict(attrs).get("src", ""))


def _chromium():
    for name in ("chromium", "chromium-browser"):
        if shutil.which(name):
            return shutil.which(name)
    return None


CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
                  "--disable-extensions", "--enable-logging=stderr", "--v=0"]


class BrowserTest(unittest.TestCase):
    """Every lesson page in headless Chromium, served over HTTP the way `--serve` does."""

    @classmethod
    def setUpClass(cls):
        if not _chromium():
            pydeps.ensure_apt(["chromium"], "a headless browser for the docs site's test")
        if not _chromium():
            raise unittest.SkipTest("Chromium is not installed and cannot be installed here "
                                    "(Debian: apt-get install chromium)")

    def setUp(self):
        self.folder = site(self, "student")
        self.port = _free_port()
        self.log = tempfile.NamedTemporaryFile(prefix="halo-http-", suffix=".log", delete=False)
        self.addCleanup(os.unlink, self.log.name)
        self.server = subprocess.Popen([sys.executable, "-m", "http.server", str(self.port), "--bind", "127.0.0.1",
                                        "--directory", str(self.folder)], stdout=self.log, stderr=self.log)
        self.addCleanup(self.server.wait, 10)
        self.addCleanup(self.server.terminate)
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        self.profile = tempfile.mkdtemp(prefix="halo-chromium-")
        self.addCleanup(shutil.rmtree, self.profile, True)

    def url(self, page):
        return f"http://127.0.0.1:{self.port}/{page}"

    def browser(self):
        """One Chromium for every page of a test (tests/headless_browser.py), stopped after it."""
        stderr = Path(self.profile) / "chromium-stderr.log"
        b = HeadlessBrowser(_chromium(), CHROMIUM_FLAGS, self.profile, stderr)
        self.addCleanup(b.close)
        return b

    def test_every_lesson_page_loads_with_no_console_message_and_no_missing_image(self):
        pages = ["index.html", "errata.html", "results/index.html"] + \
                [f"{docs_site.LESSONS}/{s.folder}.html" for s in CHAPTER.sections]
        shown = 0
        browser = self.browser()
        for page in pages:
            with self.subTest(page=page):
                loaded = browser.load(self.url(page))
                self.assertIn("</html>", loaded.html)
                # What the browser complained of: console messages, uncaught exceptions, failed loads.
                self.assertEqual(loaded.complaints, [])
                images = _Images()
                images.feed(loaded.html)
                shown += len(images.sources)
                for src in images.sources:
                    target = urlparse(urljoin(self.url(page), src))
                    if target.scheme == "data":
                        continue
                    self.assertEqual(target.netloc, f"127.0.0.1:{self.port}", f"{src} is not in the site")
                    path = self.folder / target.path.lstrip("/")
                    self.assertTrue(path.is_file(), f"{page}: <img src={src!r}>: {path} is missing")
        self.assertGreaterEqual(shown, len(list((self.folder / docs_site.FIGURES).glob("*.svg"))))
        self.log.flush()
        misses = [line for line in Path(self.log.name).read_text().splitlines() if '" 404 ' in line]
        self.assertEqual(misses, [], "the pages asked the server for files it does not have")

    def test_a_page_that_complains_or_lacks_an_image_is_caught(self):
        """The control of the test above: a console message, an uncaught exception and an image
        the server does not have are each a complaint; a quiet page has none."""
        browser = self.browser()
        quiet = browser.load("data:text/html,<html><body><p>fine</p></body></html>")
        self.assertIn("<p>fine</p>", quiet.html)
        self.assertEqual(quiet.complaints, [])
        noisy = browser.load("data:text/html,<html><body><script>console.error('halo-warned');"
                             "throw new Error('halo-thrown')</script>"
                             f"<img src='{self.url('no-such-figure.svg')}'></body></html>")
        said = "\n".join(noisy.complaints)
        self.assertIn("console.error: halo-warned", said)
        self.assertIn("halo-thrown", said)
        self.assertIn("no-such-figure.svg", said)

    def test_screenshots_of_two_pages(self):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        browser = self.browser()
        for name, page in (("lesson-7.4.png", f"{docs_site.LESSONS}/{CHAPTER.section('7.4').folder}.html"),
                           ("results.png", "results/index.html")):
            shot = SCREENSHOTS / name
            if shot.exists():
                shot.unlink()
            with self.subTest(page=page):
                loaded = browser.screenshot(self.url(page), shot, 1280, 2400)
                self.assertEqual(loaded.complaints, [])
                self.assertTrue(shot.is_file())
                self.assertEqual(shot.read_bytes()[:8], b"\x89PNG\r\n\x1a\n")
                self.assertGreater(shot.stat().st_size, 20000)  # a blank page is a few KiB


if __name__ == "__main__":
    unittest.main()
