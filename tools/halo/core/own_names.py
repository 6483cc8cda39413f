"""A learner's own declaration of a book name (`constexpr int TILE_SIZE = 4;`).

The grader pre-includes the chapter's [defines] as macros (chapter_defines.hpp) in every kernel
file, as the book's `#define TILE_SIZE ...` would be. A file that declares the name for itself
would then read `constexpr int 256 = 4;` and fail with `expected unqualified-id`, although nvcc
accepts it. So every compile of a kernel file (the build's launcher compile_sandboxed.py, the
validator's compile_to_ir and the GPU build's kernel copy, gpu_kernel_source.py) passes
`-DHALO_OWN_<NAME>` for each book name the file declares, and chapter_defines.hpp leaves that
macro out. The file then compiles with its own value; `note_for_section` says when the section's
tests are built around the grader's value instead.

The scan is lexical (comments and literals blanked, no preprocessor): a name counts as declared
where a type or specifier stands before it and a declarator's end after it, in an enum's
braces, or in a `#define`. A use (`N_ds[TILE_SIZE + 4]`, `return TILE_SIZE;`) never counts; a
declaration the scan misses keeps the old compile error, whose note names the grader's macro.
"""
from __future__ import annotations

import re
from pathlib import Path

from .source_text import code_only

FLAG_PREFIX = "HALO_OWN_"
HEADER = Path("halo") / "chapter_defines.hpp"

# `#define TILE_SIZE 256  // [section 7.4]`, as cpp_header.emit_defines writes it.
HEADER_DEFINE = re.compile(r"^\s*#define (\w+) (\S+)\s+// \[section ([\d.]+)\]", re.M)
# Words that stand before a name that is used, not declared.
_NOT_A_TYPE = {"return", "case", "sizeof", "alignof", "throw", "co_return", "co_yield", "else", "do", "new",
               "delete", "goto", "decltype", "typeid", "and", "or", "not", "xor", "bitand", "bitor"}
_ENUM_BODY = re.compile(r"\benum\b[^;{}]*\{([^{}]*)\}")


def header_defines(text: str) -> dict:
    """{name: (value, section)} of a chapter_defines.hpp text."""
    return {m.group(1): (m.group(2), m.group(3)) for m in HEADER_DEFINE.finditer(text)}


def _value_after(code: str, end: int):
    """The integer a declaration gives (`= 32`, `{32}`, `(32)`, `32` after a #define), or None."""
    m = re.match(r"\s*(?:=\s*|\{\s*|\(\s*)?\(?\s*(\d+)[uUlL]*\s*\)?\s*[;,}\)\n]", code[end:] + "\n")
    return int(m.group(1)) if m else None


def declared(text: str, names) -> dict:
    """{name: the integer the file gives it, or None} for each of `names` the file declares."""
    code = code_only(text)
    found = {}
    for name in names:
        word = re.compile(r"(?<![\w])" + re.escape(name) + r"(?![\w])")
        for m in word.finditer(code):
            line_start = code.rfind("\n", 0, m.start()) + 1
            before = code[line_start:m.start()]
            if re.fullmatch(r"\s*#\s*define\s+", before):
                found[name] = _value_after(code, m.end())
                break
            prev = re.search(r"([\w]+|[^\s\w])\s*$", code[:m.start()])
            nxt = code[m.end():m.end() + 40].lstrip()[:1]
            if prev and re.fullmatch(r"[A-Za-z_]\w*", prev.group(1)) and prev.group(1) not in _NOT_A_TYPE \
                    and nxt in ("=", "{", "(", ";", ",", ")", "[", ">"):
                found[name] = _value_after(code, m.end())
                break
        else:
            for body in _ENUM_BODY.finditer(code):
                e = re.search(r"(?:^|,)\s*" + re.escape(name) + r"\s*(=|,|$)", body.group(1))
                if e:
                    found[name] = _value_after(body.group(1), e.end(1) - 1) if e.group(1) == "=" else None
                    break
    return found


def flags(names) -> list:
    """The compile options that leave the grader's macros of `names` out."""
    return [f"-D{FLAG_PREFIX}{n}" for n in sorted(names)]


def header_in(include_dirs) -> Path | None:
    """The chapter_defines.hpp found under one of `include_dirs`."""
    for d in include_dirs:
        if (Path(d) / HEADER).is_file():
            return Path(d) / HEADER
    return None


def flags_for_files(kernel_files, header: Path | None) -> list:
    """The options for one compile of `kernel_files`, given the chapter_defines.hpp it includes."""
    if header is None:
        return []
    names = header_defines(header.read_text(errors="replace"))
    own = set()
    for kernel in kernel_files:
        own |= set(declared(Path(kernel).read_text(errors="replace"), names))
    return flags(own)


def note_for_section(text: str, chapter_defines: dict, section_id: str) -> list:
    """A line for each of the section's own [defines] the file declares for itself: the tests
    are built around the grader's value, which the file's own does not change."""
    mine = {n: v for n, (v, sid) in chapter_defines.items() if sid == section_id}
    notes = []
    for name, value in declared(text, mine).items():
        theirs = f" ({value})" if value is not None else ""
        differs = value is not None and str(value) != str(mine[name])
        notes.append(f"your file declares its own {name}{theirs}, and your kernel uses it; section {section_id} "
                     f"fixes {name} at {mine[name]}: its tests launch and size everything for {mine[name]}"
                     + (", so where your kernel relies on its own value it may fail them" if differs else ""))
    return notes
