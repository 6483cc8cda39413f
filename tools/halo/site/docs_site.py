"""`./workbook docs`: the self-study site (MkDocs, Material theme), built from docs/ and chapters/.

Nothing under docs/ or chapters/ is edited: a MkDocs source tree is written afresh under
build/docs-site/<edition>/ and built from there:

- docs/*.md are copied as they are; the home page (index.md) gets the list of lessons and the
  README's own text where it names a README section (home_page.py);
- the sidebar holds the course: home, lessons, guides, reference, and one Results page
  (results_page.py) that leads to every page of docs/results/, grouped by what was measured;
- one page per section of chapters/manifest.toml: the lesson as `render_lesson` renders it (so
  every number comes from the formulas the grader checks with), a figure drawn from the
  section's own parameters, the questions (`Question.text()`), the hints as blocks that unfold
  one at a time, and where the exercise is;
- the book's errata (chapters/errata.toml), each under its section, with the corrected code and
  how the grader confirms it (the known-wrong kernel and its diagnostic, or the question and the
  loads measured at its launch);
- SVG figures (figures.py): 1D tiles with halo and ghost cells; the 2D input tiles of 7.6 (halo,
  ghost cells, pitch padding), 7.8 (IN_TILE_DIM / OUT_TILE_DIM) and 7.9 (the float4 tile); the
  2D reduction ratios; on the Results page, the GPU bandwidth fractions of
  docs/results/gpu-bench-h100.json. The student edition states no value a question asks for
  (formulas instead).

The instructor build (--instructor) adds each section's answer key (Question.expected(), with
its working) and reference kernels (solutions/<folder>/); the student build holds neither, and
a test proves no line of a SOLUTION region reaches it."""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from ..core import expressions as ex
from . import figures, home_page, results_page
from .lesson_figures import TILE_2D_FIGURES, TILE_FIGURES, _fmt, tile_2d_figure, tile_figure  # noqa: F401  (the site's API)
from ..core import pydeps, regions
from ..course.handout import HandoutError, fence, load_errata, md_text, render_errata_entry, working
from ..core.lesson import LessonError, lesson_context, render_lesson
from ..core.paths import is_inside
from ..core.sync import KERNEL_SUFFIXES

EDITIONS = ("student", "instructor")
# The major versions the site is written for (Material 9's admonitions and theme options).
PYTHON_DEPS = ["mkdocs>=1.6,<2", "mkdocs-material>=9.5,<10"]
DEFAULT_OUTPUT = {"student": Path("build") / "site", "instructor": Path("build") / "site-instructor"}
SOURCE = Path("build") / "docs-site"
LESSONS = "lessons"
FIGURES = "figures"

LESSON_BEGIN, LESSON_END = "<!-- lesson: begin -->", "<!-- lesson: end -->"


# The 2D reduction-ratio chart of 7.6 (the book's Figure 7.22). Its questions ask for the ratios
# at the masks of RATIO_MASKS_KEY, so the student build charts other masks: the trend without
# the answers; the instructor build charts the asked ones.
RATIO_SECTION, RATIO_FORMULA, RATIO_HEADING = "7.6", "tiled_2d_reduction_ratio", "## What the grader measures"
RATIO_TILES = (8, 16, 32, 64)
RATIO_MASKS_KEY = (5, 9)
RATIO_MASKS_STUDENT = (3, 7)


class DocsError(Exception):
    """What stops the site from being built; str() says why."""




def ensure_dependencies() -> bool:
    # The PyPI name is mkdocs-material, the module `material`: pydeps maps names it knows.
    return pydeps.ensure(PYTHON_DEPS)


# ---------------------------------------------------------------- links

_LINK = re.compile(r"(!?\[[^\]]*\])\(([^)\s]+)\)")


def rewrite_links(text: str, source_dir: str, site_path: str, root: Path) -> str:
    """Markdown links of a file that lived in `source_dir` (relative to the repository root),
    as seen from the site page `site_path`: a link into docs/ points at the copy in the site;
    a link to anything else in the repository becomes its path in code (the site does not hold
    it); URLs and in-page anchors stay."""
    def repl(m):
        label, target = m.group(1), m.group(2)
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            return m.group(0)
        path, _, anchor = target.partition("#")
        resolved = os.path.normpath(os.path.join(source_dir, path))
        if resolved.startswith("docs" + os.sep):  # a missing page stays a link: --strict names it
            rel = os.path.relpath(resolved[len("docs" + os.sep):], os.path.dirname(site_path) or ".")
            return f"{label}({rel}{'#' + anchor if anchor else ''})"
        if label.startswith("!"):
            raise DocsError(f"{source_dir}: image {target} is outside docs/; the site cannot show it")
        return f"{label[1:-1]} (`{resolved}`)" if label[1:-1].strip("`") != resolved else f"`{resolved}`"
    return _LINK.sub(repl, text)


# ---------------------------------------------------------------- figures

def ratio_table(chapter, edition: str) -> list:
    """[(T, Mask_Width, ratio)] of the 7.6 chart, from the formula the grader checks with."""
    masks = RATIO_MASKS_KEY if edition == "instructor" else RATIO_MASKS_STUDENT
    return [(t, m, chapter.call(RATIO_FORMULA, t, m)) for m in masks for t in RATIO_TILES]


def ratio_figure(chapter, edition: str):
    rows = ratio_table(chapter, edition)
    values = {(f"T = {t}", f"Mask_Width = {m}"): v for t, m, v in rows}
    svg = figures.grouped_bars("2D reduction ratio of the tiled kernel (internal tile)",
                               [f"T = {t}" for t in RATIO_TILES],
                               sorted({s for _, s in values}, key=lambda s: int(s.split()[-1])),
                               values, "reduction ratio")
    masks = sorted({m for _, m, _ in rows})
    table = ["| O_TILE_WIDTH (T) | " + " | ".join(f"Mask_Width = {m}" for m in masks) + " |",
             "|---|" + "---|" * len(masks)]
    for t in RATIO_TILES:
        table.append(f"| {t} | " + " | ".join(_fmt(v) for tt, m, v in rows if tt == t) + " |")
    note = ("" if edition == "instructor" else
            f" The questions ask for Mask_Width = {' and '.join(map(str, RATIO_MASKS_KEY))}: "
            "work those out yourself; this chart shows other masks.")
    caption = (f"`{RATIO_FORMULA}(T, Mask_Width)` = `{chapter.formulas[RATIO_FORMULA].expr.strip()}`, "
               f"evaluated by the grader's formula.{note}")
    return svg, caption, "\n".join(table)


FIGURE_BEGIN, FIGURE_END = "<!-- figure: begin -->", "<!-- figure: end -->"


def _figure_md(name: str, alt: str, caption: str, depth: int, extra: str = "") -> str:
    """A figure block; the markers let a test tell the lesson's text from what was added."""
    prefix = "../" * depth
    body = f"![{alt}]({prefix}{FIGURES}/{name})\n\n*{caption}*\n" + (f"\n{extra}\n" if extra else "")
    return f"{FIGURE_BEGIN}\n\n{body}\n{FIGURE_END}\n"


def _insert_before(text: str, heading: str, block: str) -> str:
    """`block` before the first line that is `heading`, else at the end."""
    lines = text.split("\n")
    for k, line in enumerate(lines):
        if line.strip() == heading:
            return "\n".join(lines[:k] + [block, ""] + lines[k:])
    return text.rstrip("\n") + "\n\n" + block


# ---------------------------------------------------------------- load heat maps

HEATMAPS = Path("docs") / "results" / "cpu-load-heatmaps.json"


def heatmap_blocks(chapter, section, figure_files: dict) -> list:
    """Markdown lines showing how many times each input element is read by this section's
    reference kernels, measured by the CPU backend (./workbook internal load-heatmaps), or []."""
    from .figures_heatmap import heatmap_entries, heatmap_slug, heatmap_svg
    path = chapter.root / HEATMAPS
    entries = [e for e in heatmap_entries(path) if e["section"] == section.id] if path.exists() else []
    if not entries:
        return []
    out = ["## How often each input element is read", "",
           "Measured by the CPU backend on the reference kernels (every load counted per element); the "
           "totals equal the chapter's formulas. Darker cells are read more often.", ""]
    for e in entries:
        name = heatmap_slug(e) + ".svg"
        figure_files[name] = heatmap_svg(e)
        size = f"{e['width']} x {e['height']}" if e.get("height", 1) > 1 else f"Width {e['width']}"
        caption = (f"`{e['kernel']}`: {size}, Mask_Width {e['mask']}; {e['total']:,} loads of "
                   f"{e.get('array', 'N')} in all")
        out.append(_figure_md(name, f"Loads per element of {e['kernel']}", caption, 1))
    return out


# ---------------------------------------------------------------- pages

def lesson_page(chapter, section, edition: str, figure_files: dict) -> str:
    """One section's page: lesson, figure, questions, hints, exercise; the key and references
    in the instructor edition. `figure_files` collects name -> SVG text."""
    root = chapter.root
    page = f"{LESSONS}/{section.folder}.md"
    try:
        lesson = render_lesson(chapter, section.id)
    except LessonError as e:
        raise DocsError(str(e)) from None
    lesson = rewrite_links(lesson, f"chapters/{section.folder}", page, root)
    if not lesson.lstrip().startswith("# "):
        lesson = f"# {section.id} {section.title}\n\n" + lesson
    for prefix, figure in (("tiles", tile_figure), ("tiles-2d", tile_2d_figure)):
        drawn = figure(chapter, section.id, edition)
        if drawn:
            svg, caption, heading = drawn
            name = f"{prefix}-{section.id}.svg"
            figure_files[name] = svg
            lesson = _insert_before(lesson, heading,
                                    _figure_md(name, f"Input and output tiles of section {section.id}", caption, 1))
    if section.id == RATIO_SECTION and RATIO_FORMULA in chapter.formulas:
        svg, caption, table = ratio_figure(chapter, edition)
        name = f"reduction-ratio-{section.id}.svg"
        figure_files[name] = svg
        block = _figure_md(name, "Reduction ratio by tile width and mask width", caption, 1, table)
        lesson = _insert_before(lesson, RATIO_HEADING, block)
    out = [LESSON_BEGIN, lesson.strip("\n"), LESSON_END, ""]
    out += heatmap_blocks(chapter, section, figure_files)

    questions = chapter.questions(section.id)
    answers_file = f"exercises/{section.folder}/answers.toml"
    if questions:
        out += ["## Questions", "",
                f"Answer in `{answers_file}` (numbers, not strings), then run `./workbook grade {section.id}`.", ""]
        for q in questions:
            out.append(f"- **`{q.id}`**: {md_text(' '.join(q.title.split()))}. {md_text(q.text())}")
        out.append("")
    if section.hints:
        out += ["## Hints", "", "Open one at a time; each points the way without giving code "
                "(`./workbook hint` reveals them in the terminal).", ""]
        for k, hint in enumerate(section.hints, 1):
            out += [f'??? note "Hint {k}"', "", "    " + md_text(" ".join(hint.split())), ""]
    out += ["## The exercise", ""]
    if section.kernels:
        for kernel in section.kernels:
            path = root / "exercises" / section.folder / kernel
            out.append(f"- Write the kernel in [`exercises/{section.folder}/{kernel}`]({path.resolve().as_uri()}).")
    out.append(f"- Answer in [`{answers_file}`]({(root / answers_file).resolve().as_uri()}).")
    out += [f"- Grade it: `./workbook grade {section.id}`; the lesson in a terminal: `./workbook lesson {section.id}`.", ""]

    if edition == "instructor":
        out += instructor_part(chapter, section)
    return "\n".join(out)


def instructor_part(chapter, section) -> list:
    out = []
    questions = chapter.questions(section.id)
    if questions:
        out += ["## Answer key (instructor edition)", "",
                "Every value is `Question.expected()`, the number the grader checks answers against.", "",
                "| section | question | answer | tolerance |", "|---|---|---|---|"]
        for q in questions:
            tol = "exact" if not q.tolerance else f"± {ex.format_number(q.tolerance)}"
            out.append(f"| {section.id} | `{q.id}` | {_fmt(q.expected())} | {tol} |")
        out.append("")
        for q in questions:
            _value, lines = working(chapter, q)
            out += [f'??? note "Working of {q.id}"', "", "    ```text"]
            out += ["    " + line for line in lines]
            out += ["    ```", ""]
    folder = chapter.root / "solutions" / section.folder
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix in KERNEL_SUFFIXES) if folder.is_dir() else []
    if files:
        out += ["## Reference kernels (instructor edition)", ""]
        for p in files:
            out += [f"### `solutions/{section.folder}/{p.name}`", "", fence(p.read_text(encoding="utf-8"), "cpp"), ""]
    return out


def _squash(text: str) -> str:
    """Whitespace and backticks removed: how the leak check compares lines."""
    return re.sub(r"[\s`]+", "", text)


def solution_lines(chapter) -> set:
    """The non-blank lines of every SOLUTION region of solutions/, squashed, except those a student
    is given anyway (lines of the stubs, of the lessons and of the questions' text, braces only):
    what the student edition must never show."""
    root = chapter.root
    given = []
    for s in chapter.sections:
        for path in sorted((root / "solutions" / s.folder).glob("*.cu*")):
            given.append(regions.make_stub(path.read_text(encoding="utf-8")))
        try:
            given.append(render_lesson(chapter, s.id))
        except LessonError:
            pass
        given += [q.text() for q in chapter.questions(s.id)]
    given = _squash("\n".join(given))
    out = set()
    for path in sorted((root / "solutions").glob("**/*.cu*")):
        for region in regions.solution_regions(path.read_text(encoding="utf-8")):
            for line in region.splitlines():
                line = _squash(line)
                if line and not re.fullmatch(r"[{}();]+", line) and line not in given:
                    out.add(line)
    return out


def _admonition(kind: str, title: str, body: str, lang: str = "text", open_: bool = True) -> list:
    """A block that unfolds (pymdownx.details) holding `body` as code."""
    title = title.replace('"', "'")
    return [f'???{"+" if open_ else ""} {kind} "{title}"', "",
            *["    " + line if line else "" for line in fence(body, lang).splitlines()], ""]


def errata_page(chapter, edition: str = "student") -> str:
    """The book's errata, section by section: what the book says, the correction, the corrected
    code and how the grader confirms it. The student edition shows no answer key (a {{ key.X }}
    names the question) and no corrected code that holds a line of a SOLUTION region."""
    try:
        entries = load_errata(chapter)
    except HandoutError as e:
        raise DocsError(str(e)) from None
    hidden = solution_lines(chapter) if edition == "student" else set()
    out = ["# The book's errata", "",
           "What the printed chapter gets wrong, what the workbook teaches instead, and how the grader "
           "confirms the correction: a known-wrong kernel that reproduces the book's version and that the "
           "grader must catch (`./workbook check` fails otherwise), or a question whose key, and the loads "
           "measured on your own kernels, the grader checks. Numbers come from the same formulas the grader "
           "checks with (`chapters/errata.toml`); the diagnostics are real runs "
           "([What the grader tells you](diagnostics.md)).", ""]
    if edition == "student":
        out += ["Answers to the sections' questions are not given here: where an erratum's number is one, "
                "the page names the question instead.", ""]
    out += ["| Section | Where in the book | Confirmed by |", "|---|---|---|"]
    for e in entries:
        s = chapter.section(e["section"])
        # Each confirmation by its name: "a grader test" twice in a cell said nothing.
        kinds = ", ".join(f"{'grader test' if c['kind'] == 'test' else c['kind'].replace('_', ' ')} "
                          f"`{md_text(c['name'])}`" for c in e["confirmed_by"]) or "-"
        out.append(f"| {s.id} | {md_text(e['where'])} | {kinds} |")
    out.append("")
    for s in chapter.sections:
        mine = [e for e in entries if chapter.section(e["section"]).id == s.id]
        if not mine:
            continue
        context = lesson_context(chapter, s.id)
        out += [f"## {s.id} {s.title}", "", f"Lesson: [{s.id} {s.title}]({LESSONS}/{s.folder}.md).", ""]
        for e in mine:
            try:
                r = render_errata_entry(chapter, e, context, edition)
            except HandoutError as err:
                raise DocsError(str(err)) from None
            out += [f"### {md_text(e['where'])}", "", "**The book.** " + r["book"].strip(), "",
                    "**The correction.** " + r["correction"].strip(), ""]
            if r["corrected"]:
                squashed = _squash(r["corrected"])
                if any(line in squashed for line in hidden):
                    out += ["**The corrected code** is part of this section's exercise: it is in the instructor "
                            "edition, and the grader checks yours.", ""]
                else:
                    out += ["**The corrected code.**", "", fence(r["corrected"], "cuda"), ""]
            for c in r["confirmed"]:
                out += ["**Confirmed by** " + c["head"] + (" " + c["note"] if c["note"] else ""), ""]
                if c["code"]:
                    out += _admonition("example", c["code_label"], c["code"])
    return "\n".join(out)


# ---------------------------------------------------------------- the source tree and the build

# The sidebar reads as a course: the home page, the lessons in the chapter's order, then the
# guides, then the reference, then one page that leads to every measured result (Results).
# docs/*.md pages named in neither list (platforms.md, ...) join the reference under their titles.
HOME = ("Home", "index.md")
GUIDES = [("Getting started", "getting-started.md"), ("Student guide", "student.md"),
          ("Instructor guide", "instructor.md")]
REFERENCE = [("The grader", "grader.md"), ("Diagnostics", "diagnostics.md")]
ERRATA = ("The book's errata", "errata.md")
RESULTS_INDEX = ("Results", "results/index.md")


def write_source(root: Path, chapter, edition: str, source: Path, site_dir: Path) -> Path:
    """Writes the MkDocs source tree (source/docs and source/mkdocs.yml); returns mkdocs.yml."""
    if source.exists():
        shutil.rmtree(source)
    docs = source / "docs"
    (docs / LESSONS).mkdir(parents=True)
    (docs / FIGURES).mkdir()
    figure_files: dict = {}
    lesson_nav = []
    for s in chapter.sections:
        page = f"{LESSONS}/{s.folder}.md"
        (docs / page).write_text(lesson_page(chapter, s, edition, figure_files), encoding="utf-8")
        lesson_nav.append({f"{s.id} {s.title}": page})
    for md in sorted((root / "docs").glob("*.md")):
        text = rewrite_links(md.read_text(encoding="utf-8"), "docs", md.name, root)
        if md.name == HOME[1]:
            listing = "\n".join(f"- [{s.id} {s.title}]({LESSONS}/{s.folder}.md)" for s in chapter.sections)
            text = home_page.fill(text, root, listing, lambda t: rewrite_links(t, ".", md.name, root))
        (docs / md.name).write_text(text, encoding="utf-8")
    write_results(root, docs, figure_files)
    (docs / ERRATA[1]).write_text(errata_page(chapter, edition), encoding="utf-8")
    for name, svg in figure_files.items():
        (docs / FIGURES / name).write_text(svg, encoding="utf-8")

    def present(pairs):
        return [{title: page} for title, page in pairs if (docs / page).exists()]

    named = {page for _, page in [HOME, ERRATA] + GUIDES + REFERENCE}
    extra = [(results_page.title(p), p.name) for p in sorted(docs.glob("*.md")) if p.name not in named]
    nav = present([HOME]) + [{"Lessons": lesson_nav}, {"Guides": present(GUIDES)},
                             {"Reference": present(REFERENCE + extra + [ERRATA])}] + present([RESULTS_INDEX])
    config = {
        "site_name": "Halo: convolution workbook" + (" (instructor edition)" if edition == "instructor" else ""),
        "site_description": "Chapter 7 of Programming Massively Parallel Processors: lessons, exercises, grader.",
        "docs_dir": "docs",
        "site_dir": str(site_dir),
        "use_directory_urls": False,  # the built site also works opened from disk
        "strict": True,
        "validation": {"omitted_files": "warn", "absolute_links": "warn", "unrecognized_links": "warn",
                       "anchors": "warn"},
        "nav": nav,
        # Each results page is reached from the Results page, not from the sidebar; any other page
        # left out of the nav still fails the strict build.
        "not_in_nav": "/results/*.md",
        "theme": {"name": "material", "font": False,  # no web fonts: the site works offline
                  "features": ["navigation.sections", "navigation.top", "content.code.copy"],
                  "palette": {"primary": "indigo"}},
        "markdown_extensions": ["admonition", "pymdownx.details", "pymdownx.superfences", "tables", "attr_list",
                                "md_in_html", {"pymdownx.highlight": {"use_pygments": True}},
                                "pymdownx.inlinehilite", {"toc": {"permalink": True}}],
        "plugins": ["search"],
    }
    config_path = source / "mkdocs.yml"
    config_path.write_text(json.dumps(config, indent=1) + "\n", encoding="utf-8")  # JSON is YAML
    return config_path


def write_results(root: Path, docs: Path, figure_files: dict) -> None:
    """docs/results/ copied into the site, each page with its way back, and the Results page that
    lists them all. The Results page is written even when there is nothing to list (a student
    release leaves docs/results/ out), so the home page's link to it always holds."""
    results = root / results_page.RESULTS
    if (results / "index.md").exists():
        raise DocsError(f"{results_page.RESULTS / 'index.md'}: the site writes the Results page itself "
                        f"(tools/halo/site/results_page.py); move this page's text to another page")
    if results.is_dir():
        shutil.copytree(results, docs / "results")
    else:
        (docs / "results").mkdir()
    groups = results_page.group_of(root)
    for md in (docs / "results").glob("*.md"):
        text = rewrite_links(md.read_text(encoding="utf-8"), "docs/results", f"results/{md.name}", root)
        md.write_text(results_page.with_way_back(text, groups[md.name]), encoding="utf-8")
    (docs / RESULTS_INDEX[1]).write_text(results_page.results_index(root, figure_files, _figure_md), encoding="utf-8")


def source_dir(root, edition: str, output: Path) -> Path:
    """The MkDocs source tree of a build: build/docs-site/<edition> for the default output, and a
    folder of its own for any other (two builds to different places never share one)."""
    root = Path(root).resolve()
    if Path(output).resolve() == root / DEFAULT_OUTPUT[edition]:
        return root / SOURCE / edition
    return root / SOURCE / f"{edition}-{hashlib.sha1(str(Path(output).resolve()).encode()).hexdigest()[:10]}"


def build(root, chapter, edition="student", output=None, quiet=False) -> Path:
    """Builds the site; returns its folder. DocsError when the build fails or warns."""
    root = Path(root).resolve()
    output = Path(output) if output else root / DEFAULT_OUTPUT[edition]
    if not output.is_absolute():
        output = Path.cwd() / output
    for tree in ("exercises", "solutions", "chapters", "docs", "tools", "grader"):
        if is_inside(output, root / tree):
            raise DocsError(f"--output {output} is inside {tree}/: the site never goes there "
                            f"(the default is {DEFAULT_OUTPUT[edition]}/)")
    config = write_source(root, chapter, edition, source_dir(root, edition, output), output)
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=os.pathsep.join([str(pydeps.TARGET)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    p = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--clean", "-f", str(config)],
                       capture_output=True, text=True, env=env, cwd=str(config.parent))
    log = (p.stdout + p.stderr).strip()
    # Material 9.7+ prints a notice about MkDocs 2.0 on every build; it is not about this site.
    warnings = [line for line in log.splitlines() if re.match(r"\s*(WARNING|ERROR)\b", line)]
    if p.returncode != 0 or warnings:
        raise DocsError(f"mkdocs build --strict failed ({config}):\n{log}")
    if not quiet:
        shown = output.relative_to(root) if is_inside(output, root) else output
        print(f"wrote the {edition} site to {shown}/ (open {shown}/index.html)")
    return output


def serve(folder: Path, port: int = 8000) -> int:
    print(f"serving {folder} at http://127.0.0.1:{port}/ (Ctrl-C stops)", flush=True)
    try:
        return subprocess.run([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                               "--directory", str(folder)]).returncode
    except KeyboardInterrupt:
        return 0


def run(root, chapter, instructor=False, output=None, serve_after=False) -> int:
    if not ensure_dependencies():
        print("halo: cannot build the site without MkDocs and its Material theme", file=sys.stderr)
        return 2
    try:
        folder = build(root, chapter, "instructor" if instructor else "student", output)
    except DocsError as e:
        print(f"halo: {e}", file=sys.stderr)
        return 1
    return serve(folder) if serve_after else 0
