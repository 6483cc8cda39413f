"""`./workbook handout`: printable handouts, rendered from chapters/ and solutions/.

One Markdown text per handout is the single source (templates/handout.md.j2, filled from the
chapter's data); the HTML is that Markdown converted (raw HTML in it is shown as text, never
passed through), wrapped in templates/handout.html.j2 with a small stylesheet; the PDF is that
HTML printed by WeasyPrint. So the three formats cannot say different things.

Editions:
- student: the lesson, the questions with their parameters, the stub of each kernel file (what
  `./workbook sync` writes to exercises/), how to grade;
- instructor: all that, plus the answer key with its working, the reference kernels, the
  formulas with their values at the measured launches, the known-wrong kernels (the common
  mistakes) and the book's errata (chapters/errata.toml).

Every number comes from the formula definitions through Question.expected(), the function the
grader checks answers with. Question parameters come from one function, `params_for(question)`,
so a per-student variant is a different `params_for` (see `run`)."""
from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from ..core import expressions as ex
from ..core import pydeps, regions
from ..core import wrong_kernels
from ..core.lesson import LessonError, lesson_context, lesson_path, render_text
from ..core.paths import is_inside
from ..core.sync import KERNEL_SUFFIXES
from ..core.tomlcompat import TOMLDecodeError, load_toml

EDITIONS = ("student", "instructor")
FORMATS = ("md", "html", "pdf")
DEFAULT_OUTPUT = Path("build") / "handouts"
TEMPLATES = Path(__file__).resolve().parent / "templates"
CHAPTER_STEM = "chapter-7"

PYTHON_DEPS = ["jinja2>=3.0,<4", "markdown>=3.4,<4"]
PDF_PYTHON_DEPS = ["weasyprint>=61,<71"]
# Pango draws WeasyPrint's text; HarfBuzz-subset makes its fonts small; DejaVu is the typeface;
# poppler-utils' pdfinfo checks each PDF written (and pdftoppm/pdftotext are what the tests use).
PDF_APT = ["libpango-1.0-0", "libpangoft2-1.0-0", "libharfbuzz-subset0", "fonts-dejavu-core", "poppler-utils"]


class HandoutError(Exception):
    """Data a handout cannot be made from; str() names the file."""


def same_params(question):
    """The parameters questions.toml gives: the plain editions, and the answer key."""
    return question.params


# ---------------------------------------------------------------- the data of one section

ERRATA_FIELDS = ("section", "where", "book", "correction")           # required strings
ERRATA_OPTIONAL = ("corrected", "confirmed_by")
CONFIRMATION_KINDS = ("wrong_kernel", "question", "test")
CONFIRMATION_OPTIONAL = ("section", "loads", "note")


def load_errata(chapter) -> list[dict]:
    """chapters/errata.toml, checked: each entry's section exists, its text fields are strings,
    and each `confirmed_by` table names exactly one thing the grader checks (a known-wrong
    kernel, a question or a test case). Whether those names resolve is `confirmations`' job."""
    path = chapter.root / "chapters" / "errata.toml"
    where = "chapters/errata.toml"
    if not path.exists():
        return []
    try:
        data = load_toml(path)
    except TOMLDecodeError as e:
        raise HandoutError(f"{where}: {e}") from None
    entries = data.get("errata", [])
    if not isinstance(entries, list):
        raise HandoutError(f"{where}: 'errata' should be an array of tables ([[errata]])")
    out = []
    for k, e in enumerate(entries, 1):
        fields = ERRATA_FIELDS
        if not isinstance(e, dict) or not set(fields) <= set(e) or not set(e) <= set(fields + ERRATA_OPTIONAL) \
                or not all(isinstance(e[f], str) for f in fields):
            raise HandoutError(f"{where}: entry {k} should have the string fields {', '.join(fields)} "
                               f"(and optionally {', '.join(ERRATA_OPTIONAL)})")
        try:
            section = chapter.section(e["section"])
        except KeyError as err:
            raise HandoutError(f"{where}: entry {k}: {err.args[0]}") from None
        if not isinstance(e.get("corrected", ""), str):
            raise HandoutError(f"{where}: entry {k}: corrected should be a string (a code snippet)")
        entry = {f: e[f].strip() for f in fields}
        entry["corrected"] = e.get("corrected", "").strip("\n").rstrip()
        entry["confirmed_by"] = [_confirmation(c, section.id, f"{where}: entry {k}: confirmed_by")
                                 for c in _as_list(e.get("confirmed_by", []))]
        out.append(entry)
    return out


def _as_list(value):
    return value if isinstance(value, list) else [value]


def _confirmation(c, section_id: str, where: str) -> dict:
    if not isinstance(c, dict):
        raise HandoutError(f"{where}: should be a table, or an array of tables")
    kinds = [k for k in CONFIRMATION_KINDS if k in c]
    unknown = sorted(set(c) - set(CONFIRMATION_KINDS) - set(CONFIRMATION_OPTIONAL))
    if len(kinds) != 1 or unknown:
        raise HandoutError(f"{where}: each table has exactly one of {', '.join(CONFIRMATION_KINDS)}, "
                           f"optionally {', '.join(CONFIRMATION_OPTIONAL)}" + (f"; unknown: {', '.join(unknown)}" if unknown else ""))
    kind = kinds[0]
    loads = c.get("loads", [])
    if not all(isinstance(c.get(f, ""), str) for f in (kind, "section", "note")) or \
            not isinstance(loads, list) or not all(isinstance(x, str) for x in loads):
        raise HandoutError(f"{where}: {kind}, section and note are strings, loads a list of formula names")
    if loads and kind != "question":
        raise HandoutError(f"{where}: loads belongs with a question (the launch it is measured at)")
    return {"kind": kind, "name": c[kind].strip(), "section": c.get("section", section_id),
            "loads": list(loads), "note": c.get("note", "").strip()}


# The diagnostics page: real output of known-wrong kernels, (section id, name) -> (heading, text).
_DIAG_FROM = re.compile(r'^From section (\S+), known-wrong kernel "(.+?)": .*$')


def diagnostics_shown(root) -> dict:
    """What docs/diagnostics.md shows for each known-wrong kernel it ran: (section, name) ->
    (its heading, the grader's output). Empty when the page is not there."""
    path = Path(root) / "docs" / "diagnostics.md"
    if not path.exists():
        return {}
    out, heading, pending = {}, "", None
    lines = path.read_text(encoding="utf-8").splitlines()
    k = 0
    while k < len(lines):
        line = lines[k]
        if line.startswith("## "):
            heading = line[3:].strip()
        m = _DIAG_FROM.match(line)
        if m:
            pending = (m.group(1), m.group(2))
        elif pending and line.startswith("```"):
            end = next((j for j in range(k + 1, len(lines)) if lines[j].startswith("```")), len(lines))
            out[pending] = (heading, "\n".join(lines[k + 1:end]))
            pending, k = None, end
        k += 1
    return out


def _test_cases(root, section) -> set:
    names = set()
    for src in sorted((Path(root) / "grader" / "sections" / section.folder).glob("*.c*")):
        names |= set(re.findall(r'TEST_CASE\("((?:[^"\\]|\\.)*)"', src.read_text(encoding="utf-8")))
    return names


def confirmations(chapter, entry: dict, context: dict, edition: str) -> list[dict]:
    """Each `confirmed_by` of an errata entry, resolved against the grader and rendered:
    [{kind, name, section, head (Markdown), note (Markdown), code (text shown as a block, or ""),
    code_label}]. HandoutError when a name does not resolve. The student edition gives no
    answer away: a question's key and the load counts are shown as formulas, not values."""
    root = chapter.root
    shown = diagnostics_shown(root)
    out = []
    for c in entry.get("confirmed_by", []):
        where = f"chapters/errata.toml: {entry['where']}: confirmed_by {c['kind']} {c['name']!r}"
        try:
            section = chapter.section(c["section"])
        except KeyError as err:
            raise HandoutError(f"{where}: {err.args[0]}") from None
        item = {"kind": c["kind"], "name": c["name"], "section": section.id, "code": "", "code_label": "",
                "note": render_text(c["note"], context, "chapters/errata.toml") if c["note"] else ""}
        if c["kind"] in ("wrong_kernel", "test") and not (root / "grader").is_dir():
            # A copy of the sources without the grader (chapters/ and docs/ only): nothing to resolve against.
            item["head"] = f"{c['kind'].replace('_', ' ')} **{md_text(c['name'])}** (section {section.id}; grader/ is not in this tree)."
        elif c["kind"] == "wrong_kernel":
            file = f"grader/wrong/{section.folder}.toml"
            try:
                wrong = {w.name: w for w in wrong_kernels.load(root, section)}
            except wrong_kernels.WrongKernelError as e:
                raise HandoutError(str(e)) from None
            if c["name"] not in wrong:
                raise HandoutError(f"{where}: no known-wrong kernel of that name in {file} "
                                   f"(its names: {'; '.join(wrong) or 'none'})")
            w = wrong[c["name"]]
            item["head"] = (f"the known-wrong kernel **{md_text(w.name)}** (section {section.id}, `{file}`): "
                            f"{md_text(w.why.strip().rstrip('.'))}. `./workbook check` fails unless the grader "
                            "catches it with the diagnostic below.")
            if (section.id, w.name) in shown:
                heading, text = shown[(section.id, w.name)]
                item["code"] = text
                item["code_label"] = f"What the grader prints (a real run, docs/diagnostics.md: {heading})"
            else:
                item["code"] = w.expect
                item["code_label"] = "What the grader's output must match (a Python regular expression)"
        elif c["kind"] == "question":
            q = next((q for q in chapter.questions(section.id) if q.id == c["name"]), None)
            if q is None:
                raise HandoutError(f"{where}: section {section.id} has no question of that id")
            key = context.get("key", {}).get(q.id) if section.id == entry_section_id(chapter, entry) else None
            value = key if key is not None else _format(q.expected())
            answer = f"`{q.answer_expr.strip()}`" + (f" = **{value}**" if edition == "instructor" else "")
            head = (f"the question **`{q.id}`** ({section.id}, {md_text(' '.join(q.title.split()))}): the grader "
                    f"checks every answer against its key, {answer}")
            scope = q.scope()
            launch = q.measured_ratio[0].split("@", 1)[1].split(":", 1)[0] if q.measured_ratio else ""
            if q.measured_ratio:
                head += (", and against the ratio of the loads it measures on the student's own kernels "
                         f"(`{q.measured_ratio[0]}` / `{q.measured_ratio[1]}`)")
            head += "."
            rows = []
            for name in c["loads"]:
                if name not in chapter.formulas:
                    raise HandoutError(f"{where}: loads: no formula {name!r}")
                f = chapter.formulas[name]
                missing = [p for p in f.params if p not in scope]
                if missing:
                    raise HandoutError(f"{where}: loads: {name} needs {', '.join(missing)}, which the question "
                                       "does not give")
                row = f"{name}({', '.join(f'{p} = {_format(scope[p])}' for p in f.params)}) = {f.expr.strip()}"
                if edition == "instructor":
                    row += f" = {_format(chapter.call(name, *[scope[p] for p in f.params]))}"
                rows.append(row)
            if rows:
                item["code"] = "\n".join(rows)
                item["code_label"] = ("The loads of N per block the grader expects"
                                      + (f" at the launch `{launch}`" if launch else "") + ", from the chapter's formulas")
            item["head"] = head
        else:
            cases = _test_cases(root, section)
            if c["name"] not in cases:
                raise HandoutError(f"{where}: no TEST_CASE of that name in grader/sections/{section.folder}/")
            item["head"] = f"the grader's test **{md_text(c['name'])}** (`grader/sections/{section.folder}/`)."
        out.append(item)
    return out


def entry_section_id(chapter, entry) -> str:
    return chapter.section(entry["section"]).id


def student_context(context: dict) -> dict:
    """A placeholder context for the student edition: each {{ key.X }} names the question X
    instead of giving its answer."""
    return {**context, "key": {qid: f"*[the answer to `{qid}`]*" for qid in context.get("key", {})}}


def render_errata_entry(chapter, entry: dict, context: dict, edition: str = "instructor") -> dict:
    """One errata entry with its placeholders filled: where, book, correction (Markdown), corrected
    (code), confirmed (see `confirmations`)."""
    ctx = context if edition == "instructor" else student_context(context)
    try:
        return {"where": entry["where"],
                "book": render_text(entry["book"], ctx, "chapters/errata.toml"),
                "correction": render_text(entry["correction"], ctx, "chapters/errata.toml"),
                "corrected": render_text(entry.get("corrected", ""), ctx, "chapters/errata.toml"),
                "confirmed": confirmations(chapter, entry, ctx, edition)}
    except LessonError as e:
        raise HandoutError(str(e)) from None


def _questions(chapter, section_id, params_for):
    """The section's questions with the parameters `params_for` picks."""
    return [dataclasses.replace(q, params=dict(params_for(q))) for q in chapter.questions(section_id)]


def _context(chapter, section_id, questions):
    """lesson.py's placeholder context, with keys and params of these questions (a variant's)."""
    context = lesson_context(chapter, section_id)
    context["key"] = {q.id: _format(q.expected()) for q in questions}
    context["param"] = {q.id: {n: _format(v) for n, v in q.params.items()} for q in questions}
    return context


def _format(value) -> str:
    if isinstance(value, (list, tuple)):
        return ex.format_value([float(x) for x in value])
    return ex.format_number(value)


def _lesson(chapter, section_id, context) -> str:
    """The rendered lesson without its own first-line title (the handout prints the section's)."""
    where = lesson_path(chapter, section_id)
    path = chapter.root / where
    if not path.exists():
        return ""
    text = render_text(path.read_text(encoding="utf-8"), context, where)
    lines = text.strip("\n").splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    return "\n".join(lines).strip("\n")


def working(chapter, question) -> tuple:
    """(value, lines): the answer evaluated with every formula call traced, for the key.

    The formulas are evaluated as Chapter.call does, with each call recorded; the value returned
    is the same number Question.expected() gives (the tests compare the two)."""
    scope = question.scope()
    records = []          # [depth, name, args, lets, value]
    depth = [0]

    def traced(name):
        f = chapter.formulas[name]

        def call(*args):
            record = [depth[0], name, args, [], None]
            records.append(record)
            depth[0] += 1
            try:
                env = dict(zip(f.params, args))
                for let_name, let_expr in f.lets:
                    env[let_name] = ex.evaluate(let_expr, env, functions)
                    record[3].append((let_name, let_expr, env[let_name]))
                record[4] = ex.evaluate(f.expr, env, functions)
            finally:
                depth[0] -= 1
            return record[4]
        return call

    functions = {name: traced(name) for name in chapter.formulas}
    value = ex.evaluate(question.answer_expr, scope, functions)
    used = sorted(ex.names_used(question.answer_expr) & set(scope), key=question.answer_expr.find)
    lines = [f"{question.id} = {question.answer_expr.strip()}"]
    if used:
        lines.append("    with " + ", ".join(f"{n} = {_format(scope[n])}" for n in used))
    seen = set()
    for d, name, args, lets, result in records:
        call = f"{name}({', '.join(_format(a) for a in args)})"
        indent = "  " * (d + 1)
        if (name, args) in seen:
            continue
        seen.add((name, args))
        lines.append(f"{indent}{call} = {chapter.formulas[name].expr.strip()}")
        for let_name, let_expr, let_value in lets:
            lines.append(f"{indent}    where {let_name} = {let_expr.strip()} = {_format(let_value)}")
        lines.append(f"{indent}    = {_format(result)}")
    lines.append(f"answer: {_format(value)}")
    return value, lines


def _formulas(chapter, section_id) -> tuple:
    """The formulas defined in the section's questions.toml, each with its value at every
    measured launch of the section whose fields give all its parameters; and those launches."""
    launches = [m for m in chapter.measurements.values() if m.section_id == section_id]
    rows = []
    for f in chapter.formulas.values():
        if f.section_id != section_id:
            continue
        values = []
        for m in launches:
            if all(p in m.fields for p in f.params):
                values.append((m.name, _format(chapter.call(f.name, *[m.fields[p] for p in f.params]))))
        if not f.params:
            values.append(("any launch", _format(chapter.call(f.name))))
        rows.append({"name": f.name, "params": ", ".join(f.params), "doc": f.doc,
                     "lets": [f"{n} = {e}" for n, e in f.lets], "expr": f.expr.strip(), "at": values})
    shown = [{"name": m.name, "doc": m.doc,
              "fields": ", ".join(f"{k} = {_format(v)}" for k, v in m.fields.items())} for m in launches]
    return rows, shown


def _kernel_files(chapter, section):
    folder = chapter.root / "solutions" / section.folder
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix in KERNEL_SUFFIXES) if folder.is_dir() else []


def _stubs(chapter, section):
    """What a student gets for each kernel file: the stub ./workbook sync writes, made here from
    solutions/ rather than read from exercises/, where someone's own work may be."""
    out = []
    for path in _kernel_files(chapter, section):
        rel = f"exercises/{section.folder}/{path.name}"
        try:
            out.append({"path": rel, "code": regions.make_stub(path.read_text(), f"solutions/{section.folder}/{path.name}")})
        except regions.RegionError as e:
            raise HandoutError(str(e)) from None
    if not out:  # no solution file: the committed stub, if any
        for name in section.kernels:
            p = chapter.root / "exercises" / section.folder / name
            if p.exists():
                out.append({"path": f"exercises/{section.folder}/{name}", "code": p.read_text()})
    return out


def lesson_figures(chapter, section_id, edition) -> list:
    """The figures the docs site shows beside the section's lesson (site/docs_site.py draws them,
    for this edition: the student's gives counts as formulas, not values), each as
    {"caption", "uri"}: the SVG as a data: URI, so the one Markdown source carries it into the
    HTML and the PDF without a file beside them (raw HTML is never passed through)."""
    import base64
    from ..site import lesson_figures as drawn  # the site's tile figures (it imports this module; they do not)
    out = []
    for draw in (drawn.tile_figure, drawn.tile_2d_figure):
        figure = draw(chapter, section_id, edition)
        if figure:
            svg, caption, _heading = figure
            out.append({"caption": caption,
                        "uri": "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()})
    return out


def section_data(chapter, section_id, edition, params_for=same_params, errata=None) -> dict:
    """Everything the template shows for one section, as plain values."""
    section = chapter.section(section_id)
    questions = _questions(chapter, section.id, params_for)
    context = _context(chapter, section.id, questions)
    data = {
        "id": section.id, "title": section.title, "folder": section.folder,
        "kernels": [f"exercises/{section.folder}/{k}" for k in section.kernels],
        "answers_file": f"exercises/{section.folder}/answers.toml",
        "lesson": _lesson(chapter, section.id, context),
        "figures": lesson_figures(chapter, section.id, edition),
        "questions": [{"id": q.id, "title": " ".join(q.title.split()), "text": q.text(),
                       "params": ", ".join(f"{k} = {_format(v)}" for k, v in q.params.items())}
                      for q in questions],
        "stubs": _stubs(chapter, section),
    }
    if edition == "instructor":
        key = []
        for q in questions:
            value, lines = working(chapter, q)
            key.append({"id": q.id, "title": " ".join(q.title.split()), "answer": _format(value),
                        "tolerance": "exact" if not q.tolerance else f"± {ex.format_number(q.tolerance)}",
                        "measured": bool(q.measured_ratio), "working": "\n".join(lines)})
        formulas, launches = _formulas(chapter, section.id)
        try:
            mistakes = [{"name": w.name, "why": w.why.strip().rstrip("."), "file": w.file}
                        for w in wrong_kernels.load(chapter.root, section)]
        except wrong_kernels.WrongKernelError as e:
            raise HandoutError(str(e)) from None
        data.update({
            "key": key,
            "references": [{"path": f"solutions/{section.folder}/{p.name}", "code": p.read_text()}
                           for p in _kernel_files(chapter, section)],
            "formulas": formulas, "launches": launches, "mistakes": mistakes,
            "errata": [render_errata_entry(chapter, e, context, "instructor")
                       for e in (errata if errata is not None else load_errata(chapter))
                       if chapter.section(e["section"]).id == section.id],
        })
    return data


# ---------------------------------------------------------------- Markdown, HTML, PDF

def md_text(value) -> str:
    """Plain text made safe to place in Markdown: no emphasis, links or table cells by accident.
    (Raw HTML needs no escaping here: the HTML converter shows it as text.)"""
    text = str(value).replace("\\", "\\\\")
    text = re.sub(r"([`*|])", r"\\\1", text)
    # A bracket makes a link only as [text](url), [text][ref] or a [ref]: definition.
    text = re.sub(r"\](?=[(\[:])", r"\\]", text)
    text = re.sub(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])", r"\\_", text)  # not inside Mask_Width
    return re.sub(r"^([#>+-])", r"\\\1", text, flags=re.M)


def fence(code: str, lang: str = "") -> str:
    """A fenced code block whose fence is longer than any run of backticks in the code."""
    longest = max((len(m) for m in re.findall(r"`+", code)), default=0)
    bar = "`" * max(3, longest + 1)
    return f"{bar}{lang}\n{code.rstrip()}\n{bar}"


def _environment():
    pydeps.activate()  # the packages ensure() installed into build/.deps/python
    import jinja2
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=False,
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters["md"] = md_text
    env.filters["fence"] = fence
    return env


def render_markdown(chapter, section_ids, edition, params_for=same_params, whole_chapter=False,
                    student: str = "") -> str:
    """One handout as Markdown: the sections named, in order; with whole_chapter, a title page
    and table of contents before them. `student` (see `student_line`) heads it when given."""
    if edition not in EDITIONS:
        raise HandoutError(f"unknown edition {edition!r}; the editions are: {', '.join(EDITIONS)}")
    errata = load_errata(chapter)
    sections = [section_data(chapter, s, edition, params_for, errata) for s in section_ids]
    try:
        text = _environment().get_template("handout.md.j2").render(
            edition=edition, whole_chapter=whole_chapter, sections=sections, student=student,
            title="Chapter 7: Convolution" if whole_chapter else f"{sections[0]['id']} {sections[0]['title']}")
    except LessonError as e:
        raise HandoutError(str(e)) from None
    return re.sub(r"\n{3,}", "\n\n", text)


def _markdown_converter():
    pydeps.activate()
    import markdown
    md = markdown.Markdown(extensions=["tables", "fenced_code", "sane_lists", "toc"],
                           extension_configs={"toc": {"toc_depth": "1-2"}})
    # Raw HTML in the sources is shown as text: a `<` in a lesson or a question never becomes markup.
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    return md


def to_html(markdown_text: str, title: str, edition: str, student: str = "") -> str:
    """The Markdown as one self-contained HTML page (stylesheet inlined). `student` is repeated
    at the top of every printed page (a CSS running header) and shown at the top on screen, so
    thirty printed copies can be told apart page by page."""
    import jinja2
    from markupsafe import Markup
    body = _markdown_converter().convert(markdown_text)
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True,
                             undefined=jinja2.StrictUndefined)
    css = (TEMPLATES / "handout.css").read_text(encoding="utf-8")
    return env.get_template("handout.html.j2").render(
        title=title, edition=edition, css=Markup(css), body=Markup(body), student=student,
        student_css=css_string(student))


def css_string(text: str) -> str:
    """Text as a CSS string literal (for `content:`): quotes, backslashes and line breaks escaped,
    so a name from a roster cannot end the rule early."""
    return '"' + "".join(c if c.isalnum() or c in " .,-_@'()" else f"\\{ord(c):x} " for c in text) + '"'


def student_line(student_id: str, name: str = "") -> str:
    """Who a per-student handout belongs to, as printed on it: 'Name (ID)', or the ID alone."""
    return f"{name} ({student_id})" if name else student_id


def roster_names(path) -> dict:
    """{student id: name} from a CSV roster's name columns (name, or first_name + last_name),
    read with the same ID column variants.read_roster uses; empty where the roster has no names."""
    import csv
    from ..core import variants
    rows = list(csv.DictReader(Path(path).read_text(encoding="utf-8-sig").splitlines()))
    if not rows:
        return {}
    keys = {k.strip().lower().replace(" ", "_").replace("-", "_"): k for k in rows[0] if k}
    id_key = next((keys[c] for c in variants.ID_COLUMNS if c in keys), None)
    if id_key is None:
        return {}
    out = {}
    for row in rows:
        if "name" in keys:
            name = (row.get(keys["name"]) or "").strip()
        else:
            name = " ".join((row.get(keys[k]) or "").strip() for k in ("first_name", "last_name") if k in keys).strip()
        if (row.get(id_key) or "").strip() and name:
            out[variants.check_student_id(row[id_key])] = " ".join(name.split())
    return out


def write_pdf(html: str, path: Path) -> None:
    import logging
    pydeps.activate()
    import weasyprint
    # Font-subsetting notes and the like are WeasyPrint's business, not the user's.
    logging.getLogger("weasyprint").setLevel(logging.ERROR)
    logging.getLogger("fontTools").setLevel(logging.ERROR)
    weasyprint.HTML(string=html, base_url=str(path.parent)).write_pdf(str(path))


@dataclass
class Handout:
    stem: str             # the file name without extension
    title: str
    markdown: str


def handouts(chapter, section_ids, edition, params_for=same_params, whole_chapter=True, student="") -> list:
    """One handout per section named, and with whole_chapter one of all of them together."""
    out = []
    for sid in section_ids:
        s = chapter.section(sid)
        out.append(Handout(s.folder, f"{s.id} {s.title}", render_markdown(chapter, [s.id], edition, params_for, student=student)))
    if whole_chapter:
        out.append(Handout(CHAPTER_STEM, "Chapter 7: Convolution",
                           render_markdown(chapter, section_ids, edition, params_for, whole_chapter=True,
                                           student=student)))
    return out


def _pages(pdf: Path) -> Optional[int]:
    """The page count pdfinfo reads from the PDF (a check that it opens); None without poppler."""
    if not shutil.which("pdfinfo"):
        return None
    p = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True)
    m = re.search(r"^Pages:\s+(\d+)", p.stdout, re.M)
    if p.returncode != 0 or not m:
        raise HandoutError(f"{pdf}: the PDF written does not open: {p.stderr.strip()}")
    return int(m.group(1))


def ensure_dependencies(pdf=True) -> bool:
    """Installs what rendering needs (Jinja2, Markdown; for PDF WeasyPrint, Pango and poppler's
    tools) when missing; False, with a message naming what failed, when it cannot."""
    if not pydeps.ensure(PYTHON_DEPS):
        return False
    if pdf:
        pydeps.ensure_apt(PDF_APT, "to print the handouts as PDF")  # a failure shows up below
        if not pydeps.ensure(PDF_PYTHON_DEPS):
            print("halo: cannot write PDF; use --format md,html for the other formats")
            return False
    return True


def run(root, chapter, section_ids, edition="student", formats=FORMATS, output=None,
        params_for: Callable = same_params, label: str = "", student: str = "") -> int:
    """Writes the handouts to OUTPUT/<edition>/ (OUTPUT/<edition>/<label>/ for a variant).

    Per-student variants (--student ID / --roster FILE, tools/halo/core/variants.py) plug in here:
    pass their `params_for` and a `label` (the student's id) per student."""
    root = Path(root)
    output = Path(output) if output else root / DEFAULT_OUTPUT
    if not output.is_absolute():
        output = Path.cwd() / output
    for tree in ("exercises", "solutions", "chapters"):
        if is_inside(output, root / tree):
            raise HandoutError(f"--output {output} is inside {tree}/: handouts never go there "
                               f"(the default is {DEFAULT_OUTPUT}/)")
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        raise HandoutError(f"unknown format(s) {', '.join(unknown)}; the formats are: {', '.join(FORMATS)}")
    if not ensure_dependencies(pdf="pdf" in formats):
        return 2
    whole = not section_ids
    ids = [chapter.section(s).id for s in section_ids] if section_ids else [s.id for s in chapter.sections]
    folder = output / edition / label if label else output / edition
    folder.mkdir(parents=True, exist_ok=True)
    for h in handouts(chapter, ids, edition, params_for, whole_chapter=whole, student=student):
        written = []
        if "md" in formats:
            (folder / f"{h.stem}.md").write_text(h.markdown, encoding="utf-8")
            written.append("md")
        if "html" in formats or "pdf" in formats:
            html = to_html(h.markdown, f"{h.title} ({edition} edition)", edition, student)
            if "html" in formats:
                (folder / f"{h.stem}.html").write_text(html, encoding="utf-8")
                written.append("html")
            if "pdf" in formats:
                pdf = folder / f"{h.stem}.pdf"
                write_pdf(html, pdf)
                pages = _pages(pdf)
                written.append(f"pdf, {pages} pages" if pages else "pdf")
        shown = folder.relative_to(root) if is_inside(folder, root) else folder
        print(f"wrote {shown}/{h.stem} ({', '.join(written)})", flush=True)
    return 0


def run_variants(root, chapter, section_ids, edition, formats, output, students, secret, names=None) -> int:
    """Per-student handouts: OUTPUT/<edition>/<student>/, each with that student's numbers in the
    questions (and, in the instructor edition, in the key), beside the student's answers files
    (OUTPUT/<edition>/<student>/<folder>/answers.toml) recording the variant, which the grader
    recomputes from the student's ID and the course secret. Each handout names its student
    (`names`: {id: name} from the roster, see `roster_names`) at its top and on every printed page."""
    from ..core import variants
    from . import variant_answers
    root = Path(root)
    output = Path(output) if output else root / DEFAULT_OUTPUT
    for student in students:
        def params_for(question, student=student):
            return {**question.params, **variants.params_for(question, student, secret)}
        code = run(root, chapter, section_ids, edition, formats, output, params_for=params_for, label=student,
                   student=student_line(student, (names or {}).get(student, "")))
        if code:
            return code
        # Regenerated output, not a student's work; write_variant_answers still keeps a backup.
        written, _ = variant_answers.write_variant_answers(chapter, [student], output / edition, secret,
                                                          force=True, with_key=edition == "instructor")
        print(f"wrote {len(written)} answers file(s) under {output / edition / student}/<section>/")
    if not secret:
        print("note: no course secret (HALO_COURSE_SECRET or course.toml): these are the self-study variants; "
              "set the course's secret before handing them out")
    return 0
