"""The chapter's data: chapters/manifest.toml and every section's questions.toml, checked.

Every number of the workbook comes from these files, so they are checked when loaded: a
formula that names something unknown, calls with the wrong number of arguments or calls
itself, or a question whose text or answer cannot be filled in, stops the load with a
ChapterError "path: formula 'x': what is wrong" rather than a wrong number later on.

Two manifest keys exist for student releases (`./workbook release`, tools/halo/course/release/make.py),
which hand out some sections only:

- `formulas_only = true`: a section that is not handed out. Its questions.toml is still read for
  its defines, formulas, examples and measurements (the questions and tests of the sections
  handed out call formulas defined in other sections: 7.4's questions call a formula of 7.5's),
  but its questions are ignored and the section is not in Chapter.sections, so nothing that
  lists, builds or grades sections sees it (`internal sections`, CMake, grade, lessons, hints).
- `answers_withheld = true`: a summative release, whose questions may leave out `answer` (the
  course's autograder, which has the instructor's files, checks them). Such a question is
  `withheld`: its expected() is NaN, which equals no answer and prints as "nan", never as a
  number (a release keeps the answers its lessons print, {{ key.X }}, so no lesson shows it);
  answers.py reports it as checked by the course's autograder.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import itertools
import math
import os
import re
import string
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from . import expressions as ex
from .tomlcompat import TOMLDecodeError, load_toml


class ChapterError(Exception):
    """A manifest or questions.toml that is malformed or inconsistent."""


IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
QUESTION_ID = re.compile(r"[A-Za-z0-9_]+\Z")  # a TOML bare key, so the answers file needs no quotes


# Who sees a section's tests on a course platform (Gradescope's words).
# How a platform scores a right kernel that loads more than the book's (threads with no output
# loading neighbours): full points with advice, or half the points of each test that advised.
EXTRA_LOADS = ("advice", "partial")
VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")


@dataclass
class Section:
    id: str
    slug: str
    title: str
    folder: str
    kernels: list
    points: dict = field(default_factory=dict)  # {"tests": n, "answers": n}: what the section is worth
    visibility: str = "visible"
    hints: list = field(default_factory=list)    # revealed one at a time; never solution code
    extra_loads: str = "advice"  # a right kernel loading more than the book's: "advice" or "partial" credit
    formulas_only: bool = False     # not handed out: only its questions.toml's formulas and data are read
    answers_withheld: bool = False  # its questions may have no answer (a summative release)
    # The sections to grade together for this one's every check (7.4's ratios use the 7.2 kernel's
    # measured loads): what the stub, the answers file and the lesson tell the student to run.
    grade_with: list = field(default_factory=list)


@dataclass
class Formula:
    name: str
    doc: str
    params: list
    lets: list  # [(name, expr)], evaluated in order before expr
    expr: str
    section_id: str


@dataclass
class Example:
    name: str
    doc: str
    fields: dict  # N, M, P_known ([index, value] pairs) and any others
    section_id: str


@dataclass
class Measurement:
    name: str
    doc: str
    fields: dict  # scalars only: launch parameters
    section_id: str


@dataclass
class Question:
    id: str
    title: str
    text_template: str
    params: dict
    answer_expr: Optional[str]  # None: withheld (a summative release's question)
    tolerance: float
    section_id: str
    chapter: Optional["Chapter"] = field(default=None, repr=False, compare=False)
    # Load tags [numerator, denominator] whose measured ratio (from the student's own kernels,
    # in this run's load reports) the answer must also match.
    measured_ratio: Optional[list] = None
    # Per-student variants: param -> the choices a variant picks from (the defaults in `params`
    # stay what the plain edition and the answer key use). Questions of one `vary_group` (in
    # one section) get the same picks, so "Same array (n = ...)" stays the same array.
    vary: dict = field(default_factory=dict)
    vary_group: Optional[str] = None
    # "EXAMPLE.FIELD": the value the book prints for this question where it is misprinted (the
    # errata say why), so that a student who copies it is told so, not only "not right".
    book_prints: Optional[str] = None

    def with_params(self, params: dict) -> "Question":
        """A copy of the question with some parameters replaced (a student's variant)."""
        unknown = sorted(set(params) - set(self.params))
        if unknown:
            raise KeyError(f"question {self.id!r} has no parameter(s) {', '.join(unknown)}; "
                           f"its parameters are: {', '.join(self.params) or 'none'}")
        return dataclasses.replace(self, params={**self.params, **params})

    def scope(self) -> dict:
        """What the text and the answer may name: the chapter's defines, then the parameters."""
        return {**self.chapter.define_values(), **self.params}

    def text(self) -> str:
        """The question as the student reads it, {parameters} filled in."""
        out, scope = [], self.scope()
        for literal, name, _spec, _conversion in string.Formatter().parse(self.text_template):
            out.append(literal)
            if name is not None:
                out.append(ex.format_value(scope[name]))
        return "".join(out)

    def book_value(self) -> Optional[float]:
        """The book's misprinted value of this question, for its default parameters; None when the
        book prints no such value or the question has a student's own parameters."""
        plain = next((q for q in self.chapter.questions(self.section_id) if q.id == self.id), None)
        if not self.book_prints or plain is None or self.params != plain.params:
            return None
        name, key = self.book_prints.split(".", 1)
        return float(self.chapter.examples[name].fields[key])

    @property
    def withheld(self) -> bool:
        """The answer is not in this tree: only the course's autograder can check it."""
        return self.answer_expr is None

    def expected(self) -> ex.Value:
        """The right answer: a number, or a list of numbers (NaN when withheld: see the module's doc)."""
        if self.withheld:
            return math.nan
        return self.chapter.evaluate(self.answer_expr, self.scope())


class Chapter:
    """Sections, formulas, examples, measurements and questions of the whole workbook."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.sections: list[Section] = []
        self.formulas: dict[str, Formula] = {}
        self.examples: dict[str, Example] = {}
        self.measurements: dict[str, Measurement] = {}
        # Compile-time constants (MAX_MASK_WIDTH, O_TILE_WIDTH...): #defines for kernels and
        # tests, and parameters every question can use. name -> (value, section id)
        self.defines: dict[str, tuple] = {}
        self._questions: dict[str, list[Question]] = {}
        self._sources: dict[str, str] = {}  # section id -> questions.toml path as shown in messages
        self._functions = {}  # formula name -> callable, for the evaluator

    def define_values(self) -> dict:
        return {name: value for name, (value, _section) in self.defines.items()}

    def section(self, id_or_folder: str) -> Section:
        for s in self.sections:
            if id_or_folder in (s.id, s.folder):
                return s
        known = ", ".join(f"{s.id} ({s.folder})" for s in self.sections) or "none"
        raise KeyError(f"unknown section {id_or_folder!r}; the sections are: {known}")

    def source(self, section_id: str) -> str:
        """The section's questions.toml, as error messages name it."""
        return self._sources[self.section(section_id).id]

    def grade_command(self, section_id: str) -> str:
        """What a student runs to grade the section with every check: its grade_with sections
        handed out here (a release leaves some out), else the section alone."""
        s = self.section(section_id)
        ids = [i for i in s.grade_with if not self.section(i).formulas_only] or [s.id]
        return "./workbook grade " + " ".join(ids)

    def questions(self, section_id: str) -> list[Question]:
        return list(self._questions.get(self.section(section_id).id, []))

    def call(self, name: str, *args) -> ex.Value:
        """The value of formula `name` at `args`."""
        if name not in self.formulas:
            raise KeyError(f"unknown formula {name!r}")
        f = self.formulas[name]
        if len(args) != len(f.params):
            raise ex.ExpressionError(f"{name}() takes {len(f.params)} arguments "
                                     f"({', '.join(f.params)}), got {len(args)}")
        env = dict(zip(f.params, args))
        for let_name, let_expr in f.lets:
            env[let_name] = self.evaluate(let_expr, env)
        return self.evaluate(f.expr, env)

    def evaluate(self, expr: str, env: Optional[dict] = None) -> ex.Value:
        """The value of `expr` over `env`, with the formulas callable by name."""
        return ex.evaluate(expr, env or {}, self._functions)

    def answer_key(self, section_id: str) -> list[tuple[Question, ex.Value]]:
        return [(q, q.expected()) for q in self.questions(section_id)]

    def formula_order(self) -> list[str]:
        """Formula names with every formula after the ones it calls (C++ needs that order)."""
        done: list[str] = []

        def visit(name: str) -> None:
            if name in done:
                return
            for callee in sorted(_formula_calls(self.formulas[name]) & set(self.formulas)):
                visit(callee)
            done.append(name)

        for name in self.formulas:
            visit(name)
        return done

    def verify_examples(self) -> list[str]:
        """Problems found checking each example's P_known against conv1d(N, M)."""
        problems = []
        for e in self.examples.values():
            if not all(k in e.fields for k in ("N", "M", "P_known")):
                continue
            where = f"{self._sources[e.section_id]}: example '{e.name}'"
            try:
                P = ex.conv1d(ex._as_value(e.fields["N"], "N"), ex._as_value(e.fields["M"], "M"))
            except ex.ExpressionError as err:
                problems.append(f"{where}: {err}")
                continue
            for index, value in e.fields["P_known"]:
                if not 0 <= index < len(P):
                    problems.append(f"{where}: P_known index {index} is outside P "
                                    f"(indexes 0..{len(P) - 1})")
                elif abs(P[index] - value) > 1e-9 * max(1.0, abs(value)):
                    problems.append(f"{where}: conv1d(N, M)[{index}] is "
                                    f"{ex.format_number(P[index])}, but P_known says "
                                    f"{ex.format_number(value)}")
        return problems


def _formula_calls(f: Formula) -> set[str]:
    calls = set(ex.calls_used(f.expr))
    for _, let_expr in f.lets:
        calls |= ex.calls_used(let_expr)
    return calls


# ---------------------------------------------------------------- loading

def load_chapter_once(root: Path, checked_in: Optional[Path] = None) -> Chapter:
    """load_chapter, read once a process while its files stay as they were (their size, time and
    inode): the autograder's one process takes, grades and exports, and each read is some 30 ms."""
    folder = str(Path(checked_in).resolve()) if checked_in else ""  # as grade names it, or as the environment
    key = (str(Path(root).resolve()), folder, _files_stamp(Path(root)))
    if key not in _LOADED:
        _LOADED[key] = load_chapter(root, checked_in)
    return _LOADED[key]


_LOADED = {}


def loaded_chapter(root: Path) -> Chapter:
    """The chapter under `root` as this process loaded it already (whichever build folder it was
    checked in: the text is the same), else loaded once, checked as cli._chapter checks it."""
    root_key, stamp = str(Path(root).resolve()), _files_stamp(Path(root))
    for (r, _, s), chapter in _LOADED.items():
        if r == root_key and s == stamp:
            return chapter
    return load_chapter_once(Path(root), os.environ.get(CHECKED_IN_ENV) or None)


def _files_stamp(root: Path) -> tuple:
    folder = root / "chapters"
    stamp = []
    for path in [folder / "manifest.toml", *sorted(folder.glob("*/questions.toml"))]:
        try:
            st = path.stat()
        except OSError:
            continue
        stamp.append((str(path), st.st_size, st.st_mtime_ns, st.st_ino))
    return tuple(stamp)


def load_chapter(root: Path, checked_in: Optional[Path] = None) -> Chapter:
    """The chapter under repository root `root`, checked; ChapterError if anything is wrong.

    `checked_in`: a build folder (grade's) that remembers the chapter it last checked, by a hash of
    every file read here and of the code that checks them (CHECKED_FILE): the same chapter is read
    again without its checks of formulas and questions (every varied question evaluated at each
    choice: 32 of its 47 ms here). Any changed byte is a new hash, checked again. Other
    commands check every time, unless HALO_CHAPTER_CHECKED_IN names such a folder (cli._chapter)."""
    chapter = Chapter(root)
    manifest = chapter.root / "chapters" / "manifest.toml"
    listed = _read_manifest(_load(manifest, chapter.root), _show(manifest, chapter.root))
    chapter.sections = [s for s in listed if not s.formulas_only]
    raw_questions, read = [], [manifest]
    for s in listed:
        path = chapter.root / "chapters" / s.folder / "questions.toml"
        where = _show(path, chapter.root)
        chapter._sources[s.id] = where
        if path.is_file():
            read.append(path)
            questions = _read_section(chapter, s.id, where, _load(path, root))
            if not s.formulas_only:
                raw_questions.append((s, where, questions))
    for name in chapter.formulas:
        chapter._functions[name] = functools.partial(chapter.call, name)
    digest = _digest(chapter.root, read) if checked_in else None
    known = digest is not None and _checked(checked_in) == digest
    if not known:
        for f in chapter.formulas.values():
            _check_formula(chapter, f)
        _check_cycles(chapter)
    for s, where, questions in raw_questions:
        chapter._questions[s.id] = _read_questions(chapter, s.id, where, questions, s.answers_withheld,
                                                   check=not known)
    if digest is not None and not known:
        _remember(checked_in, digest)
    return chapter


# load_chapter's record of the chapter it checked last, in a build folder: a hash, nothing else.
CHECKED_FILE = "halo-chapter-checked"
# Names that build folder for every command a process starts (cli._chapter): ./workbook check sets
# it for its tests, which load the chapter some five hundred times, 50 ms of checks each.
CHECKED_IN_ENV = "HALO_CHAPTER_CHECKED_IN"
# The code whose checks the record stands for: a change to it is a change to what "checked" means.
CHECK_CODE = (Path(__file__), Path(ex.__file__))


def _digest(root: Path, files) -> str:
    h = hashlib.sha256()
    for path in [*CHECK_CODE, *files]:
        data = path.read_bytes()
        h.update(f"{_show(path, root)}\0{len(data)}\0".encode() + data)
    return h.hexdigest()


def _checked(folder: Path) -> Optional[str]:
    try:
        return (Path(folder) / CHECKED_FILE).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None


def _remember(folder: Path, digest: str) -> None:
    """Writes the record whole or not at all; a folder that cannot be written only costs the checks.
    Only into a build folder that exists: a grade that stops before its build (limits too tight)
    leaves no folder behind, and the first grade's build makes it for the next."""
    from .results import write_atomically  # only when there is something to write
    if not Path(folder).is_dir():
        return
    try:
        write_atomically(Path(folder) / CHECKED_FILE, digest + "\n")
    except OSError:
        pass


def _show(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def _load(path: Path, root: Path) -> dict:
    try:
        return load_toml(path)
    except FileNotFoundError:
        raise ChapterError(f"{_show(path, root)}: no such file") from None
    except TOMLDecodeError as e:
        raise ChapterError(f"{_show(path, root)}: {e}") from None


def _read_manifest(data: dict, where: str) -> list[Section]:
    sections, seen = [], set()
    entries = data.get("sections", [])
    if not isinstance(entries, list):
        raise ChapterError(f"{where}: 'sections' should be an array of tables ([[sections]])")
    for k, entry in enumerate(entries, 1):
        if not isinstance(entry, dict):
            raise ChapterError(f"{where}: section #{k} should be a table")
        for key in ("id", "slug", "title", "folder"):
            if not isinstance(entry.get(key), str) or not entry[key]:
                raise ChapterError(f"{where}: section #{k}: '{key}' should be a non-empty string")
        kernels = entry.get("kernels", [])
        if not isinstance(kernels, list) or not all(isinstance(x, str) for x in kernels):
            raise ChapterError(f"{where}: section {entry['id']}: 'kernels' should be a list of strings")
        folder = entry["folder"]
        if Path(folder).name != folder or folder in (".", ".."):
            raise ChapterError(f"{where}: section {entry['id']}: folder {folder!r} should be a plain name")
        for key in ("id", "folder"):
            if (key, entry[key]) in seen:
                raise ChapterError(f"{where}: section #{k}: {key} {entry[key]!r} is used twice")
            seen.add((key, entry[key]))
        unknown = set(entry) - {"id", "slug", "title", "folder", "kernels", "points", "visibility", "hints",
                                "extra_loads", "formulas_only", "answers_withheld", "grade_with"}
        if unknown:
            raise ChapterError(f"{where}: section {entry['id']}: unknown key(s) {', '.join(sorted(unknown))}")
        points = entry.get("points", {})
        if (not isinstance(points, dict) or set(points) - {"tests", "answers"}
                or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in points.values())):
            raise ChapterError(f"{where}: section {entry['id']}: 'points' should be a table like "
                               "{ tests = 10, answers = 5 } of whole numbers >= 0")
        if kernels == [] and points.get("tests"):
            raise ChapterError(f"{where}: section {entry['id']}: a section of questions only has no tests to give points to")
        visibility = entry.get("visibility", "visible")
        if visibility not in VISIBILITIES:
            raise ChapterError(f"{where}: section {entry['id']}: visibility should be one of {', '.join(VISIBILITIES)}")
        hints = entry.get("hints", [])
        if not isinstance(hints, list) or not all(isinstance(h, str) and h.strip() for h in hints):
            raise ChapterError(f"{where}: section {entry['id']}: 'hints' should be a list of non-empty strings")
        extra_loads = entry.get("extra_loads", "advice")
        if extra_loads not in EXTRA_LOADS:
            raise ChapterError(f"{where}: section {entry['id']}: extra_loads should be one of {', '.join(EXTRA_LOADS)}")
        flags = {}
        for key in ("formulas_only", "answers_withheld"):
            flags[key] = entry.get(key, False)
            if not isinstance(flags[key], bool):
                raise ChapterError(f"{where}: section {entry['id']}: {key} should be true or false")
        if flags["formulas_only"] and kernels:
            raise ChapterError(f"{where}: section {entry['id']}: a formulas_only section is not handed out, "
                               "so it has no kernels")
        grade_with = entry.get("grade_with", [])
        if not isinstance(grade_with, list) or not all(isinstance(x, str) for x in grade_with) or \
                (grade_with and entry["id"] not in grade_with):
            raise ChapterError(f"{where}: section {entry['id']}: grade_with should list section ids, its own among them")
        sections.append(Section(entry["id"], entry["slug"], entry["title"], folder, list(kernels),
                                dict(points), visibility, list(hints), extra_loads, **flags, grade_with=list(grade_with)))
    known = {s.id for s in sections}
    for s in sections:
        if set(s.grade_with) - known:
            raise ChapterError(f"{where}: section {s.id}: grade_with names unknown section(s) "
                               f"{', '.join(sorted(set(s.grade_with) - known))}")
    return sections


def _fail(where: str, what: str, name: str, message: str) -> ChapterError:
    return ChapterError(f"{where}: {what} '{name}': {message}")


def _keys(where: str, what: str, name: str, raw: Any, allowed: set, required: set) -> None:
    if not isinstance(raw, dict):
        raise _fail(where, what, name, "should be a table")
    if not IDENTIFIER.match(name) and what != "question":
        raise _fail(where, what, name, "is not a valid name (letters, digits and _)")
    unknown = sorted(set(raw) - allowed - {"doc"})
    if unknown:
        raise _fail(where, what, name, f"unknown key(s) {', '.join(unknown)}; "
                                       f"the keys are: {', '.join(sorted(allowed | {'doc'}))}")
    for key in sorted(required):
        if key not in raw:
            raise _fail(where, what, name, f"'{key}' is missing")
    if not isinstance(raw.get("doc", ""), str):
        raise _fail(where, what, name, "'doc' should be a string")


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _read_section(chapter: Chapter, section_id: str, where: str, data: dict) -> list:
    """Adds the file's formulas, examples and measurements; returns its raw questions."""
    unknown = sorted(set(data) - {"defines", "formulas", "examples", "measurements", "questions"})
    if unknown:
        raise ChapterError(f"{where}: unknown top-level key(s) {', '.join(unknown)}; the keys are: "
                           "defines, formulas, examples, measurements, questions")
    for name, value in data.get("defines", {}).items():
        if not re.match(r"^[A-Z][A-Z0-9_]*$", name) or not isinstance(value, int) or isinstance(value, bool):
            raise ChapterError(f"{where}: define {name!r} should be an UPPER_CASE name with an integer value")
        if name in chapter.defines:
            raise ChapterError(f"{where}: define {name!r} is also defined in "
                               f"{chapter._sources[chapter.defines[name][1]]}")
        chapter.defines[name] = (value, section_id)
    for name, raw in data.get("formulas", {}).items():
        _keys(where, "formula", name, raw, {"params", "let", "expr"}, {"expr"})
        _no_duplicate(chapter, chapter.formulas, where, "formula", name)
        chapter.formulas[name] = _read_formula(where, name, raw, section_id)
    for name, raw in data.get("examples", {}).items():
        _keys(where, "example", name, raw, set(raw) - {"doc"}, set())
        _no_duplicate(chapter, chapter.examples, where, "example", name)
        chapter.examples[name] = Example(name, raw.get("doc", ""), _example_fields(where, name, raw),
                                         section_id)
    for name, raw in data.get("measurements", {}).items():
        _keys(where, "measurement", name, raw, set(raw) - {"doc"}, set())
        _no_duplicate(chapter, chapter.measurements, where, "measurement", name)
        fields = {k: v for k, v in raw.items() if k != "doc"}
        for k, v in fields.items():
            if not IDENTIFIER.match(k) or not _is_number(v):
                raise _fail(where, "measurement", name, f"field {k!r} should be a number with a "
                                                        "valid name (measurements hold scalars)")
        chapter.measurements[name] = Measurement(name, raw.get("doc", ""), fields, section_id)
    questions = data.get("questions", [])
    if not isinstance(questions, list):
        raise ChapterError(f"{where}: 'questions' should be an array of tables ([[questions]])")
    return questions


def _no_duplicate(chapter: Chapter, table: dict, where: str, what: str, name: str) -> None:
    if name in table:
        other = chapter._sources[table[name].section_id]
        raise _fail(where, what, name, f"is also defined in {other}; names are shared by all sections")


def _read_formula(where: str, name: str, raw: dict, section_id: str) -> Formula:
    params = raw.get("params", [])
    if not isinstance(params, list) or not all(isinstance(p, str) for p in params):
        raise _fail(where, "formula", name, "'params' should be a list of names")
    lets = []
    if not isinstance(raw.get("let", []), list):
        raise _fail(where, "formula", name, "'let' should be a list of \"name = expression\" strings")
    for text in raw.get("let", []):
        if not isinstance(text, str) or "=" not in text:
            raise _fail(where, "formula", name, f"let {text!r} should be a string \"name = expression\"")
        let_name, let_expr = (part.strip() for part in text.split("=", 1))
        lets.append((let_name, let_expr))
    if not isinstance(raw["expr"], str):
        raise _fail(where, "formula", name, "'expr' should be a string")
    return Formula(name, raw.get("doc", ""), list(params), lets, raw["expr"], section_id)


def _example_fields(where: str, name: str, raw: dict) -> dict:
    fields = {k: v for k, v in raw.items() if k != "doc"}
    for k, v in fields.items():
        if not IDENTIFIER.match(k):
            raise _fail(where, "example", name, f"field {k!r} is not a valid name")
        if k == "P_known":
            if not isinstance(v, list) or not all(
                    isinstance(p, list) and len(p) == 2 and type(p[0]) is int and _is_number(p[1])
                    for p in v):
                raise _fail(where, "example", name, "P_known should be a list of [index, value] pairs")
        elif not (_is_number(v) or isinstance(v, list) and all(_is_number(x) for x in v)):
            raise _fail(where, "example", name, f"field {k!r} should be a number or a list of numbers")
    return fields


def _check_names(chapter: Chapter, expr: str, scope: set, fail) -> None:
    """Every name of `expr` is in `scope`, every call is of a formula or builtin with the right
    number of arguments; `fail(message)` builds the error."""
    try:
        names, sites = ex.names_used(expr), ex.call_sites(expr)
    except ex.ExpressionError as e:
        raise fail(str(e)) from None
    for name in sorted(names - scope):
        if name in chapter.formulas or name in ex.BUILTINS:
            raise fail(f"{name!r} is a function; call it as {name}(...) in {expr!r}")
        raise fail(f"unknown name {name!r} in {expr!r}; the names here are: "
                   f"{', '.join(sorted(scope)) or 'none'}")
    for name, count in sites:
        if name in ex.BUILTINS:
            want = ex.BUILTIN_ARITY[name]
            if (want is None and count < 1) or (want is not None and count != want):
                raise fail(f"{name}() takes {want or 'one or more'} arguments, got {count}, in {expr!r}")
        elif name in chapter.formulas:
            params = chapter.formulas[name].params
            if count != len(params):
                raise fail(f"{name}() takes {len(params)} arguments ({', '.join(params)}), "
                           f"got {count}, in {expr!r}")
        else:
            raise fail(f"unknown function {name!r} in {expr!r}")


def _check_formula(chapter: Chapter, f: Formula) -> None:
    where = chapter._sources[f.section_id]

    def fail(message: str) -> ChapterError:
        return _fail(where, "formula", f.name, message)

    if f.name in ex.BUILTINS:
        raise fail("has the name of a builtin function")
    seen: set[str] = set()
    # Params and lets become C++ variables, which would hide a formula of the same name.
    for name in list(f.params) + [n for n, _ in f.lets]:
        if not IDENTIFIER.match(name):
            raise fail(f"{name!r} is not a valid parameter or let name")
        if name in seen:
            raise fail(f"the name {name!r} is defined twice")
        if name in chapter.formulas or name in ex.BUILTINS:
            raise fail(f"the parameter or let {name!r} has the name of a function")
        if name in ex.CPP_KEYWORDS:
            raise fail(f"the name {name!r} is a C++ keyword")
        seen.add(name)
    scope = set(f.params)
    for let_name, let_expr in f.lets:
        _check_names(chapter, let_expr, scope, lambda m: fail(f"let {let_name}: {m}"))
        scope.add(let_name)
    _check_names(chapter, f.expr, scope, fail)
    for expr in [e for _, e in f.lets] + [f.expr]:
        try:  # formulas become C++, so lists, indexing and conv1d are answers-only
            ex.to_cpp(expr, chapter.formulas)
        except ex.ExpressionError as e:
            raise fail(f"{e} (formulas are also generated as C++)") from None


def _check_cycles(chapter: Chapter) -> None:
    state: dict[str, str] = {}  # "active" while on the DFS path, "done" after

    def visit(name: str, path: list) -> None:
        if state.get(name) == "done":
            return
        if state.get(name) == "active":
            cycle = path[path.index(name):] + [name]
            f = chapter.formulas[name]
            raise _fail(chapter._sources[f.section_id], "formula", name,
                        f"calls itself: {' -> '.join(cycle)}")
        state[name] = "active"
        for callee in sorted(_formula_calls(chapter.formulas[name]) & set(chapter.formulas)):
            visit(callee, path + [name])
        state[name] = "done"

    for name in chapter.formulas:
        visit(name, [])


def _read_questions(chapter: Chapter, section_id: str, where: str, raw_list: list,
                    answers_withheld: bool = False, check: bool = True) -> list[Question]:
    """The section's questions; `check`: also evaluate each answer (at every varied choice)."""
    questions, seen = [], set()
    for k, raw in enumerate(raw_list, 1):
        qid = raw.get("id") if isinstance(raw, dict) else None
        label = qid if isinstance(qid, str) else f"#{k}"

        def fail(message: str, label=label) -> ChapterError:
            return _fail(where, "question", label, message)

        required = {"id", "title", "text"} | (set() if answers_withheld else {"answer"})
        _keys(where, "question", label, raw,
              {"id", "title", "text", "answer", "tolerance", "example", "measurement", "params", "measured_ratio",
               "vary", "vary_group", "book_prints"},
              required)
        for key in sorted(required | ({"answer"} & set(raw))):
            if not isinstance(raw[key], str):
                raise fail(f"'{key}' should be a string")
        if not QUESTION_ID.match(qid):
            raise fail("the id should use only letters, digits and _ (it is a key of answers.toml)")
        if qid in RESERVED_ANSWER_KEYS:
            raise fail(f"the id {qid!r} is reserved: answers files use it for a student's variant")
        if qid in seen:
            raise fail("the id is used twice in this section")
        seen.add(qid)
        tolerance = raw.get("tolerance", 0)
        if not _is_number(tolerance) or tolerance < 0:
            raise fail("'tolerance' should be a number >= 0")
        measured = raw.get("measured_ratio")
        if measured is not None and not (isinstance(measured, list) and len(measured) == 2
                                         and all(isinstance(t, str) and t for t in measured)):
            raise fail("'measured_ratio' should be two load tags, [numerator, denominator]")
        params = _question_params(chapter, raw, fail)
        vary, group = _question_vary(raw, fail)
        book = raw.get("book_prints")
        if book is not None:
            name, _, key = book.partition(".") if isinstance(book, str) else ("", "", "")
            if not _is_number(chapter.examples.get(name, Example("", "", {}, "")).fields.get(key)):
                raise fail("'book_prints' should name a number of an example defined before it: \"EXAMPLE.FIELD\"")
        questions.append(Question(qid, raw["title"], raw["text"], params,
                                  raw.get("answer"), tolerance, section_id, chapter, measured_ratio=measured,
                                  vary=vary, vary_group=group, book_prints=book))
        if check:
            _check_question(chapter, questions[-1], fail)
            _check_vary(questions[-1], fail)
    if check:
        _check_vary_groups(questions, where)
    return questions


# Top-level keys of answers.toml that are not questions (answers.py writes a variant there).
RESERVED_ANSWER_KEYS = ("variant",)

# Every combination of a question's choices is evaluated when loading, up to this many (then
# an even sample of them): a choice that breaks the answer should stop the load, not a grade.
VARY_CHECK_LIMIT = 500


def _question_vary(raw: dict, fail) -> tuple:
    """The question's `vary` table and `vary_group`, checked for shape (values: _check_vary)."""
    vary = raw.get("vary", {})
    group = raw.get("vary_group")
    if not isinstance(vary, dict):
        raise fail("'vary' should be a table, like vary = { n = [1000, 2000], m = [5, 7] }")
    if vary:
        for key in ("measured_ratio", "example", "measurement"):
            if key in raw:
                raise fail(f"a question with '{key}' cannot vary: its numbers are tied to "
                           f"{'the launches the grader measures' if key != 'example' else 'the example'}, "
                           "the same for every student")
    own = raw.get("params", {})  # a table: _question_params has checked it
    for name, choices in vary.items():
        if name not in own:
            raise fail(f"vary: {name!r} is not one of the question's params "
                       f"({', '.join(own) or 'none'}); only a param can vary")
        if not _is_number(own[name]):
            raise fail(f"vary: param {name!r} is a list; only a number can vary")
        if not (isinstance(choices, list) and choices and all(_is_number(c) for c in choices)):
            raise fail(f"vary: {name} should be a non-empty list of numbers, like {name} = [1000, 2000]")
        if len(set(choices)) != len(choices):
            raise fail(f"vary: {name} lists a choice twice")
    if group is not None:
        if not vary:
            raise fail("'vary_group' without 'vary': nothing varies")
        if not isinstance(group, str) or not IDENTIFIER.match(group):
            raise fail("'vary_group' should be a name (letters, digits and _)")
    return dict(vary), group


def _check_vary(q: Question, fail) -> None:
    """Every varied param is shown in the text, and every choice gives an answer."""
    if not q.vary:
        return
    shown = {name for _l, name, _s, _c in string.Formatter().parse(q.text_template) if name}
    for name in q.vary:
        if name not in shown:
            raise fail(f"vary: {name!r} varies but the text never shows it (write {{{name}}} in the text), "
                       "so a student could not know their number")
    if q.withheld:
        return  # no answer here to evaluate at each choice
    names = list(q.vary)
    combos = list(itertools.product(*(q.vary[n] for n in names)))
    if len(combos) > VARY_CHECK_LIMIT:
        step = len(combos) / VARY_CHECK_LIMIT
        combos = [combos[int(k * step)] for k in range(VARY_CHECK_LIMIT)] + [combos[-1]]
    for combo in combos:
        variant = q.with_params(dict(zip(names, combo)))
        shown_as = ", ".join(f"{n} = {ex.format_value(v)}" for n, v in zip(names, combo))
        try:
            value = variant.expected()
            variant.text()
        except ex.ExpressionError as e:
            raise fail(f"vary: with {shown_as} the answer fails: {e}") from None
        values = value if isinstance(value, list) else [value]
        if not all(math.isfinite(v) for v in values):
            raise fail(f"vary: with {shown_as} the answer is not a finite number")


def _check_vary_groups(questions: list, where: str) -> None:
    first: dict = {}
    for q in questions:
        if q.vary_group is None:
            continue
        if q.vary_group not in first:
            first[q.vary_group] = q
            continue
        other = first[q.vary_group]
        if q.vary != other.vary:
            raise _fail(where, "question", q.id,
                        f"vary_group {q.vary_group!r}: its vary table differs from that of "
                        f"'{other.id}'; the questions of a group share their choices")


def _question_params(chapter: Chapter, raw: dict, fail) -> dict:
    """Example fields (but doc and P_known), then measurement fields, then the own params."""
    params: dict = {}
    for key, table in (("example", chapter.examples), ("measurement", chapter.measurements)):
        if key in raw:
            if raw[key] not in table:
                raise fail(f"unknown {key} {raw[key]!r}; the {key}s are: {', '.join(table) or 'none'}")
            params.update({k: v for k, v in table[raw[key]].fields.items() if k != "P_known"})
    own = raw.get("params", {})
    if not isinstance(own, dict):
        raise fail("'params' should be a table, like params = { n = 1000, m = 9 }")
    for k, v in own.items():
        if not IDENTIFIER.match(k) or not (_is_number(v) or isinstance(v, list)
                                           and all(_is_number(x) for x in v)):
            raise fail(f"param {k!r} should be a number or a list of numbers with a valid name")
    params.update(own)
    return params


def _check_question(chapter: Chapter, q: Question, fail) -> None:
    try:
        fields = list(string.Formatter().parse(q.text_template))
    except ValueError as e:
        raise fail(f"text: {e} (write {{{{ and }}}} for literal braces)") from None
    scope = q.scope()
    for _literal, name, spec, conversion in fields:
        if name is not None and (name not in scope or spec or conversion):
            raise fail(f"text uses {{{name}{'!' + conversion if conversion else ''}"
                       f"{':' + spec if spec else ''}}}, but only {{param}} with a parameter or a define "
                       f"works; the parameters are: {', '.join(q.params) or 'none'}")
    if q.withheld:
        return
    _check_names(chapter, q.answer_expr, set(scope), lambda m: fail(f"answer: {m}"))
    try:
        q.expected()
    except ex.ExpressionError as e:
        raise fail(f"answer: {e}") from None
