"""The student's answers file (answers.toml): its template, parsing and grading.

Messages point at `path:line` and say what to type, because the people reading them are
learning CUDA, not TOML. A wrong answer never reveals the expected value.
"""
from __future__ import annotations

import ast
import copy
import dataclasses
import datetime
import difflib
import json
import math
import os
import re
import stat
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from . import measured, paths, toml_entries, variants
from .expressions import format_number, format_value, names_used
from .tomlcompat import TOMLDecodeError, loads_toml

RIGHT, WRONG, NOT_ANSWERED, INVALID = "right", "wrong", "not answered", "invalid"
# A question whose answer this tree does not hold (a summative student release): it is answered,
# in a usable form, and only the course's autograder can say more.
AUTOGRADER = "checked by your course's autograder"


class AnswersError(Exception):
    """An answers file that cannot be read; str() is "<path>:<line>: <what is wrong>"."""


# Why a question could not be graded, for the status an instructor reads (core/statuses.py).
UNREADABLE, VARIANT = "unreadable", "variant"


@dataclass(frozen=True)
class Verdict:
    status: str  # RIGHT, WRONG, NOT_ANSWERED or INVALID
    message: str
    cause: Optional[str] = None  # UNREADABLE or VARIANT when the answer could not be graded for that


@dataclass
class ParsedAnswers:
    path: str
    values: dict = field(default_factory=dict)
    lines: dict = field(default_factory=dict)  # key -> 1-based line where it is set
    # full dotted key ("variant.params.<question>") -> line, for the variant's own lines
    dotted_lines: dict = field(default_factory=dict)
    # entries that could not be read (toml_entries.Broken), each costing only what it sets
    broken: list = field(default_factory=list)

    def where(self, key: str) -> str:
        line = self.lines.get(key)
        return f"{self.path}:{line}" if line else self.path

    def where_dotted(self, key: str) -> str:
        """path:line of a dotted key such as variant.params.q (else of its top-level key)."""
        line = self.dotted_lines.get(key)
        return f"{self.path}:{line}" if line else self.where(key.split(".")[0])


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


def _toml_string(s: str) -> str:
    # A JSON string is a TOML basic string as long as it holds no "\/" (json.dumps writes none).
    return json.dumps(s, ensure_ascii=False)


def _toml_inline_table(params: dict) -> str:
    return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in params.items()) + " }"


def answers_template(chapter, section_id: str, with_key: bool = False,
                     student: Optional[str] = None, secret: Optional[str] = None) -> str:
    """The answers file to hand out (every answer "") or, with_key, the filled-in key. With a
    student, the file is theirs: it records their variant and its questions carry their
    numbers (secret: the course secret; None reads HALO_COURSE_SECRET or course.toml)."""
    section = chapter.section(section_id)
    questions = chapter.questions(section.id)
    lines = [f"# Answers for section {section.id}: {section.title}",
             '# Replace each "" with a number, or a list of numbers where the question asks for one.',
             f"# Grade with: {chapter.grade_command(section.id)}"]
    if with_key:
        lines.append("# This copy is the answer key.")
    if student is not None:
        student = variants.check_student_id(student)
        if secret is None:
            secret = variants.secret_from_env_or_file(chapter.root)
        questions = [variants.variant_question(q, student, secret) for q in questions]
        # The variant is written as dotted keys (variant.student, variant.params.<question>),
        # not as a [variant] table: TOML puts every key after a table header into that table,
        # so a table at the top would swallow the answers below it.
        lines += ["", f"# Your variant: the numbers of some questions below are yours, picked for {student}.",
                  "# Leave the variant lines as they are: the grader recomputes them and reports any change.",
                  f"variant.student = {_toml_string(student)}",
                  f"variant.course = {_toml_string(variants.secret_fingerprint(secret))}"]
        lines += [f"variant.params.{q.id} = {_toml_inline_table({k: q.params[k] for k in q.vary})}"
                  for q in questions if q.vary]
    for q in questions:
        lines += ["", "# " + " ".join(q.title.split())]
        lines += ["# " + line for line in textwrap.wrap(q.text(), 94, break_long_words=False,
                                                        break_on_hyphens=False)]
        lines.append(f"{q.id} = {_toml_value(q.expected()) if with_key else chr(34) * 2}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- reading

# What an answers file may be. The largest stub is under 5 KB, so these limits never touch a real
# one; they bound what a file can cost the grader (a 100 MB file took 155 s to read, a 100,000-deep
# array crashed the whole grade) so that a hostile file is its own section's verdict, no more.
MAX_BYTES = 64 << 10   # read no further: the file's size is the first limit on parse time
MAX_DEPTH = 8          # arrays and inline tables inside one another (the parser recurses on them)
MAX_VALUES = 256       # keys, tables and array items (a key stub has under 30): what later passes walk


def _read_limited(path, shown: str) -> bytes:
    """The file's bytes, or AnswersError: a pipe is not waited on (O_NONBLOCK) and a device or
    other special file is never read, and no more than MAX_BYTES + 1 bytes are read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except FileNotFoundError:
        raise AnswersError(f"{shown}: no such file") from None
    except OSError as e:
        raise AnswersError(f"{shown}: cannot read it: {e.strerror}") from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise AnswersError(f"{shown}: not a regular file (a pipe, a device or a folder): an answers file "
                               "is a text file")
        data = f.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise AnswersError(f"{shown}: the file is larger than {MAX_BYTES:,} bytes, the limit for an answers "
                           "file (the stub is a few KB): it was not read")
    return data


def _string_end(text: str, i: int) -> int:
    """The index just past the TOML string opening at text[i]. A one-line string also ends at
    the line's end (TOML forbids a newline in one), so a misread quote costs one line at most."""
    q = text[i]
    if text.startswith(q * 3, i):
        end = text.find(q * 3, i + 3) if q == "'" else _basic_end(text, i + 3, q * 3)
        if end < 0:
            return len(text)
        end += 3
        for _ in range(2):  # the content may end in up to two quotes: """a"""" is 'a"'
            if end < len(text) and text[end] == q:
                end += 1
        return end
    stop = text.find("\n", i + 1)
    stop = len(text) if stop < 0 else stop
    end = text.find(q, i + 1, stop) if q == "'" else _basic_end(text, i + 1, q, stop)
    return stop if end < 0 else end + 1


def _basic_end(text: str, i: int, quote: str, stop=None) -> int:
    """Where `quote` closes a basic string from text[i] (backslash escapes skipped), or -1."""
    stop = len(text) if stop is None else stop
    while i < stop:
        if text[i] == "\\":
            i += 2
        elif text.startswith(quote, i):
            return i
        else:
            i += 1
    return -1


def _too_deep(text: str) -> Optional[int]:
    """The line of the first array or inline table nested deeper than MAX_DEPTH, else None;
    brackets in strings and comments do not count. Checked before parsing: the parser
    recurses once per level, and 100,000 levels ran it out of stack."""
    depth, i = 0, 0
    while i < len(text):
        c = text[i]
        if c == "#":
            i = text.find("\n", i)
            if i < 0:
                break
        elif c in "\"'":
            i = _string_end(text, i)
            continue
        elif c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return text.count("\n", 0, i) + 1
        elif c in "]}":
            depth = max(depth - 1, 0)
        i += 1
    return None


def _count_values(values) -> int:
    """Keys, tables and array items in the parsed file, counted without recursion and stopping
    just past MAX_VALUES."""
    count, stack = 0, [values]
    while stack and count <= MAX_VALUES:
        v = stack.pop()
        items = v.values() if isinstance(v, dict) else v if isinstance(v, list) else ()
        for item in items:
            count += 1
            stack.append(item)
    return count


_TOML_WHERE = re.compile(r"^(?P<what>.*?)\s*\((?:at line (?P<line>\d+), column \d+|"
                         r"at end of document)\)\s*$", re.S)


def _sets(rest: str, form: str, ends: str) -> bool:
    """Whether `rest` starts with the key `form`, then blanks, then one of `ends`."""
    return rest.startswith(form) and rest[len(form):].lstrip(" \t")[:1] in tuple(ends)


def _key_lines(text: str, keys) -> dict:
    """The first line setting each top-level key: `key =`, a dotted `key.x =` or a `[key]` table,
    the key bare or in either quotes. Plain string tests, line by line: a regular expression for
    each key cost every grade a compile per key of every answers file (28 ms of an autograder run)."""
    wanted = {key: (key, f'"{key}"', f"'{key}'") for key in keys}
    lines = {}
    for number, line in enumerate(text.split("\n"), 1):  # the lines `^` starts under re.M
        rest = line.lstrip(" \t")
        if not rest or rest[0] == "#":  # most lines of an answers file are comments
            continue
        # `[key]`, `[[key]]`: after one bracket or two (a key may itself start with one)
        headers = [rest[1:].lstrip(" \t")] + ([rest[2:].lstrip(" \t")] if rest.startswith("[[") else []) \
            if rest.startswith("[") else []
        for key, forms in wanted.items():
            if key not in lines and any(_sets(rest, f, "=.") or any(_sets(h, f, "].") for h in headers)
                                        for f in forms):
                lines[key] = number
        if len(lines) == len(wanted):
            break
    return lines


def parse_answers(path, shown: Optional[str] = None) -> ParsedAnswers:
    """The answers file's values and the line of each; AnswersError if it cannot be read. `shown`:
    the path its messages name (by default `path` as given)."""
    shown = shown or str(path)
    return parse_answers_bytes(_read_limited(path, shown), shown)


def parse_answers_bytes(data: bytes, shown: str) -> ParsedAnswers:
    """parse_answers for bytes already read (within the same limit): a submission's file, which
    the intake reads once, without following links. A grade checks each question on its own, so
    one file's bytes are parsed once and each caller gets its own copy."""
    key = (data, shown)
    if key not in _PARSED:
        if len(_PARSED) >= 8:
            _PARSED.pop(next(iter(_PARSED)))
        _PARSED[key] = _parse_answers_bytes(data, shown)
    return copy.deepcopy(_PARSED[key])


_PARSED: dict = {}  # (bytes, shown) -> ParsedAnswers, the last few files parsed


def _parse_answers_bytes(data: bytes, shown: str) -> ParsedAnswers:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise AnswersError(f"{shown}:{line}: the file is not UTF-8 text") from None
    deep = _too_deep(text)
    if deep:
        raise AnswersError(f"{shown}:{deep}: arrays or tables nested more than {MAX_DEPTH} deep: an answer is a "
                           "number (or a short list of numbers)")
    try:
        values = loads_toml(text)
    except RecursionError:  # nesting the scan above misread: still this file's verdict, not a crash
        raise AnswersError(f"{shown}: arrays or tables nested too deep to read") from None
    except TOMLDecodeError as e:
        if len(toml_entries.entries(text)) > MAX_VALUES:  # bounds the work of reading entry by entry
            raise _too_many(shown) from None
        values, broken = _read_entry_by_entry(text, e)
    else:
        broken = []
    if _count_values(values) > MAX_VALUES:
        raise _too_many(shown)
    return ParsedAnswers(shown, values, _key_lines(text, values), _dotted_lines(text), broken)


def _too_many(shown: str) -> AnswersError:
    return AnswersError(f"{shown}: more than {MAX_VALUES:,} keys and values, the limit for an answers file "
                        "(the stub has a few dozen)")


def _read_entry_by_entry(text: str, error: TOMLDecodeError) -> tuple:
    """(values, [Broken]) of a file the parser refused as a whole: each entry read on its own,
    so that a typo costs the answer on its line and no other (toml_entries.py)."""
    values, broken = toml_entries.read(text)
    lines = text.split("\n")
    broken = [dataclasses.replace(b, what=_arithmetic_answer(lines[b.first - 1]) or b.what) for b in broken]
    if not broken:  # every entry reads alone but not together (a table declared twice, say)
        m = _TOML_WHERE.match(str(error))
        line = int(m.group("line")) if m and m.group("line") else len(lines)
        broken = [toml_entries.Broken(line, line, None, m.group("what") if m else str(error))]
    return values, broken


def broken_lines(parsed: ParsedAnswers, b) -> str:
    """path:line (or path:first-last) of a Broken entry."""
    return f"{parsed.path}:{b.lines}"


_ARITHMETIC = re.compile(r"^[ \t]*([A-Za-z0-9_]+)[ \t]*=[ \t]*([0-9.eE \t()+\-*/]*[*/+][0-9.eE \t()+\-*/]*?)[ \t]*(#.*)?$")


def _arithmetic_answer(line: str) -> Optional[str]:
    """What to say for `key = 1408/138`: TOML holds numbers, not sums; the decimal to write instead."""
    m = _ARITHMETIC.match(line)
    if not m or not re.search(r"\d", m.group(2)):
        return None
    try:
        tree = ast.parse(m.group(2).strip(), mode="eval")
        if not all(isinstance(n, (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.operator, ast.unaryop))
                   for n in ast.walk(tree)):
            return None
        value = float(eval(compile(tree, "<answer>", "eval"), {"__builtins__": {}}))  # numbers and + - * / only
    except (SyntaxError, ZeroDivisionError, TypeError, ValueError, OverflowError):
        return None
    return (f"{m.group(1)} = {m.group(2).strip()} is arithmetic, and an answers file holds numbers: write the "
            f"decimal value, e.g. {m.group(1)} = {value:.2f}")


_TABLE_HEADER = re.compile(r"""^[ \t]*\[\[?[ \t]*([A-Za-z0-9_.\-"' \t]+?)[ \t]*\]\]?[ \t]*(?:#.*)?$""")
_KEY_LINE = re.compile(r"""^[ \t]*([A-Za-z0-9_.\-"' \t]+?)[ \t]*=""")


def _dotted_lines(text: str) -> dict:
    """The first line of each full dotted key, under the table header in force there:
    `variant.params.q = {...}` and `[variant.params]` then `q = {...}` both give
    "variant.params.q". Quotes and blanks around the parts are dropped (good enough for lines)."""
    found, table = {}, ""
    for number, line in enumerate(text.splitlines(), 1):
        header = _TABLE_HEADER.match(line)
        if header:
            table = re.sub(r"""[\s"']""", "", header.group(1))
            continue
        key = _KEY_LINE.match(line)
        if key:
            name = re.sub(r"""[\s"']""", "", key.group(1))
            found.setdefault(f"{table}.{name}" if table else name, number)
    return found


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
        mine = [b for b in parsed.broken if b.key == qid]
        if mine:
            return Verdict(INVALID, f"{broken_lines(parsed, mine[0])}: {qid} could not be read: {mine[0].what}. "
                                    "Fix that line; the file's other answers still count", UNREADABLE)
        unnamed = [b for b in parsed.broken if b.key is None]
        if unnamed:
            shown = ", ".join(b.lines for b in unnamed)
            return Verdict(NOT_ANSWERED, f"{parsed.path}: {qid} is missing; lines {shown} of the file could not "
                                         f"be read, so it may be there: fix them", UNREADABLE)
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
    book = question.book_value() if question.chapter is not None else None
    if book is not None and _close(given, book, question.tolerance):
        return Verdict(WRONG, f"{where}: {qid} = {shown} is the book's misprint, not the right value; see the "
                              f"errata of section {question.section_id} (./workbook docs, page Errata)")
    return Verdict(WRONG, f"{where}: {qid} = {shown}, which is not right{_inputs_said(question, expected)}; "
                          f"stuck? ./workbook hint {question.section_id}")


def _inputs_said(question, expected) -> str:
    """", computed from n = 1000, m = 9": the values the answer's formula reads, in the order it
    reads them, so that a wrong answer points at what to recompute. Where one of them is the
    answer itself (threads per block = t), only their names: a wrong answer never reveals it."""
    scope, used = question.scope(), names_used(question.answer_expr)
    names = [n for n in dict.fromkeys(re.findall(r"[A-Za-z_]\w*", question.answer_expr)) if n in scope and n in used]
    if not names:
        return ""
    if any(scope[n] == expected for n in names):
        return ", computed from " + ", ".join(names) + " (their values are in the question)"
    return ", computed from " + ", ".join(f"{n} = {format_value(scope[n])}" for n in names)


def _withheld(question, parsed: ParsedAnswers) -> Verdict:
    """The verdict on a withheld question: not answered, unusable (a string, say), or answered
    and left to the course's autograder. Never right or wrong: nothing here knows the key."""
    qid = question.id
    given = parsed.values.get(qid)
    if qid not in parsed.values or isinstance(given, str) and not given.strip():
        return judge(question, None, parsed)  # the same "not answered" messages as ever
    # Either shape may be the right one: a number, or a list of numbers of any length.
    problem = _shape_problem(qid, given, [0] * len(given) if isinstance(given, list) else 0)
    if problem:
        return Verdict(INVALID, f"{parsed.where(qid)}: {problem}")
    return Verdict(AUTOGRADER, f"{parsed.where(qid)}: {qid} = {_toml_value(given)}: this release holds no "
                               f"answer key, so your answer is {AUTOGRADER}")


def _question(chapter, section_id: str, question_id: str):
    for q in chapter.questions(section_id):
        if q.id == question_id:
            return q
    raise KeyError(f"section {section_id} has no question {question_id!r}")


# ---------------------------------------------------------------- variants

VARIANT_KEY = "variant"  # the top-level key of a student's variant (never a question id)


class _VariantProblem(Exception):
    """A variant record that cannot be used; str() is the message, with path:line."""


def _file_variant(parsed: ParsedAnswers) -> Optional[tuple]:
    """(student, {question id: recorded params}) of the file, None for the plain edition."""
    if VARIANT_KEY not in parsed.values:
        return None
    v = parsed.values[VARIANT_KEY]
    where = parsed.where(VARIANT_KEY)
    if not isinstance(v, dict):
        raise _VariantProblem(f"{where}: variant is {_describe(v)}; it should be the variant lines the "
                              "file came with (variant.student = \"...\" and variant.params...)")
    unknown = sorted(set(v) - {"student", "course", "params"})
    if unknown:
        raise _VariantProblem(f"{parsed.where_dotted('variant.' + unknown[0])}: variant.{unknown[0]} is "
                              "not part of a variant; a variant has variant.student, variant.course and "
                              "variant.params")
    course = v.get("course")
    if course is not None and not isinstance(course, str):
        raise _VariantProblem(f"{parsed.where_dotted('variant.course')}: variant.course is {_describe(course)}; "
                              "put back the line the file came with")
    student = v.get("student")
    if not isinstance(student, str) or not student.strip():
        raise _VariantProblem(f"{parsed.where_dotted('variant.student')}: the variant names no student; "
                              'it needs its line variant.student = "<your student ID>"')
    params = v.get("params", {})
    if not isinstance(params, dict):
        raise _VariantProblem(f"{parsed.where_dotted('variant.params')}: variant.params is "
                              f"{_describe(params)}; it should be the lines variant.params.<question> = {{ ... }}")
    return student.strip(), params, course


def _edited_params(qid: str, sid: str, recorded: Any, right: dict, where: str) -> Optional[str]:
    """What differs between the recorded and the right params of a variant, or None."""
    if not isinstance(recorded, dict):
        return (f"{where}: {qid}: the variant records {_describe(recorded)} for its parameters; "
                f"student {sid!r} has variant.params.{qid} = {_toml_inline_table(right)}")
    for name, value in right.items():
        if name not in recorded:
            return (f"{where}: {qid}: parameter {name} is missing from the variant; student {sid!r} "
                    f"has {name} = {_toml_value(value)}: put it back")
        if not _is_number(recorded[name]) or recorded[name] != value:
            shown = _toml_value(recorded[name]) if _is_number(recorded[name]) else _describe(recorded[name])
            return (f"{where}: {qid}: parameter {name} was edited: it is {shown} here, but the variant "
                    f"of student {sid!r} has {name} = {_toml_value(value)}. A variant's parameters come "
                    f"from the student ID and are not accepted edited: put back {name} = {_toml_value(value)}")
    extra = sorted(set(recorded) - set(right))
    if extra:
        return (f"{where}: {qid}: parameter {extra[0]} does not vary in this question; "
                f"student {sid!r} has variant.params.{qid} = {_toml_inline_table(right)}")
    return None


UNVERIFIED = (" (graded with the numbers of your variant; this machine has no course secret, so the "
              "course's grader checks that they are yours)")


def file_variant(path, shown: str) -> Optional[tuple]:
    """(student, {question id: recorded params}) of the variant the answers file records, None
    for the plain edition; AnswersError when the file or its variant lines cannot be read."""
    try:
        found = _file_variant(parse_answers(path, shown))
    except _VariantProblem as e:
        raise AnswersError(str(e)) from None
    return found[:2] if found else None


def file_student(path, shown: str) -> Optional[str]:
    """The student whose variant the answers file records, None for the plain edition."""
    found = file_variant(path, shown)
    return found[0] if found else None


def _variant_of(chapter, question, parsed: ParsedAnswers, secret, student) -> tuple:
    """(the question as the file's variant asks it, a note for the verdict or None, None) or
    (None, None, an INVALID Verdict)."""
    def invalid(message: str) -> tuple:
        # A variant line that could not be read is a typo to fix, not another student's numbers.
        typo = [b for b in parsed.broken if b.key == VARIANT_KEY]
        if typo:
            return None, None, Verdict(INVALID, f"{message} ({broken_lines(parsed, typo[0])} could not be read: "
                                                f"{typo[0].what})", UNREADABLE)
        return None, None, Verdict(INVALID, message, VARIANT)

    try:
        found = _file_variant(parsed)
    except _VariantProblem as e:
        return invalid(str(e))
    if student is not None:
        student = student.strip()
        if found is None:
            return invalid(f"{parsed.path}: {question.id} varies per student, but this answers "
                           f"file has no variant; answer it in the file written for {student!r}")
        if found[0] != student:
            return invalid(f"{parsed.where_dotted('variant.student')}: this file is the "
                           f"variant of {found[0]!r}, not of {student!r}")
    if found is None:
        return question, None, None  # the plain edition: the default parameters
    sid, recorded, course = found
    try:
        configured = secret is not None or variants.secret_configured(chapter.root)
        if secret is None:
            secret = variants.secret_from_env_or_file(chapter.root)
        right = variants.params_for(question, sid, secret)
    except variants.VariantError as e:
        return invalid(f"{parsed.where_dotted('variant.student')}: {e}")
    where = parsed.where_dotted(f"variant.params.{question.id}")
    if question.id not in recorded:
        return invalid(f"{where}: {question.id} varies per student, but the variant records no "
                       f"parameters for it; put back its line variant.params.{question.id} = ...")
    note = None
    if course is not None and course != variants.secret_fingerprint(secret):
        if configured:
            return invalid(f"{parsed.where_dotted('variant.course')}: this file was written with "
                           "another course secret than this grader's (or its variant.course line "
                           "was edited), so its numbers cannot be checked")
        # A student's machine: without the secret, grade against the recorded numbers, as long
        # as they are among the question's choices; the course's grader verifies them.
        right = {name: recorded[question.id].get(name) if isinstance(recorded[question.id], dict) else None
                 for name in question.vary}
        for name, value in right.items():
            if value not in question.vary[name] or not _is_number(value):
                return invalid(f"{where}: {question.id}: parameter {name} was edited: "
                               f"{_describe(value) if value is not None else 'nothing'} is not "
                               f"one of its choices; put back the line the file came with")
        note = UNVERIFIED
    problem = _edited_params(question.id, sid, recorded[question.id], right, where)
    if problem:
        return invalid(problem)
    return question.with_params(right), note, None


# The words of a right answer whose measured ratio could not be compared (grade prints a note).
UNMEASURED = "not checked against your kernels' measured loads"


def check_question(chapter, section_id: str, question_id: str, path, report_dir=None,
                   secret: Optional[str] = None, student: Optional[str] = None) -> Verdict:
    """Grades one question; a file that cannot be read makes it INVALID with the parse error.
    With `report_dir`, a question with `measured_ratio` must also match the ratio measured on
    the student's own kernels in that run, when both kernels passed.
    A file with a variant is graded with the parameters recomputed from its student and the
    course secret (`secret`; None reads HALO_COURSE_SECRET or course.toml); recorded parameters
    that differ make the question INVALID. With `student`, a question that varies must be
    answered in that student's variant."""
    question = _question(chapter, section_id, question_id)
    try:
        parsed = parse_answers(path, paths.shown(path, chapter.root))
    except AnswersError as e:
        return Verdict(INVALID, str(e), UNREADABLE)
    if question.withheld:
        return _withheld(question, parsed)
    note = None
    given = parsed.values.get(question.id)
    if question.id not in parsed.values or isinstance(given, str) and not given.strip():
        return judge(question, None, parsed)  # not answered: there is nothing to hold against a variant
    if question.vary:
        question, note, invalid = _variant_of(chapter, question, parsed, secret, student)
        if invalid:
            return invalid
    verdict = judge(question, question.expected(), parsed)
    if note:  # questions that vary have no measured ratio: this verdict is the last word
        return Verdict(verdict.status, verdict.message + note)
    if verdict.status != RIGHT or not question.measured_ratio:
        return verdict
    found = measured.ratio(report_dir, question.measured_ratio)
    if found is None:
        return Verdict(RIGHT, f"matches the formula, but was {UNMEASURED}: they need to pass in the same run "
                              f"({chapter.grade_command(question.section_id)})")
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
        parsed = parse_answers(path, paths.shown(path, chapter.root))
    except AnswersError as e:
        return [str(e)]
    ids = [q.id for q in chapter.questions(section_id)]
    problems = [f"{broken_lines(parsed, b)}: {b.what}; " + (f"{b.key} was not read, " if b.key else
                "this was not read, ") + "and the file's other answers still count" for b in parsed.broken]
    problems += _variant_problems(chapter, section_id, parsed)
    for key in parsed.values:
        if key not in ids and key != VARIANT_KEY:
            close = difflib.get_close_matches(key, ids, n=1)
            hint = f"did you mean '{close[0]}'? " if close else ""
            problems.append(f"{parsed.where(key)}: unknown question {key!r}; {hint}"
                            f"the questions are: {', '.join(ids)}")
    return problems


def _variant_problems(chapter, section_id: str, parsed: ParsedAnswers) -> list[str]:
    """Problems with the shape of the file's variant (edited numbers are the questions' verdicts)."""
    try:
        found = _file_variant(parsed)
    except _VariantProblem as e:
        return [str(e)]
    if found is None:
        return []
    varying = {q.id for q in chapter.questions(section_id) if q.vary}
    ids = [q.id for q in chapter.questions(section_id)]
    problems = []
    for qid in found[1]:
        where = parsed.where_dotted(f"variant.params.{qid}")
        if qid not in ids:
            close = difflib.get_close_matches(qid, ids, n=1)
            hint = f"did you mean '{close[0]}'? " if close else ""
            problems.append(f"{where}: variant.params.{qid}: unknown question {qid!r}; {hint}"
                            f"the questions that vary are: {', '.join(sorted(varying)) or 'none'}")
        elif qid not in varying:
            problems.append(f"{where}: variant.params.{qid}: question {qid} does not vary per student; "
                            "remove this line")
    return problems
