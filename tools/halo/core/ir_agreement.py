"""Holds the validator's reading of a module against LLVM's own.

validate.py decides on facts its hand-written reader takes from clang's IR text; the compiler
builds what LLVM's parser takes from the same text. Wherever the two could differ (a quoted name
with an escape, a line the reader skips, a callee it takes from the wrong place), a construct
could pass the validator and still be built. So validate_ir asks this module, and any fact on
which the readers differ refuses the file: a false alarm costs a student a clear message, a
miss costs the grade's meaning.
"""
from __future__ import annotations

import sys
from pathlib import Path

from . import hand_facts, llvm_reader

CONSTRUCT = "IR the validator reads differently from the compiler"


def _normal(inst):
    """An instruction's facts with an inline-asm call's opcode set aside: the validator stops
    reading an asm line once it has seen the asm (and refuses it), so its opcode is not read."""
    if inst[2] is not None and inst[2][0] == "asm":
        return (inst[0], "asm", ("asm", "", ()), *inst[3:5], None, None, None)
    return inst


def differences(hand: dict, llvm: dict, limit: int = 5) -> list[str]:
    """Where the two readings differ, one line each (at most `limit`)."""
    out = []

    def differ(what, a, b):
        if a != b and len(out) < limit:
            out.append(f"{what}: the validator read {a!r}, LLVM {b!r}")

    differ("module asm", hand["module_asm"], llvm["module_asm"])
    for table in ("functions", "globals", "types"):
        differ(f"the {table}' names", sorted(set(hand[table]) - set(llvm[table])),
               sorted(set(llvm[table]) - set(hand[table])))
    for name in sorted(set(hand["globals"]) & set(llvm["globals"])):
        differ(f"@{name}", hand["globals"][name], llvm["globals"][name])
    for name in sorted(set(hand["types"]) & set(llvm["types"])):
        differ(f"%{name}", hand["types"][name], llvm["types"][name])
    for name in sorted(set(hand["functions"]) & set(llvm["functions"])):
        h, l = hand["functions"][name], llvm["functions"][name]
        for key in ("defined", "linkage", "section", "bad_attrs"):
            differ(f"@{name} {key}", h[key], l[key])
        hi, li = [_normal(i) for i in h["insts"]], [_normal(i) for i in l["insts"]]
        differ(f"@{name}'s number of instructions", len(hi), len(li))
        for k, (a, b) in enumerate(zip(hi, li)):
            if a != b:
                differ(f"@{name}, instruction {k + 1}", a, b)
                break
    return out


def message(differences: list[str]) -> str:
    """The finding's text: the first difference is enough to tell a maintainer where to look."""
    return (f"{CONSTRUCT} is not allowed in a kernel file: line 0 — the validator could not read this file's "
            f"compiled form the way the compiler does ({differences[0]}); please report this")


def check(ir_text: str, reader, clang=None) -> list[str]:
    """The differences between the validator's reading of `ir_text` and LLVM's; a text LLVM
    rejects, or no LLVM to ask, is one difference (the file is not waved through). `reader` is the
    validator's module (validate.py hands itself in: it imports this module)."""
    try:
        hand = hand_facts.facts(ir_text, reader)
    except Exception as e:  # the validator's own reader failed: validate_ir reports that itself
        return [f"the validator's reader failed ({type(e).__name__}: {e})"]
    try:
        llvm = llvm_reader.facts(ir_text, type_names=list(hand["types"]), clang=clang or reader.find_clang())
    except llvm_reader.ParseError as e:
        return [f"LLVM rejected the module: {str(e).splitlines()[0] if str(e) else ''}"]
    except llvm_reader.ReaderUnavailable as e:
        return [f"LLVM's own reader is not available: {e}"]
    return differences(hand, llvm)
