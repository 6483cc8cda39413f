"""Cutting tables out of a TOML file's text, keeping everything else as written.

A release hands out questions.toml and manifest.toml files with parts left out (the questions of
sections not handed out, formulas nothing uses, the answers of a summative release). Python has
no TOML writer in its standard library, and a rewritten file would lose the comments that explain
each formula, so the text itself is cut, one table or line at a time. Every cut is checked: the
file read back must equal the original data less exactly what was cut (files.py does that),
so a layout these cuts do not understand stops the release instead of shipping a wrong file.
"""
import re
from dataclasses import dataclass, field

# A table header on its own line: [name] or [[name]], an optional comment after it. Lines of a
# multi-line array ("  [0, 1],") never match: a comma is not part of a header's name.
HEADER = re.compile(r"""^[ \t]*\[(?P<array>\[)?[ \t]*(?P<name>[A-Za-z0-9_.\-"' \t]+?)[ \t]*\]\]?[ \t]*(#.*)?$""")


class TomlCutError(Exception):
    """A file whose layout the cuts cannot handle safely."""


@dataclass
class Block:
    name: str     # the header's name, without quotes or blanks ("formulas.radius"); "" before any header
    array: bool   # [[name]]
    lines: list = field(default_factory=list)  # the header line first, each line with its newline

    def content_end(self):
        """How many lines the table's own content takes, counting from the header: up to its last
        key line. Comments and blank lines after it introduce the next table, so they stay."""
        end = 1
        for k, line in enumerate(self.lines[1:], 2):
            if line.strip() and not line.lstrip().startswith("#"):
                end = k
        return end


def blocks(text):
    if '"""' in text or "'''" in text:
        # A multi-line string could hold a line that looks like a header.
        raise TomlCutError("it uses a multi-line string, which these cuts do not handle")
    out = [Block("", False)]
    for line in text.splitlines(keepends=True):
        m = HEADER.match(line.rstrip("\r\n"))
        if m:
            out.append(Block(re.sub(r"""[\s"']""", "", m.group("name")), bool(m.group("array")), [line]))
        else:
            out[-1].lines.append(line)
    return out


def text_of(parts):
    return "".join(line for b in parts for line in b.lines)


def without_tables(text, names):
    """The text without the tables [name] of `names` (each from its header to its last key line)."""
    out = []
    for b in blocks(text):
        if not b.array and b.name in names:
            b = Block(b.name, b.array, b.lines[b.content_end():])
        out.append(b)
    return text_of(out)


def without_arrays(text, name):
    """The text without any [[name]] table, whole (its comments and blank lines up to the next header)."""
    return text_of([b for b in blocks(text) if not (b.array and b.name == name)])


def without_key(text, array, key, cut):
    """The text with the line `key = ...` taken out of the k-th [[array]] table wherever cut(k)
    (k counted from 0). The value must be on that one line."""
    pattern = re.compile(rf"^[ \t]*{re.escape(key)}[ \t]*=")
    out, k = [], -1
    for b in blocks(text):
        if b.array and b.name == array:
            k += 1
            if cut(k):
                b = Block(b.name, b.array, [line for line in b.lines if not pattern.match(line)])
        out.append(b)
    return text_of(out)
