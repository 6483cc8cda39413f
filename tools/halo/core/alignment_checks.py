"""The alignment check of 16-byte vector accesses, put into a kernel file's validated IR before
the object is made from it (compile_sandboxed.py).

A float4 access whose address is not a multiple of 16 faults on a GPU ("misaligned address")
and on x86-64 (the aligned SSE instruction, movaps), but runs on, wrong, on aarch64. So before
every load or store of a vector of 16 or more bytes that the IR marks `align 16` (or more), a
call of the runtime's `__halo_check_aligned16_load` or `_store` (grader/cpu/alignment_check.cpp)
with the access's address names it the same way on every machine, before it happens. An access
the IR marks `align 4` (four floats the optimiser combined) is no aligned instruction anywhere and
gets no check: a false alarm on a right kernel is as bad as a miss.

The call goes straight before the access, so after SanitizerCoverage's callback for it: the
access is counted and bounds-checked first, and no count changes (the IR passes ran before; this
adds calls only, and the call is no access). clang's -fsanitize=alignment named the access the
same way too, but its checks run through the optimiser and changed which loads it kept.

The text is clang's, after validation: one instruction a line, the access's operands split at
their top-level commas by the validator's own reader.
"""
from __future__ import annotations

import re

from .validate import _FLOAT_BITS, _parse_type, _split_list

CHECKS = {"load": "__halo_check_aligned16_load", "store": "__halo_check_aligned16_store"}
VECTOR_BYTES = 16

_ACCESS = re.compile(r"^(?P<indent>\s+)(?:%[-\w$.]+ = )?(?P<op>load|store) (?P<rest>.*)$")
_DBG = re.compile(r"!dbg !\d+")


class AlreadyNamed(ValueError):
    """The module already names one of the check functions: a file that could define its own."""


def _vector_bytes(t):
    """The size in bytes of a vector type of the validator's reader, or 0 for any other type."""
    if t[0] != "vec":
        return 0
    elem = t[2]
    bits = elem[1] if elem[0] == "int" else _FLOAT_BITS.get(elem[1], 0) if elem[0] == "fp" else \
        64 if elem[0] == "ptr" else 0
    return t[1] * bits // 8


def _checked_pointer(rest):
    """The pointer operand (`TYPE VALUE`) of a load or store's operands after its opcode, when it is
    a 16-byte vector access the IR marks aligned to 16; None otherwise."""
    if rest.startswith(("atomic ", "volatile atomic ")):
        return None  # atomics are scalars; the validator refuses atomic instructions anyway
    rest = rest[len("volatile "):] if rest.startswith("volatile ") else rest
    pieces = _split_list(rest)
    if len(pieces) < 3:
        return None
    value_type, _ = _parse_type(pieces[0])
    align = next((int(p.split()[1]) for p in pieces[2:] if re.fullmatch(r"align \d+", p)), 0)
    if _vector_bytes(value_type) >= VECTOR_BYTES and align >= VECTOR_BYTES:
        return pieces[1]
    return None


def add_checks(ir_text: str) -> tuple[str, int]:
    """(the IR with a check before each 16-byte aligned vector access, how many were put in)."""
    if any("@" + name in ir_text for name in CHECKS.values()):
        raise AlreadyNamed("the kernel's IR already names the grader's alignment check")
    out, added, opaque = [], 0, False
    for line in ir_text.splitlines(keepends=True):
        m = _ACCESS.match(line)
        pointer = _checked_pointer(m.group("rest")) if m else None
        if pointer is None:
            out.append(line)
            continue
        indent, dbg = m.group("indent"), _DBG.search(line)
        at = ", " + dbg.group() if dbg else ""
        opaque = opaque or pointer.startswith("ptr ")
        if pointer.startswith("ptr "):
            argument = pointer
        else:  # typed pointers (clang 14): the address as the i8* the declaration takes
            argument = f"i8* %halo.aligned16.{added}"
            out.append(f"{indent}%halo.aligned16.{added} = bitcast {pointer} to i8*{at}\n")
        out.append(f"{indent}call void @{CHECKS[m.group('op')]}({argument}){at}\n")
        out.append(line)
        added += 1
    if added:
        parameter = "ptr" if opaque else "i8*"
        out.append("\n" + "".join(f"declare void @{name}({parameter})\n" for name in CHECKS.values()))
    return "".join(out), added
