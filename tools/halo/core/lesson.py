"""Lessons: chapters/<folder>/lesson.md with its {{ placeholders }} filled from the chapter's data.

A lesson types no number that questions.toml defines; it names it instead:

    {{ key.QUESTION }}              the answer key of one of the section's questions
    {{ param.QUESTION.NAME }}       a parameter of one of the section's questions
    {{ measurement.NAME.FIELD }}    a field of a measured launch (any section's)
    {{ example.NAME.FIELD }}        a field of a worked example (any section's)
    {{ formula.NAME }}              a formula's expression text (any section's)
    {{ results.FILE }}              a measured results page, docs/results/FILE.md (dashes as _),
                                    without its title: numbers measured on a GPU, never typed

Formulas, examples and measurements are shared by all sections (their names are unique across
the chapter), so a later lesson can cite an earlier section's. Keys and params belong to the
section, because question ids are only unique within one.

The syntax is a strict subset of Jinja2's: `{{ name.name... }}`, identifiers joined by dots,
spaces or tabs inside the braces optional. The context is plain nested dicts of strings, so a
Jinja2 environment (autoescape off) renders the same file to the same text. Everything else
that Jinja2 would read as markup ({% ... %}, {# ... #}, filters, indexing) is refused with the
line it is on, rather than passed through as text that Jinja2 would later interpret.
"""
from __future__ import annotations

import re
from typing import Any

from . import expressions as ex
from .chapter_data import Chapter

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
PLACEHOLDER = re.compile(r"\{\{[ \t]*(?P<path>" + _NAME + r"(?:\." + _NAME + r")*)[ \t]*\}\}")
# What Jinja2 treats as the start of markup: expressions, statements and comments.
MARKUP = re.compile(r"\{[{%#]")


class LessonError(Exception):
    """A lesson that is missing or cannot be rendered; str() is "<path>:<line>: <what is wrong>"."""


def _format(value: Any) -> str:
    """Numbers as format_number prints them; lists (also the [index, value] pairs of P_known)
    as `[8, 21, 13]`."""
    if isinstance(value, (list, tuple)):
        if all(not isinstance(x, (list, tuple)) for x in value):
            return ex.format_value(list(value))
        return "[" + ", ".join(_format(x) for x in value) + "]"
    return ex.format_number(value)


def _section(chapter: Chapter, section_id: str):
    try:
        return chapter.section(section_id)
    except KeyError as e:
        raise LessonError(e.args[0]) from None


def lesson_path(chapter: Chapter, section_id: str) -> str:
    """The section's lesson.md relative to the repository root, as messages name it."""
    return f"chapters/{_section(chapter, section_id).folder}/lesson.md"


def lesson_context(chapter: Chapter, section_id: str, questions=None) -> dict:
    """What the section's lesson may name: nested dicts whose leaves are formatted strings; the
    keys and params of `questions` (a student's variant) when given, else the chapter's."""
    if questions is None:
        questions = chapter.questions(_section(chapter, section_id).id)
    return {
        "key": {q.id: _format(q.expected()) for q in questions},
        "param": {q.id: {name: _format(v) for name, v in q.params.items()} for q in questions},
        "measurement": {name: {k: _format(v) for k, v in m.fields.items()}
                        for name, m in chapter.measurements.items()},
        "example": {name: {k: _format(v) for k, v in e.fields.items()}
                    for name, e in chapter.examples.items()},
        "formula": {name: f.expr for name, f in chapter.formulas.items()},
        "define": {name: _format(value) for name, value in chapter.define_values().items()},
        "results": _results(chapter.root / "docs" / "results"),
    }


# What {{ results.X }} reads in a tree without docs/results/: a student release, which leaves the
# measured pages out (they quote answers a summative release withholds, e.g. 7.2's load counts).
RESULTS_WITHHELD = ("*The measured numbers for this part are in the instructor's copy of the workbook "
                    "(docs/results/), which this copy leaves out.*")


class _WithheldResults(dict):
    """Every results page, each read as RESULTS_WITHHELD: a lesson still renders without them."""

    def __contains__(self, name):
        return True

    def __missing__(self, name):
        return RESULTS_WITHHELD


def _results(folder) -> dict:
    """{page name: body} of docs/results/; where the folder is not there at all, every name reads
    RESULTS_WITHHELD. A folder that is there but lacks a page still makes the name an error."""
    if not folder.is_dir():
        return _WithheldResults()
    return {re.sub(r"\W", "_", page.stem): _results_body(page) for page in sorted(folder.glob("*.md"))}


def _results_body(page) -> str:
    """A results page as a lesson quotes it: without the generator's comment and the title."""
    lines = page.read_text(encoding="utf-8").splitlines()
    body = [line for line in lines if not line.startswith("<!--")]
    if body and body[0].startswith("# "):
        body = body[1:]
    return "\n".join(body).strip()


def render_lesson(chapter: Chapter, section_id: str, questions=None) -> str:
    """The section's lesson.md with every placeholder replaced (the numbers of `questions`, a
    student's variant, when given); LessonError if it has none or a placeholder names nothing."""
    where = lesson_path(chapter, section_id)
    path = chapter.root / where
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LessonError(f"{where}: no such file: section {_section(chapter, section_id).id} "
                          "has no lesson yet") from None
    return render_text(text, lesson_context(chapter, section_id, questions), where)


def for_terminal(text: str) -> str:
    """A rendered lesson as `./workbook lesson` prints it: without the "<!-- quoted: RUN -->"
    lines that mark blocks of grader output for the check that they quote real runs
    (dev/quoted_output.py). Markdown and HTML readers never see those comments."""
    return re.sub(r"^<!-- quoted: [^>]*-->\n", "", text, flags=re.M)


def render_text(text: str, context: dict, where: str) -> str:
    """`text` with each {{ a.b }} replaced by context["a"]["b"]; `where` names the file in errors."""
    out, pos = [], 0
    for m in MARKUP.finditer(text):
        if m.start() < pos:  # inside a placeholder already replaced
            continue
        line = text.count("\n", 0, m.start()) + 1
        placeholder = PLACEHOLDER.match(text, m.start())
        if placeholder is None:
            rest = text[m.start():].split("\n", 1)[0]
            snippet = rest[:rest.find("}}") + 2] if "}}" in rest else rest[:40]
            raise LessonError(f"{where}:{line}: unsupported template syntax {snippet!r}: a lesson "
                              "uses only placeholders like {{ key.question_id }} (names joined by dots)")
        out.append(text[pos:m.start()])
        out.append(_lookup(context, placeholder.group("path"), f"{where}:{line}"))
        pos = placeholder.end()
    out.append(text[pos:])
    return "".join(out)


def _lookup(context: dict, path: str, where: str) -> str:
    shown = "{{ " + path + " }}"
    node: Any = context
    walked = []
    for name in path.split("."):
        if not isinstance(node, dict):
            raise LessonError(f"{where}: unknown placeholder {shown}: {'.'.join(walked)} is a value, "
                              "not a table")
        if name not in node:
            if walked:
                known = ", ".join(f"{'.'.join(walked)}.{k}" for k in node) or "none"
                raise LessonError(f"{where}: unknown placeholder {shown}; the names there are: {known}")
            raise LessonError(f"{where}: unknown placeholder {shown}; placeholders start with "
                              f"{', '.join(k + '.' for k in context)}")
        if hasattr(dict, name):
            # Jinja2 resolves a.items to the dict method before the key: the two would differ.
            raise LessonError(f"{where}: placeholder {shown}: {name!r} is also a dict method, which "
                              "Jinja2 would render instead of the value; rename it")
        node = node[name]
        walked.append(name)
    if isinstance(node, dict):
        fields = ", ".join(f"{path}.{k}" for k in node) or "none"
        raise LessonError(f"{where}: unknown placeholder {shown}: it names a table, not a value; "
                          f"name one of: {fields}")
    return node
