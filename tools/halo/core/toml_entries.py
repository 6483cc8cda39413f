"""TOML read entry by entry, for a file that the parser refuses as a whole.

A TOML parser stops at the first error, so one typo in an answers file (`q = 337/37`, an
unterminated string) would cost every answer in it. Here the text is cut into entries (a
`key = value` with the lines its multi-line string or array runs over, or a table header)
and each entry is parsed on its own, under the table header in force there: a broken entry
costs that entry only, a broken table header costs the entries below it, and each is named
with its lines. What reads is merged as TOML would; a key set twice counts for neither.

Only for files that fail as a whole: a well-formed file is read by the parser alone.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from .tomlcompat import TOMLDecodeError, loads_toml


@dataclass(frozen=True)
class Broken:
    """An entry that could not be read: its lines, the key it sets (when one can be told) and why."""
    first: int           # 1-based line numbers
    last: int
    key: Optional[str]   # the top-level key it would have set, else None
    what: str            # the parser's words, or why the entry was left out

    @property
    def lines(self) -> str:
        """"4", or "4-6" for an entry over several lines."""
        return str(self.first) + (f"-{self.last}" if self.last != self.first else "")


# A line that starts an entry: `key =` or a table header. Inside an open array a line like
# this cannot continue the value, so the array was left open by mistake and the entry ends.
_KEY_START = re.compile(r"""^[ \t]*(?:[A-Za-z0-9_\-]+|"[^"\n]*"|'[^'\n]*')(?:[ \t]*\.[ \t]*(?:[A-Za-z0-9_\-]+|"[^"\n]*"|'[^'\n]*'))*[ \t]*=""")
_HEADER = re.compile(r"""^[ \t]*\[\[?[ \t]*[A-Za-z_"'][^\]\n]*\]\]?[ \t]*(?:#.*)?$""")
_WHERE = re.compile(r"\s*\((?:at line (\d+), column \d+|at end of document)\)\s*$")


def _scan(line: str, depth: int, open_string: Optional[str]) -> tuple:
    """(bracket depth, the multi-line string quote left open or None) after `line`; brackets
    in strings and comments do not count, and a one-line string ends at the line's end."""
    i = 0
    while i < len(line):
        if open_string:
            close = line.find(open_string, i)
            while close > 0 and open_string == '"""' and _escaped(line, close):
                close = line.find(open_string, close + 1)
            if close < 0:
                return depth, open_string
            i, open_string = close + 3, None
            continue
        c = line[i]
        if c == "#":
            break
        if line.startswith('"""', i) or line.startswith("'''", i):
            open_string, i = line[i:i + 3], i + 3
            continue
        if c in "\"'":
            close = line.find(c, i + 1)
            while close > 0 and c == '"' and _escaped(line, close):
                close = line.find(c, close + 1)
            i = len(line) if close < 0 else close + 1
            continue
        if c in "[{":
            depth += 1
        elif c in "]}":
            depth = max(depth - 1, 0)
        i += 1
    return depth, open_string


def _escaped(line: str, at: int) -> bool:
    """Whether the quote at line[at] is escaped (an odd run of backslashes before it)."""
    run = 0
    while at - run - 1 >= 0 and line[at - run - 1] == "\\":
        run += 1
    return run % 2 == 1


def entries(text: str) -> list:
    """[(first line, last line, the entry's text)] of the text, blank and comment lines left out.
    An entry runs over the lines its multi-line string or array needs; one left open to the end
    of the file is its first line only, so that an unterminated string costs one entry."""
    lines = text.split("\n")
    out, i = [], 0
    while i < len(lines):
        stripped = lines[i].strip()
        if not stripped or stripped.startswith("#"):
            i += 1
            continue
        depth, open_string = _scan(lines[i], 0, None)
        end = i
        while (depth or open_string) and end + 1 < len(lines):
            following = lines[end + 1]
            if not open_string and (_KEY_START.match(following) or _HEADER.match(following)):
                break  # the array was never closed: the next entry starts here
            end += 1
            depth, open_string = _scan(following, depth, open_string)
        if open_string and end + 1 == len(lines):
            end = i  # a multi-line string never closed: it costs this line, not the rest of the file
        while end > i and not open_string and (not lines[end].strip() or lines[end].lstrip().startswith("#")):
            end -= 1  # an array left open at the end of the file: its entry ends at its last text
        out.append((i + 1, end + 1, "\n".join(lines[i:end + 1])))
        i = end + 1
    return out


def _top_key(entry: str) -> Optional[str]:
    m = _KEY_START.match(entry)
    if not m:
        return None
    first = m.group(0).rstrip("=").split(".")[0].strip()
    return first.strip("\"'") or None


def _reason(error: Exception) -> str:
    """The parser's words without its position: that is of the entry parsed alone, and the
    entry's own lines are named instead."""
    text = str(error)
    m = _WHERE.search(text)
    what = text[:m.start()] if m else text
    return what.strip() or "this entry is not valid TOML"


def _clashes(into: dict, new: dict, path: tuple) -> Optional[tuple]:
    """The dotted path where `new` would set a value `into` already holds, else None."""
    for key, value in new.items():
        if key in into:
            if isinstance(into[key], dict) and isinstance(value, dict):
                found = _clashes(into[key], value, path + (key,))
                if found:
                    return found
            else:
                return path + (key,)
    return None


def _merge(into: dict, new: dict) -> None:
    for key, value in new.items():
        if key in into and isinstance(into[key], dict) and isinstance(value, dict):
            _merge(into[key], value)
        else:
            into[key] = value


def _drop(values: dict, path: tuple) -> None:
    for key in path[:-1]:
        values = values.get(key)
        if not isinstance(values, dict):
            return
    values.pop(path[-1], None)


def read(text: str) -> tuple:
    """(the values every readable entry sets, [Broken, ...])."""
    reader = _Reader()
    header, header_first, header_ok = "", 0, True  # the table header in force, where, and whether it read
    for first, last, entry in entries(text):
        if entry.lstrip().startswith("["):  # no entry but a table header starts with [
            header, header_first = entry, first
            header_ok = reader.header(first, last, entry)
        elif not header_ok:
            reader.broken.append(Broken(first, last, None, f"under the table header of line {header_first}, "
                                                          "which was not read"))
        else:
            reader.entry(first, last, entry, header)
    return reader.finish()


class _Reader:
    """The values read so far, the entries that could not be, and where each key was first set."""

    def __init__(self):
        self.values, self.broken = {}, []
        self.set_on = {}  # dotted path -> the line that first set it
        self.twice = []   # dotted paths set twice: neither value counts

    def header(self, first, last, entry) -> bool:
        """Reads a table header; whether the entries under it can be read."""
        if entry.lstrip().startswith("[["):
            # Arrays of tables never occur in an answers file: such a header is left out with its entries.
            self.broken.append(Broken(first, last, None, "arrays of tables ([[...]]) are not part of an answers file"))
            return False
        return self._parse(first, last, entry, None)

    def entry(self, first, last, entry, header):
        """Reads one `key = value` entry under `header` (its text, or "" at the top)."""
        self._parse(first, last, f"{header}\n{entry}" if header else entry, None if header else _top_key(entry))

    def _parse(self, first, last, text, key) -> bool:
        try:
            parsed = loads_toml(text)
        except (TOMLDecodeError, RecursionError) as e:
            self.broken.append(Broken(first, last, key, _reason(e)))
            return False
        clash = _clashes(self.values, parsed, ())
        if clash is None:
            _merge(self.values, parsed)
            for path in _leaves(parsed, ()):
                self.set_on.setdefault(path, first)
            return True
        earlier = next((n for p, n in self.set_on.items() if p[:len(clash)] == clash), None)
        self.broken.append(Broken(first, last, clash[0], f"{'.'.join(clash)} is set a second time"
                                  + (f" (first on line {earlier})" if earlier else "")
                                  + "; TOML takes one value per key, so neither counts"))
        self.twice.append(clash)
        return True

    def finish(self) -> tuple:
        for path in self.twice:
            _drop(self.values, path)
        return self.values, self.broken


def _leaves(values: dict, path: tuple):
    for key, value in values.items():
        if isinstance(value, dict) and value:
            yield from _leaves(value, path + (key,))
        else:
            yield path + (key,)
