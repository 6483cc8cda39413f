"""The student's answers file (answers.toml): its template, parsing and grading.

Messages point at `path:line` and say what to type, because the people reading them are
learning CUDA, not TOML. A wrong answer never reveals the expected value.
"""
from __future__ import annotations

import datetime
import difflib
import json
import math
import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from . import measured
from .expressions import format_number
from .tomlcompat import TOMLDecodeError, loads_toml

RIGHT, WRONG, NOT_ANSWERED, INVALID = "right", "wrong", "not answered", "invalid"


class AnswersError(Exception):
    """An answers file that cannot be read; str() is "<path>:<line>: <what is wrong>"."""


@dataclass(frozen=True)
class Verdict:
    status: str  # RIGHT, WRONG, NOT_ANSWERED or INVALID
    message: str


@dataclass
class ParsedAnswers:
    path: str
    values: dict = field(default_factory=dict)
    lines: dict = field(default_factory=dict)  # key -> 1-based line where it is set

    def where(self, key: str) -> str:
        line = self.lines.get(key)
        return f"{self.path}:{line}" if line else self.path


# ---------------------------------------------------------------- writing numbers

def _toml_number(x) -> str:
    """x as TOML that reads back as exactly x: `22` when integral, else the shortest float."""
    if isinstance(x, int) and not isinstance(x, bool):
        return str(x)
    x = float(x)
    if x.is_integer() and abs(x) < 2 ** 63:  # TOML integers are 64-bit
        return str(int(x))
    text = format_number(x)
    try:
        return text if float(text) == x else repr(x)
    except ValueError:
        return repr(x)


def _toml_value(v) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(_toml_number(x) for x in v) + "]"
    return _toml_number(v)


def answers_template(chapter, section_id: str, with_key: bool = False) -> str:
    """The answers file to hand out (every answer "") or, with_key, the filled-in key."""
    section = chapter.section(section_id)
    lines = [f"# Answers for section {section.id}: {section.title}",
             '# Replace each "" with a number, or a list of numbers where the question asks for one.',
             f"# Grade with: ./workbook grade {section.id}"]
    if with_key:
        lines.append("# This copy is the answer key.")
    for q in chapter.questions(section.id):
        lines += ["", "# " + " ".join(q.title.split())]
        lines += ["# " + line for line in textwrap.wrap(q.text(), 94, break_long_words=False,
                                                        break_on_hyphens=False)]
        lines.append(f"{q.id} = {_toml_value(q.expected()) if with_key else chr(34) * 2}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- reading

_TOML_WHERE = re.compile(r"^(?P<what>.*?)\s*\((?:at line (?P<line>\d+), column \d+|"
                         r"at end of document)\)\s*$", re.S)


def _key_lines(text: str, keys) -> dict:
    """The first line setting each top-level key: `key =`, a dotted `key.x =` or a `[key]` table."""
    lines = {}
    for key in keys:
        k = re.escape(key)
        name = rf"(?:{k}|\"{k}\"|'{k}')"
        # [ \t] rather than \s: with re.M, \s would run back over blank lines before the key.
        pattern = re.compile(rf"^[ \t]*(?:{name}[ \t]*[=.]|\[\[?[ \t]*{name}[ \t]*[\].])", re.M)
        m = pattern.search(text)
        if m:
            lines[key] = text.count("\n", 0, m.start()) + 1
    return lines


def parse_answers(path) -> ParsedAnswers:
    """The answers file's values and the line of each; AnswersError if it cannot be read."""
    shown = str(path)
    try:
        text = Path(path).read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise AnswersError(f"{shown}: no such file") from None
    except UnicodeDecodeError as e:
        line = Path(path).read_bytes()[:e.start].count(b"\n") + 1
        raise AnswersError(f"{shown}:{line}: the file is not UTF-8 text") from None
    except OSError as e:
        raise AnswersError(f"{shown}: cannot read it: {e.strerror}") from None
    try:
        values = loads_toml(text)
    except TOMLDecodeError as e:
        m = _TOML_WHERE.match(str(e))
        if not m:
            raise AnswersError(f"{shown}: {e}") from None
        line = m.group("line") or text.count("\n") + (0 if text.endswith("\n") else 1)
        raise AnswersError(f"{shown}:{line}: {m.group('what')}") from None
    return ParsedAnswers(shown, values, _key_lines(text, values))


# ---------------------------------------------------------------- grading

def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _describe(v: Any) -> str:
    if isinstance(v, str):
        return f"the string {json.dumps(v, ensure_ascii=False)}"
    if isinstance(v, bool):
        return f"{str(v).lower()} (a boolean)"
    if isinstance(v, dict):
        return "a table"
    if isinstance(v, (datetime.date, datetime.time)):
        return "a date or time"
    if isinstance(v, list):
        return f"a list of {len(v)} value{'s' if len(v) != 1 else ''}"
    return f"the number {_toml_number(v)}"


def _unquoted(s: str, expected) -> Optional[str]:
    """The text of string `s` if, written without quotes, it would be a fitting answer."""
    s = s.strip()
    if "\n" in s:
        return None
    try:
        v = loads_toml(f"v = {s}")["v"]
    except (TOMLDecodeError, KeyError):
        return None
    if isinstance(expected, list):
        ok = isinstance(v, list) and len(v) == len(expected) and all(map(_is_number, v))
    else:
        ok = _is_number(v)
    return s if ok else None


def _shape_problem(qid: str, given: Any, expected) -> Optional[str]:
    """Why `given` cannot be graded against `expected`, or None when it can."""
    want = f"a list of {len(expected)} numbers" if isinstance(expected, list) else "a number"
    if isinstance(given, str):
        fixed = _unquoted(given, expected)
        if fixed is not None:
            kind = "list" if isinstance(expected, list) else "number"
            return (f"{qid} is {_describe(given)}; write the {kind} without quotes: "
                    f"{qid} = {fixed}")
        return f"{qid} is {_describe(given)}; write {want} instead, without quotes"
    if isinstance(expected, list):
        if not isinstance(given, list):
            return f"{qid} is {_describe(given)}; this question asks for {want}, like [1, 2, 3]"
        if len(given) != len(expected):
            return f"{qid} is {_describe(given)}; this question asks for {want}"
        for k, item in enumerate(given):
            if not _is_number(item):
                return f"element {k} of {qid} is {_describe(item)}; every element must be a number"
        return None
    if not _is_number(given):
        return f"{qid} is {_describe(given)}; this question asks for {want}"
    return None


def _close(given, expected, tolerance: float) -> bool:
    pairs = zip(given, expected) if isinstance(expected, list) else [(given, expected)]
    return all(math.isfinite(float(g)) and abs(float(g) - e) <= tolerance for g, e in pairs)


def judge(question, expected, parsed: ParsedAnswers) -> Verdict:
    """The verdict on `question` (whose answer is `expected`) in an already parsed file."""
    qid, where = question.id, parsed.where(question.id)
    if qid not in parsed.values:
        return Verdict(NOT_ANSWERED, f"{parsed.path}: {qid} is missing; add a line "
                                     f"{qid} = <your answer>")
    given = parsed.values[qid]
    if isinstance(given, str) and not given.strip():
        return Verdict(NOT_ANSWERED, f'{where}: {qid} is not answered yet; replace the "" on '
                                     "that line with your answer")
    problem = _shape_problem(qid, given, expected)
    if problem:
        return Verdict(INVALID, f"{where}: {problem}")
    shown = _toml_value(given)
    if _close(given, expected, question.tolerance):
        return Verdict(RIGHT, f"{where}: {qid} = {shown}, right")
    return Verdict(WRONG, f"{where}: {qid} = {shown}, which is not right")


def _question(chapter, section_id: str, question_id: str):
    for q in chapter.questions(section_id):
        if q.id == question_id:
            return q
    raise KeyError(f"section {section_id} has no question {question_id!r}")


def check_question(chapter, section_id: str, question_id: str, path, report_dir=None) -> Verdict:
    """Grades one question; a file that cannot be read makes it INVALID with the parse error.
    With `report_dir`, a question with `measured_ratio` must also match the ratio measured on
    the student's own kernels in that run, when both kernels passed."""
    question = _question(chapter, section_id, question_id)
    try:
        parsed = parse_answers(path)
    except AnswersError as e:
        return Verdict(INVALID, str(e))
    verdict = judge(question, question.expected(), parsed)
    if verdict.status != RIGHT or not question.measured_ratio:
        return verdict
    found = measured.ratio(report_dir, question.measured_ratio)
    if found is None:
        return Verdict(RIGHT, "matches the formula; the ratio measured on your kernels is not available yet "
                              f"(it needs passing kernels for {' and '.join(question.measured_ratio)})")
    num, den = found
    given = parsed.values[question.id]
    shown = f"{num:,} / {den:,} = {format_number(num / den)}"
    if abs(given - num / den) > max(question.tolerance, 0):
        return Verdict(WRONG, f"{parsed.where(question.id)}: {question.id} = {format_number(given)} agrees with the "
                              f"formula but not with your kernels, which measured {shown}")
    return Verdict(RIGHT, f"matches the formula and your kernels' measured loads ({shown})")


def check_file(chapter, section_id: str, path) -> list[str]:
    """Problems with the file as a whole: TOML errors and keys that are no question."""
    try:
        parsed = parse_answers(path)
    except AnswersError as e:
        return [str(e)]
    ids = [q.id for q in chapter.questions(section_id)]
    problems = []
    for key in parsed.values:
        if key not in ids:
            close = difflib.get_close_matches(key, ids, n=1)
            hint = f"did you mean '{close[0]}'? " if close else ""
            problems.append(f"{parsed.where(key)}: unknown question {key!r}; {hint}"
                            f"the questions are: {', '.join(ids)}")
    return problems
