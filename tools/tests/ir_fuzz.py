"""Mutants of LLVM IR modules for test_ir_agreement_fuzz.py: textual disguises that LLVM reads
as the same module (renamings to quoted names with escapes, odd whitespace, comments holding
decoys, continuation lines, metadata, attributes written inline) and constructs the validator
must refuse (a call of system directly, through a bitcast or an alias, inline asm in call,
invoke and callbr, varargs, a block copy, !nosanitize, a naked function, a section, weak
linkage). Every choice comes from one random.Random, so a seed replays a run exactly.
"""
from __future__ import annotations

import random
import re

# A small module in clang 14's dialect, clean under the validator, with what the corpus has
# little of: invoke and landingpad, a varargs call, an alias (a complete-object constructor),
# attribute groups, named struct types, a constant table.
BASE = r"""; ModuleID = 'fuzz'
source_filename = "fuzz"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.S = type { i32, float, [3 x i8] }

@.str = private unnamed_addr constant [6 x i8] c"x=%d\0A\00", align 1
@table = internal unnamed_addr constant [2 x float] [float 1.000000e+00, float 2.000000e+00], align 4

@_ZN1SC1Ev = unnamed_addr alias void (%struct.S*), void (%struct.S*)* @_ZN1SC2Ev

define linkonce_odr void @_ZN1SC2Ev(%struct.S* %0) unnamed_addr #0 {
  %2 = getelementptr inbounds %struct.S, %struct.S* %0, i64 0, i32 0
  %3 = bitcast i32* %2 to i32*
  call void @__sanitizer_cov_store4(i32* %3)
  store i32 0, i32* %2, align 4
  ret void
}

define dso_local void @_Z1kPfi(float* %0, i32 %1) #0 personality i8* bitcast (i32 (...)* @__gxx_personality_v0 to i8*) {
  %3 = alloca %struct.S, align 4
  call void @_ZN1SC1Ev(%struct.S* %3)
  %4 = getelementptr inbounds [2 x float], [2 x float]* @table, i64 0, i64 1
  %5 = bitcast float* %4 to i32*
  call void @__sanitizer_cov_load4(i32* %5)
  %6 = load float, float* %4, align 4
  %7 = bitcast float* %0 to i32*
  call void @__sanitizer_cov_store4(i32* %7)
  store float %6, float* %0, align 4
  %8 = call i32 (i8*, ...) @printf(i8* getelementptr inbounds ([6 x i8], [6 x i8]* @.str, i64 0, i64 0), i32 %1)
  %9 = invoke i32 @_Z16cudaGetLastErrorv()
          to label %10 unwind label %11

10:
  ret void

11:
  %12 = landingpad { i8*, i32 }
          cleanup
  resume { i8*, i32 } %12
}

declare void @__sanitizer_cov_load4(i32*)
declare void @__sanitizer_cov_store4(i32*)
declare i32 @printf(i8*, ...) #1
declare i32 @_Z16cudaGetLastErrorv() #1
declare i32 @__gxx_personality_v0(...)

attributes #0 = { mustprogress noinline uwtable "frame-pointer"="all" }
attributes #1 = { "frame-pointer"="all" }
"""

# Names with what a hand reader may trip on: spaces, " = ", an escaped quote, parentheses, an
# at sign, a decoy intrinsic name, a non-ASCII byte.
ODD_NAMES = ['a b', 'v = 1', 'q\\22q', 'f(x)', 'x@y', 'z@llvm.dbg.w', 'caf\\C3\\A9', 'asm "s"', 'tab\\09', '#0']
DECOYS = ["; @llvm.dbg.value(", "; asm sideeffect \"\"", "; call void @system(", "; define void @x() {",
          "; !nosanitize", "; section \"s\"", "; }"]

# Forbidden constructs: (name, extra top-level text, instructions for @_Z1kPfi's entry block;
# values named, since an unnamed one would take a number the function's others have).
FORBIDDEN = [
    ("a direct call of system", "declare i32 @system(i8*)\n", ["%sys = call i32 @system(i8* null)"]),
    ("system through a bitcast", "declare i32 @system(i8*)\n",
     ["call void bitcast (i32 (i8*)* @system to void ()*)()"]),
    ("system through an alias", "declare i32 @system(i8*)\n"
     "define internal i32 @wrap(i8* %p) {\n  %r = call i32 @system(i8* %p)\n  ret i32 %r\n}\n"
     "@sysalias = internal alias i32 (i8*), i32 (i8*)* @wrap\n", ["%sys = call i32 @sysalias(i8* null)"]),
    ("inline asm", "", ['call void asm sideeffect "nop", ""()']),
    ("module asm", 'module asm "nop"\n', []),
    ("a varargs call of an unknown function", "declare i32 @vfoo(i32, ...)\n", ["%vf = call i32 (i32, ...) @vfoo(i32 1, i32 2)"]),
    ("a block copy", "declare void @llvm.memcpy.p0i8.p0i8.i64(i8* noalias nocapture writeonly, i8* noalias "
     "nocapture readonly, i64, i1 immarg)\n",
     ["%mc = bitcast float* %0 to i8*", "call void @llvm.memcpy.p0i8.p0i8.i64(i8* %mc, i8* %mc, i64 64, i1 false)"]),
    ("an uninstrumented store", "!900 = !{}\n", ["store float 0.000000e+00, float* %0, align 4, !nosanitize !900"]),
    ("a naked function", "define internal void @nk() #9 {\n  unreachable\n}\nattributes #9 = { naked }\n", []),
    ("a section", "@sec = internal global i32 0, section \"s\"\n", ["store i32 1, i32* @sec"]),
    ("a weak definition", "define weak void @_Z2wkv() {\n  ret void\n}\n", []),
    ("an indirect call through an integer", "", ["call void inttoptr (i64 4096 to void ()*)()"]),
    ("a forged callback", "", ["call void @__sanitizer_cov_load4(i32* null)"]),
    ("invoke of an unknown function", "declare i32 @system(i8*)\n",
     ["%sys = invoke i32 @system(i8* null) to label %ok unwind label %11", "ok:"]),
    ("callbr asm", "", ['callbr void asm "", "r,X"(i32 0, i8* blockaddress(@_Z1kPfi, %10)) to label %cb [label %10]',
                        "cb:"]),
]


def _functions(text):
    """(start, end) of each function body's lines (after the define line, before the "}")."""
    lines = text.split("\n")
    out, start = [], None
    for k, line in enumerate(lines):
        if line.startswith("define "):
            start = k + 1
        elif line == "}" and start is not None:
            out.append((start, k))
            start = None
    return lines, out


def rename_locals(rng, text):
    """Every numbered value and label of one function given a name (LLVM numbers only unnamed
    values, so all of a function's or none), odd names among them."""
    lines, bodies = _functions(text)
    if not bodies:
        return text
    start, end = rng.choice(bodies)
    odd = rng.choice(ODD_NAMES)

    def name(n):
        return f'%"{odd}{n}"' if rng.random() < 0.5 else f"%v{n}"

    names = {}
    # The define line's numbered arguments, then the body's values and labels.
    for k in range(start - 1, end):
        for m in re.finditer(r"%(\d+)\b", lines[k]):
            names.setdefault(m.group(1), name(m.group(1)))
        m = re.match(r"(\d+):", lines[k])
        if m:
            names.setdefault(m.group(1), name(m.group(1)))
    for k in range(start - 1, end):
        lines[k] = re.sub(r"%(\d+)\b", lambda m: names[m.group(1)], lines[k])
        lines[k] = re.sub(r"^(\d+):", lambda m: names[m.group(1)][1:] + ":", lines[k])
    # An unnamed argument becomes a named one only with its name on the define line.
    return "\n".join(lines)


def rename_internal(rng, text):
    """An internal or private global value renamed to an odd quoted name, everywhere."""
    names = re.findall(r"^@([\w.$]+) = (?:private|internal)\b", text, re.M)
    names += re.findall(r"^define (?:internal|private) [^@]*@([\w.$]+)\(", text, re.M)
    if not names:
        return text
    old = rng.choice(names)
    new = f'@"{rng.choice(ODD_NAMES)}{rng.randrange(100)}"'
    return re.sub(r"@" + re.escape(old) + r"(?![\w.$])", lambda m: new, text)


def whitespace(rng, text):
    """Odd but legal whitespace in instruction lines: tabs, runs of spaces, other indents."""
    lines = text.split("\n")
    for k, line in enumerate(lines):
        if line.startswith("  ") and rng.random() < 0.3:
            body = re.sub(r"(?<=[,=]) ", lambda m: rng.choice(["  ", "\t", " \t "]), line.strip())
            lines[k] = rng.choice(["  ", "    ", "\t", "   ", " \t"]) + body
    return "\n".join(lines)


def comments(rng, text):
    """Comments, some holding decoys a reader of the text may take for code."""
    lines = text.split("\n")
    for k in range(len(lines)):
        if lines[k].startswith("  ") and rng.random() < 0.2:
            lines[k] += " " + rng.choice(DECOYS)
        elif rng.random() < 0.05:
            lines[k] = rng.choice(DECOYS) + "\n" + lines[k]
    return "\n".join(lines)


def continuation(rng, text):
    """An instruction split after a comma onto the next line (LLVM reads on)."""
    lines = text.split("\n")
    candidates = [k for k, line in enumerate(lines) if line.startswith("  ") and ", " in line]
    if not candidates:
        return text
    k = rng.choice(candidates)
    cut = rng.choice([m.end() for m in re.finditer(", ", lines[k])])
    lines[k] = lines[k][:cut] + "\n" + rng.choice(["   ", "      ", "\t", "  "]) + lines[k][cut:]
    return "\n".join(lines)


def metadata(rng, text):
    """Harmless metadata attachments on instructions, and named metadata."""
    lines = text.split("\n")
    for k, line in enumerate(lines):
        if line.startswith("  %") and " = load " in line and rng.random() < 0.5:
            lines[k] = line + ", !tbaa.struct !901"
    return "\n".join(lines) + '\n!901 = !{}\n!named = !{!901}\n'


def inline_attributes(rng, text):
    """A function's attribute group written out on its define line instead."""
    groups = dict(re.findall(r"^attributes #(\d+) = \{ (.*) \}$", text, re.M))
    defines = [m for m in re.finditer(r"^define .*\) (?:unnamed_addr )?#(\d+)", text, re.M) if m.group(1) in groups]
    if not defines:
        return text
    m = rng.choice(defines)
    line_end = text.index("\n", m.start())
    line = text[m.start():line_end].replace(f" #{m.group(1)}", " " + groups[m.group(1)], 1)
    return text[:m.start()] + line + text[line_end:]


def chars(rng, text):
    """One character dropped, doubled or swapped for a quote or a semicolon: mostly text
    LLVM rejects, which must be refused, never read."""
    k = rng.randrange(len(text))
    return text[:k] + rng.choice(["", text[k] * 2, '"', ";", "@", "\n  "]) + text[k + 1:]


DISGUISES = [rename_locals, rename_internal, whitespace, comments, continuation, metadata, inline_attributes]


def inject(text, construct):
    """`text` with one forbidden construct from FORBIDDEN added to @_Z1kPfi."""
    _, extra, insts = construct
    head = "define dso_local void @_Z1kPfi("
    start = text.index(head)
    entry = text.index("\n", start) + 1
    body = "".join(("  " + i if not i.endswith(":") else i) + "\n" for i in insts)
    return text[:entry] + body + text[entry:] + "\n" + extra


def mutant(rng, base):
    """(text, the forbidden construct injected or None, the mutations' names)."""
    construct = rng.choice(FORBIDDEN) if rng.random() < 0.5 else None
    text = inject(base, construct) if construct else base
    steps = rng.sample(DISGUISES, rng.randint(1, 4))
    if rng.random() < 0.1:
        steps.append(chars)
    for step in steps:
        text = step(rng, text)
    return text, construct[0] if construct else None, [s.__name__ for s in steps]
