"""Validation of a student's kernel file before it is compiled into a test worker.

A kernel file is compiled into the same process as the grader, with instrumentation that
calls Halo before every load and store. Whatever the instrumentation cannot see, or whatever
reaches past the kernel into the grader's process, is refused here, in two layers:

* validate_source: the file's own tokens (comments and string literals stripped, line
  continuations joined, line numbers kept). Fast and precise, so that a student reads which
  construct on which line is refused; it never needs a compiler. It is a deny list, kept
  free of false alarms on ordinary CUDA code.
* validate_ir: the LLVM IR clang makes of the file with the kernel flags, instrumentation
  already applied. Macros, token pasting, _Pragma and templates are all expanded there, so
  this layer is the guarantee: allow lists of external functions, intrinsics, linkages and
  access sizes. Findings are mapped back to the kernel file's lines through the debug info.

validate_file runs both (the IR layer only when the source layer is clean; a file clang cannot
compile gives one COMPILE_ERROR finding, since nothing was validated) and
`python3 -m halo.core.validate FILE... [--include DIR]...` (from tools/) is its command line.

The instrumentation's own callbacks (`__sanitizer_cov_load4` ...) are declared and called in the
IR like any external function. They are told apart from a student's by where they stand:
SanitizerCoverage inserts each call straight before the load or store it announces, with that
access's address and size, so a call of the student's own is never there (the compiler's
callback for the access would sit between them). Any other call, a definition of a
`__sanitizer_*` function or a use of one's address is refused; the source layer refuses the name.

Every finding reads "<construct> is not allowed in a kernel file: line <N> — <why/what to do>".
The construct is named the same way by both layers ("inline asm", "the attribute section",
"memcpy", "getenv", ...), so a student sees one vocabulary whichever layer caught it.
"""
from __future__ import annotations

import argparse
import atexit
import bisect
import functools
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from . import kernel_overlay, own_names, pasted_names
from .workbook_argv import workbook_argv

REPO_ROOT = Path(__file__).resolve().parents[3]
GRADER_INCLUDE = REPO_ROOT / "grader" / "include"


def _kernel_flags():
    """HALO_KERNEL_FLAGS of grader/cmake/HaloSections.cmake, read from there (the one list; the IR is
    validated as it is built): CMake's `"SHELL:-mllvm -x"` items are the two words they stand for."""
    text = (REPO_ROOT / "grader" / "cmake" / "HaloSections.cmake").read_text()
    body = re.search(r"^set\(HALO_KERNEL_FLAGS\s(.*?)\)$", text, re.S | re.M).group(1)
    flags = []
    for item in shlex.split(body):
        flags += item[len("SHELL:"):].split() if item.startswith("SHELL:") else [item]
    return flags


KERNEL_FLAGS = _kernel_flags()
# Line tables are all the findings need: with them the IR of the 7.9 kernel is 1.2 MB instead of
# 6 MB. The kernel flags ask for no more (HaloSections.cmake); this keeps the validator's own
# compiles at line tables should they ever ask for more.
VALIDATION_FLAGS = [*KERNEL_FLAGS, "-gline-tables-only"]
# cuda_dialect.hpp: `#define __constant__ __attribute__((section("halo_constant"), used))`.
CONSTANT_SECTION = "halo_constant"
COMPILE_ERROR = "compile error"  # the construct of the one finding made when clang fails


@dataclass(frozen=True)
class Finding:
    file: Path
    line: int
    construct: str
    message: str

    def __str__(self):
        return f"{self.file}:{self.line}: {self.message}"


# Why each kind of construct is refused, as the student reads it after " — ".
WHY = {
    "asm": "the grader must see every load and store, and assembly hides them",
    "instrument": "it turns off the instrumentation that sees your loads and stores",
    "startup": "it runs code outside any kernel launch, when the grader starts or exits",
    "link": "it changes how your code is linked into the grader's process",
    "optimise": "it changes how your code is optimised; kernels are compiled at -O1 so that "
                "each access in the source is one instrumented access",
    "naked": "a naked function is raw machine code the grader cannot see into",
    "cleanup": "it calls a function behind your back when a variable goes out of scope",
    "pragma": "it changes how the file is compiled or instrumented (#pragma unroll, once, message and "
              "push_macro/pop_macro of an ordinary name are fine)",
    "include": "a kernel file may include the given headers (\"halo/given/*.cuh\") and <cstdint>, <cstddef>, "
               "<climits>, <cfloat>, <cmath>, <cstdio>, <cassert> (or their .h forms); the CUDA dialect "
               "is already included for you",
    "shadow": "a file of that name next to your kernel would be included instead of Halo's own",
    "line": "it changes the line numbers that the grader's diagnostics report",
    "process": "a kernel must not end, signal or control the grader's process",
    "os": "a kernel only computes: no environment, files, processes or dynamic loading",
    "memory": "the instrumentation cannot see block copies and fills: copy a struct field by field (the "
              "compiler also turns a loop that does nothing but copy or fill an array into one)",
    "heap": "a kernel gets its memory from its arguments, __shared__ and __constant__ variables",
    "internal": "the grader's and the runtime's internals are not part of the CUDA dialect",
    "callback": "only the compiler calls the instrumentation's callbacks; a call or definition of your "
                "own would fake or hide accesses",
    "static": "it runs code when the grader starts or exits; give the object no constructor or destructor, "
              "or make it a local variable",
    "size": "the instrumentation sees accesses of 1, 2, 4, 8 or 16 bytes only; load and store the fields "
            "one by one (float4 is fine)",
    "function": "a kernel file may call the CUDA dialect (__syncthreads, atomics, math functions such as sqrtf "
                "and fminf, printf, assert), the given helpers and functions defined in the same file",
    "global": "a kernel file may use its own variables, __shared__ and __constant__ ones, and its arguments",
    "indirect": "only functions defined in this file may be called through a pointer",
    "fnptr": "a function pointer must point at a function defined in this file",
    "extern_c": "a definition with a C name (extern \"C\", main, ...) can replace a library or runtime "
                "function of the whole process",
    "namespace": "it defines a function in a namespace of the grader, the runtime or the standard library",
    "intrinsic": "the instrumentation cannot see what it does",
    "builtin": "use the CUDA dialect's functions instead of compiler builtins",
    "io": "printf is the way to print from a kernel",
    "warp": "the CPU backend runs the shuffles (__shfl_sync, __shfl_up/down/xor_sync) and votes (__ballot_sync, "
            "__any_sync, __all_sync) but not this warp-level primitive yet: share values through __shared__ memory "
            "and __syncthreads()",
    "unsupported": "the CPU backend does not run cooperative groups, textures or surfaces",
    "atomic": "use CUDA's atomic functions (atomicAdd, atomicMax, atomicCAS, ...): the grader checks and counts "
              "their accesses, which compiler builtins would hide",
    "vla": "a local array's size must be known at compile time, as on a GPU; a large one could overflow "
           "the thread's stack",
    "literal": "the text a kernel prints or asserts must be written in the call, as a string literal: the "
               "grader reads no memory a kernel did not load itself",
    "printf": "a kernel's printf prints values (%d %i %u %o %x %X %c %f %e %g %a %p, %s with a literal): a "
              "conversion that stores or reads elsewhere would work behind the grader's checks",
    "build": "the grader compiles one build of the file for both the CPU and the GPU, and grades it once: "
             "code that tells them apart would be graded on one and run on the other",
}


def _finding(file, line, construct, why):
    return Finding(Path(file), line, construct,
                   f"{construct} is not allowed in a kernel file: line {line} — {WHY.get(why, why)}")


# ---------------------------------------------------------------------------------------------
# The source layer
# ---------------------------------------------------------------------------------------------

ALLOWED_SYSTEM_HEADERS = {"cstdint", "stdint.h", "cstddef", "stddef.h", "climits", "limits.h", "cfloat",
                          "float.h", "cmath", "math.h", "cstdio", "stdio.h", "cassert", "assert.h"}
_GIVEN_HEADER = re.compile(r"halo/given/[A-Za-z0-9_]+\.cuh")

# __attribute__((x)), [[gnu::x]], [[clang::x]] names (without surrounding __), by reason.
FORBIDDEN_ATTRIBUTES = {
    **dict.fromkeys(["no_sanitize", "no_sanitize_address", "no_address_safety_analysis", "no_sanitize_thread",
                     "no_sanitize_memory", "no_sanitize_undefined", "no_sanitize_coverage",
                     "disable_sanitizer_instrumentation", "no_instrument_function", "noinstrument",
                     "xray_never_instrument", "xray_always_instrument", "patchable_function_entry",
                     "no_profile_instrument_function", "noprofile", "no_stack_protector"], "instrument"),
    **dict.fromkeys(["constructor", "destructor", "init_priority", "init_seg"], "startup"),
    **dict.fromkeys(["weak", "weakref", "weak_import", "alias", "ifunc", "visibility", "used", "retain",
                     "selectany", "common", "section", "symver", "tls_model", "cpu_dispatch", "cpu_specific",
                     "target_clones"], "link"),
    **dict.fromkeys(["optnone", "optimize", "target"], "optimise"),
    "naked": "naked",
    "cleanup": "cleanup",
}

# Identifiers refused wherever they appear (except as a member: s.exit, p->read).
FORBIDDEN_NAMES = {
    **dict.fromkeys(["_exit", "_Exit", "quick_exit", "at_quick_exit", "atexit", "on_exit", "setjmp", "longjmp",
                     "_setjmp", "_longjmp", "sigsetjmp", "siglongjmp", "sigaction", "sigprocmask", "ptrace",
                     "prctl", "fork", "vfork", "execl", "execlp", "execle", "execv", "execve", "execvp",
                     "execvpe", "posix_spawn", "posix_spawnp", "waitpid", "pthread_create", "pthread_exit",
                     "pthread_kill"], "process"),
    **dict.fromkeys(["environ", "__environ", "getenv", "secure_getenv", "setenv", "putenv", "unsetenv",
                     "clearenv", "dlopen", "dlsym", "dlvsym", "dlclose", "dlerror", "dladdr", "mmap", "munmap",
                     "mprotect", "syscall", "popen", "pclose", "fopen", "freopen", "fdopen", "fclose", "openat",
                     "creat", "ioctl", "fcntl"], "os"),
    **dict.fromkeys(["memcpy", "memset", "memmove", "memcmp", "memchr", "mempcpy", "bcopy", "bzero",
                     "strcpy", "strncpy", "strcat", "strncat", "sprintf", "snprintf", "vsprintf", "vsnprintf",
                     "sscanf", "scanf"], "memory"),
    **dict.fromkeys(["malloc", "calloc", "realloc", "aligned_alloc", "posix_memalign", "alloca"], "heap"),
    **dict.fromkeys(["fprintf", "vfprintf", "fputs", "fputc", "fwrite", "fread", "fgets", "fflush", "stdin",
                     "stdout", "stderr"], "io"),
    # Valid CUDA that the CPU backend does not run yet: refused here with a clear message rather
    # than as an undeclared name.
    **dict.fromkeys(["__activemask", "__syncwarp", "__match_any_sync", "__match_all_sync", "__reduce_add_sync",
                     "__reduce_min_sync", "__reduce_max_sync"], "warp"),
    **dict.fromkeys(["cooperative_groups", "tex1Dfetch", "tex1D", "tex2D", "tex3D", "surf2Dread", "surf2Dwrite"],
                    "unsupported"),
}
# Ordinary words that name a forbidden function only when called (and not defined in the file):
# `bool exit = ...` or a helper of your own called read() stays fine.
FORBIDDEN_CALLS = {**dict.fromkeys(["exit", "abort", "raise", "kill", "signal", "system"], "process"),
                   **dict.fromkeys(["open", "close", "read", "write", "remove", "rename", "unlink"], "os"),
                   "free": "heap"}
# Prefixes of the runtime's, the instrumentation's and the C++ runtime's own symbols.
FORBIDDEN_PREFIXES = (("__sanitizer", "callback"), ("__sancov", "callback"), ("__halo", "internal"),
                      ("__atomic_", "atomic"), ("__sync_", "atomic"), ("__c11_atomic", "atomic"),
                      ("__start_", "internal"), ("__stop_", "internal"), ("__cxa_", "internal"),
                      ("__libc_", "internal"), ("__gxx_", "internal"), ("__asan", "internal"),
                      ("__tsan", "internal"), ("__msan", "internal"), ("__ubsan", "internal"),
                      ("__llvm", "internal"), ("__dso_handle", "internal"), ("_GLOBAL__", "internal"))
# Macros and operators that tell the CPU build (clang, x86-64 or aarch64) from the GPU build (nvcc,
# its host compiler, the device): a file that branches on them is graded on one build and runs on
# the other. The grader's own headers may use them; a kernel file may not (issue 32, item 3).
_BUILD_TELLING = re.compile(r"CUDA_DOUBLE_MATH_FUNCTIONS|__(?:CUDA|NVCC|NVCOMPILER|clang|llvm|GNUC|GNUG|has_|is_identifier|x86|amd64|i386|"
                            r"aarch64|arm|ARM_|SSE|AVX|FMA__|AMDGCN|HIP|SYCL|INTEL)\w*|HALO_(?:CPU|CUDA|BACKEND)\w*")

# The __builtin_ functions a kernel may use (math, bit counting, hints); others (memcpy,
# trap, frame_address, ...) are refused.
_ALLOWED_BUILTIN = re.compile(
    r"__builtin_(?:expect|expect_with_probability|assume|assume_aligned|unreachable|constant_p|"
    r"is_constant_evaluated|offsetof|addressof|FILE|LINE|FUNCTION|"
    r"(?:popcount|clz|ctz|ffs|parity)(?:l|ll)?|bswap(?:16|32|64)|"
    r"(?:sqrt|fabs|fma|fmin|fmax|floor|ceil|trunc|round|rint|exp|exp2|log|log2|log10|pow|sin|cos|tan|"
    r"copysign|huge_val|inf|nan|isnan|isinf|isfinite)[fl]?|abs|labs)")

_TOKEN = re.compile(r"""
    (?P<nl>\n)
  | (?P<space>[ \t\r\f\v]+)
  | (?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))
  | (?P<string>(?:u8|[uUL])?R"(?P<delim>[^()\\\s"]{0,16})\(.*?\)(?P=delim)"
             | (?:u8|[uUL])?"(?:[^"\\\n]|\\.)*"?
             | (?:u8|[uUL])?'(?:[^'\\\n]|\\.)*'?)
  | (?P<number>\.?\d(?:[eEpP][-+]|[\w.]|'(?=\w))*)
  | (?P<ident>[A-Za-z_$][\w$]*)
  | (?P<punct>%:%:|%:|<%|%>|<:(?!:[^:>])|:>|::|->|\#\#|\.\.\.|&&|\|\||<<|>>|\+\+|--|[-+*/%^&|<>=!]=|.)
""", re.X | re.S)
_DIGRAPHS = {"%:%:": "##", "%:": "#", "<%": "{", "%>": "}", "<:": "[", ":>": "]"}

# Words after which `name(` is not a declaration of `name`.
_NOT_A_TYPE = {"return", "case", "else", "do", "throw", "new", "delete", "sizeof", "alignof", "decltype",
               "typeid", "co_return", "co_yield", "co_await", "goto", "and", "or", "not", "if", "while",
               "for", "switch", "operator", "static_assert", "noexcept"}


@dataclass
class _Tok:
    kind: str
    text: str
    line: int
    pos: int
    directive: str = ""  # "include", "pragma", "define"... for the tokens of a # line


def _tokens(text):
    """Significant tokens of `text` with their physical lines: line continuations joined (a
    backslash-newline may split an identifier such as `as\\<newline>m`), comments dropped,
    string literals kept as single tokens (so nothing inside them is matched)."""
    parts = re.split(r"\\[ \t]*\r?\n", text)
    joined = "".join(parts)
    cuts, total = [], 0
    for p in parts[:-1]:
        total += len(p)
        cuts.append(total)
    newlines = [m.start() for m in re.finditer("\n", joined)]

    def line_of(pos):
        return 1 + bisect.bisect_left(newlines, pos) + bisect.bisect_right(cuts, pos)

    out, at_line_start, directive = [], True, ""
    for m in _TOKEN.finditer(joined):
        kind = m.lastgroup
        if kind == "nl":
            at_line_start, directive = True, ""
            continue
        if kind in ("space", "comment"):
            continue
        tok = _Tok(kind, _DIGRAPHS.get(m.group(), m.group()), line_of(m.start()), m.start(), directive)
        if at_line_start and tok.text == "#":
            directive = "#"
            tok.directive = "#"
        elif directive == "#":  # the directive's name
            directive = tok.text
            tok.directive = directive
        at_line_start = False
        out.append(tok)
    return out, joined


def _matching(toks, i, open_, close):
    """Index of the token closing the bracket opened at toks[i] (len(toks) if unclosed)."""
    depth = 0
    for j in range(i, len(toks)):
        if toks[j].text == open_:
            depth += 1
        elif toks[j].text == close:
            depth -= 1
            if depth == 0:
                return j
    return len(toks)


def _library_qualified(toks, i):
    """Whether toks[i] is written `::name` or `std::name`: the library's, not the file's own."""
    if i < 1 or toks[i - 1].text != "::":
        return False
    q = toks[i - 2] if i >= 2 else None
    return q is None or q.kind != "ident" or q.text == "std" or q.text in _NOT_A_TYPE


def _has_constructor(body, name):
    """Whether a class body declares a (non-constexpr) constructor or a destructor of `name`."""
    for j in range(len(body) - 1):
        if body[j].text == name and body[j + 1].text == "(":
            before = body[j - 1].text if j else ""
            if before == "~" or before not in (".", "->", "::", "constexpr", "consteval", "return", "new"):
                return True
    return False


def _pragma_allowed(words):
    """#pragma once, unroll and diagnostics only: nothing that changes code generation; and
    push_macro/pop_macro of an ordinary name, the usual way to step around a macro of the
    grader's (TILE_SIZE) with a constant of one's own. A name with a leading underscore or of the
    grader's (HALO...) is not ordinary: restoring one could bring back what an #undef the
    validator saw took away."""
    if not words:
        return True
    w0, rest = words[0], words[1:]
    if w0 in ("push_macro", "pop_macro"):
        return (len(rest) == 5 and rest[:2] == ["(", '"'] and rest[3:] == ['"', ")"]
                and re.fullmatch(r"[A-Za-z]\w*", rest[2]) is not None and not rest[2].upper().startswith("HALO"))
    if w0 in ("once", "unroll", "nounroll", "message", "region", "endregion", "mark", "warning") or re.fullmatch(
            r"(nv_)?diag_(suppress|warning|default|error|once)|nv_diagnostic", w0):  # nvcc's diagnostics
        return True
    if w0 in ("GCC", "clang") and rest and rest[0] in ("diagnostic", "unroll", "nounroll", "warning", "error"):
        return True
    if w0 == "clang" and rest[:1] == ["loop"]:  # clang loop unroll(...) is #pragma unroll; vectorize is not
        opts = re.findall(r"(\w+)\s*\(", " ".join(rest[1:]))
        return bool(opts) and all(o.startswith("unroll") for o in opts)
    return False


def _pragma_construct(words):
    return "#pragma " + " ".join(w for w in words[:2] if re.fullmatch(r"\w+", w))


def validate_source(path: Path, text: str) -> list[Finding]:
    """The source-level check of one kernel file's text (no compiler needed)."""
    path = Path(path)
    toks, joined = _tokens(text)
    found = []

    def add(tok_or_line, construct, why):
        line = tok_or_line if isinstance(tok_or_line, int) else tok_or_line.line
        f = _finding(path, line, construct, why)
        if f not in found:
            found.append(f)

    # Names the file itself declares as functions (`float read(...)`): calling those is fine.
    declared = set()
    for i, t in enumerate(toks[1:-1], 1):
        if t.kind == "ident" and toks[i + 1].text == "(":
            p = toks[i - 1]
            if (p.kind == "ident" and p.text not in _NOT_A_TYPE) or p.text in ("*", "&", ">"):
                declared.add(t.text)

    stack = []  # brace kinds: "ns" (namespace / extern "C" block) or "x" (anything else)
    i = 0
    while i < len(toks):
        t = toks[i]
        prev = toks[i - 1] if i else None
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        text_ = t.text

        if t.directive == "#" and nxt is not None and nxt.directive not in ("", "#"):
            d = nxt.directive
            end = i + 1
            while end < len(toks) and toks[end].directive == d:
                end += 1
            eol = joined.find("\n", nxt.pos)
            rest = joined[nxt.pos + len(d):eol if eol >= 0 else len(joined)]
            if d in ("include", "include_next", "import"):
                m = re.match(r"\s*(<[^>\n]*>|\"[^\"\n]*\")", rest)
                name = m.group(1) if m else rest.strip()
                if d != "include" or not m:
                    add(t, f"#{d} {name}".strip(), "include")
                elif name[0] == "<" and name[1:-1].strip() not in ALLOWED_SYSTEM_HEADERS:
                    add(t, f"#include {name}", "include")
                elif name[0] == '"' and not _GIVEN_HEADER.fullmatch(name[1:-1]):
                    add(t, f"#include {name}", "include")
                elif name[0] == '"' and (path.parent / name[1:-1]).exists():
                    add(t, f"#include {name}", "shadow")
            elif d == "pragma":
                words = re.findall(r"\w+|\S", rest)
                if not _pragma_allowed(words):
                    add(t, _pragma_construct(words), "pragma")
            elif d == "line" or nxt.kind == "number":  # `#line 5` and the GNU form `# 5 "file"`
                add(t, "#line", "line")
            elif d not in ("error", "warning"):  # #define, #if...: their tokens are checked below
                i += 1
                continue
            i = end
            continue

        if text_ == "{" and not t.directive:
            back = [toks[k].text for k in range(max(0, i - 3), i)]
            stack.append("ns" if "namespace" in back or (back and back[-1].startswith('"') and "extern" in back)
                         else "x")
        elif text_ == "}" and not t.directive:
            if stack:
                stack.pop()

        if t.kind != "ident":
            if text_ == "[" and nxt is not None and nxt.text == "[":  # [[gnu::weak]], [[clang::...]]
                end = _matching(toks, i, "[", "]")
                inner = toks[i + 2:end - 1]
                depth = 0
                for k, a in enumerate(inner):
                    depth += a.text in "([{" and a.kind == "punct"
                    depth -= a.text in ")]}" and a.kind == "punct"
                    following = inner[k + 1].text if k + 1 < len(inner) else ""
                    if depth == 0 and a.kind == "ident" and following != "::":
                        name = re.sub(r"^__(.*)__$", r"\1", a.text)
                        if name in FORBIDDEN_ATTRIBUTES:
                            add(a, f"the attribute {name}", FORBIDDEN_ATTRIBUTES[name])
                i = end + 1
                continue
            i += 1
            continue

        member = prev is not None and prev.text in (".", "->")
        if text_ in ("asm", "__asm__", "__asm"):
            add(t, "inline asm", "asm")
        elif text_ in ("__attribute__", "__attribute") and nxt is not None and nxt.text == "(":
            end = _matching(toks, i + 1, "(", ")")
            depth = 0
            for k in range(i + 1, end):
                a = toks[k]
                if a.text == "(":
                    depth += 1
                elif a.text == ")":
                    depth -= 1
                elif depth == 2 and a.kind == "ident" and toks[k - 1].text in ("(", ","):
                    name = re.sub(r"^__(.*)__$", r"\1", a.text)
                    if name in FORBIDDEN_ATTRIBUTES:
                        add(a, f"the attribute {name}", FORBIDDEN_ATTRIBUTES[name])
            i = end + 1
            continue
        elif text_ == "__declspec":
            add(t, "__declspec", "link")
        elif text_ == "__pragma":
            add(t, "__pragma", "pragma")
        elif text_ == "_Pragma":
            arg = toks[i + 2] if i + 2 < len(toks) and nxt is not None and nxt.text == "(" else None
            if arg is None or arg.kind != "string":
                add(t, "_Pragma", "pragma")  # a pragma made by a macro cannot be checked here
            else:
                body = re.sub(r'^[uUL8]*R?"|"$', "", arg.text).replace('\\"', '"')
                words = re.findall(r"\w+|\S", body)
                if not _pragma_allowed(words):
                    add(t, _pragma_construct(words), "pragma")
        elif text_ == "halo" and not member and ((nxt is not None and nxt.text == "::")
                                                  or (prev is not None and prev.text == "namespace")):
            add(t, "halo::", "internal")
        elif text_.startswith("__builtin_"):
            if not _ALLOWED_BUILTIN.fullmatch(text_):
                add(t, text_, "memory" if re.search(r"mem|str|bcopy|bzero", text_) else "builtin")
        elif not member and text_ in FORBIDDEN_NAMES:
            add(t, text_, FORBIDDEN_NAMES[text_])
        elif (not member and text_ in FORBIDDEN_CALLS and nxt is not None and nxt.text == "("
              and (text_ not in declared or _library_qualified(toks, i))):
            add(t, text_, FORBIDDEN_CALLS[text_])
        elif not member and _BUILD_TELLING.fullmatch(text_):
            add(t, text_, "build")
        elif not member:
            for prefix, why in FORBIDDEN_PREFIXES:
                if text_.startswith(prefix):
                    add(t, text_, why)
                    break

        # `static struct X { X() {...} } x;` (or the same at namespace scope): an object whose
        # constructor or destructor would run when the grader starts or exits. (The IR layer
        # finds every other form; this one gets a precise line here.)
        if text_ in ("struct", "class", "union") and (prev is None or prev.text != "enum") and nxt is not None:
            at_file_scope = "x" not in stack
            before = {toks[k].text for k in range(max(0, i - 3), i)}
            is_static = "static" in before and "typedef" not in before
            at_file_scope = at_file_scope and "typedef" not in before
            k = i + 1
            while k < len(toks) and toks[k].text not in ("{", ";", "(", ")", "="):
                k += 1
            if (at_file_scope or is_static) and nxt.kind == "ident" and k < len(toks) and toks[k].text == "{":
                close = _matching(toks, k, "{", "}")
                after = toks[close + 1] if close + 1 < len(toks) else None
                if after is not None and after.kind == "ident" and _has_constructor(toks[k + 1:close], nxt.text):
                    add(after, "a static object with a constructor or destructor", "static")
        i += 1
    return sorted(found, key=lambda f: f.line)


# ---------------------------------------------------------------------------------------------
# The IR layer
# ---------------------------------------------------------------------------------------------

# What the dialect header's declarations mangle to (clang 14, x86-64), the C library functions
# that math, printf and assert lower to, and exception plumbing that only runs if something throws.
DIALECT_FUNCTIONS = frozenset({
    "_ZN4halo3cpu12thread_indexEv", "_ZN4halo3cpu11block_indexEv", "_ZN4halo3cpu9block_dimEv",
    "_ZN4halo3cpu8grid_dimEv", "_ZN4halo3cpu12sync_threadsEi", "_ZN4halo3cpu12todo_reachedEPKcS2_i",
    "_ZN4halo3cpu14copy_to_symbolEPvmPKvmm14cudaMemcpyKind",
    "_ZN4halo3cpu16copy_from_symbolEPvPKvmmm14cudaMemcpyKind",
    "_Z16cudaGetLastErrorv", "_Z19cudaPeekAtLastErrorv", "_Z16cudaGetErrorName9cudaError",
    "_Z18cudaGetErrorString9cudaError", "_Z21cudaDeviceSynchronizev",
    "_ZN4halo3cpu13warp_exchangeEmib",  # the shuffles and votes (warp_functions.hpp)
    # the copy engine (halo/given/tile_copy.cuh, grader/cpu/tensor_copy.cpp), which checks and
    # counts each copy and wait
    "_Z17tile_barrier_initP11TileBarrier", "_Z15copy_tile_asyncPfRKN4halo9TensorMapEiiP11TileBarrier",
    "_Z9wait_tileP11TileBarrierj",
}) | frozenset(  # the atomics (grader/cpu/atomics.cpp), which check each access before it happens
    f"_Z{len(name)}{name}P{code}{code}" + (code if name == "atomicCAS" else "")
    for name in ("atomicAdd", "atomicSub", "atomicExch", "atomicMin", "atomicMax", "atomicAnd", "atomicOr",
                 "atomicXor", "atomicCAS")
    for code in "ijy") | frozenset({"_Z9atomicAddPff", "_Z9atomicAddPdd", "_Z10atomicExchPff"})
# The rest of cuda_runtime.hpp, for a kernel file's host code (grader/wrong/7.3 allocates and
# copies a mask). The CPU runtime checks the device side of each of these but not the host side
# of cudaMemcpy and cudaMemcpy2D: a host-to-host copy moves any bytes, unseen. Leave this set
# out of the allowed functions to refuse them.
RUNTIME_API_FUNCTIONS = frozenset({
    "_Z10cudaMallocPPvm", "_Z15cudaMallocPitchPPvPmmm", "_Z8cudaFreePv", "_Z10cudaMemsetPvim",
    "_Z10cudaMemcpyPvPKvm14cudaMemcpyKind", "_Z12cudaMemcpy2DPvmPKvmmm14cudaMemcpyKind",
})
_MATH = ("sqrt cbrt fabs fmin fmax fma exp exp2 expm1 exp10 log log2 log10 log1p pow sin cos tan asin acos atan "
         "atan2 sinh cosh tanh asinh acosh atanh floor ceil trunc round rint nearbyint lround llround lrint "
         "llrint fmod remainder hypot erf erfc tgamma copysign fdim ldexp scalbn ilogb logb nextafter").split()
LIBC_FUNCTIONS = frozenset([f + s for f in _MATH for s in ("", "f")] + [
    "abs", "labs", "llabs", "printf", "puts", "putchar",  # printf("text\n") is compiled to puts
    "__assert_fail", "__gxx_personality_v0", "_Unwind_Resume"])
# The handlers of the compiler's bounds and division checks (HALO_KERNEL_FLAGS' -fsanitize=...,
# grader/cpu/ubsan_handlers.cpp). A source cannot name them (the __ubsan prefix is refused, and so
# are asm labels): every call of one is the compiler's.
SANITIZER_HANDLERS = frozenset({"__ubsan_handle_out_of_bounds", "__ubsan_handle_divrem_overflow"})
ALLOWED_FUNCTIONS = DIALECT_FUNCTIONS | RUNTIME_API_FUNCTIONS | LIBC_FUNCTIONS | SANITIZER_HANDLERS
# The functions whose first string arguments must be literals of the file (private constants):
# printf's format, so that it can be read here, and assert's text. Other strings (printf's %s, and
# puts, which clang makes of printf("%s\n", s)) are read by the runtime through the access check,
# character by character (grader/cpu/kernel_output.cpp).
_LITERAL_ARGUMENTS = {"printf": 1, "__assert_fail": 2}
# printf conversions a kernel may use: each takes its argument by value but %s (a literal or a
# checked read). %n stores through its argument; %m, positional ($) and the rest are refused.
_PRINTF_CONVERSION = re.compile(r"%(?P<flags>[-+ #0]*)(?P<width>\*|\d*)(?:\.(?P<precision>\*|\d*))?"
                                r"(?P<length>hh|h|ll|l|j|z|t|L)?(?P<conversion>[diouxXcfFeEgGaAsp%])")
# The runtime's variables the dialect refers to: the block's dynamic shared memory, which every
# `extern __shared__` array names (tools/halo/core/extern_shared.py).
DIALECT_GLOBALS = frozenset({"halo_dynamic_shared_memory"})
# What the dialect's __shared__ and HALO_EXTERN_SHARED declare beside a kernel's variables and
# keep with the attribute used: guard bytes before each shared array, and the extern names.
_DIALECT_MARKER = re.compile(r"(?:halo_shared_guard_\d+|halo_extern_shared_name_\w+)$")

# Intrinsics that compute in registers or only inform the optimiser (by name prefix).
_ALLOWED_INTRINSICS = tuple("llvm." + n for n in (
    "dbg lifetime.start lifetime.end assume expect experimental.noalias.scope.decl invariant.start "
    "invariant.end launder.invariant.group strip.invariant.group stacksave stackrestore is.constant "
    "objectsize fmuladd fma sqrt fabs minnum maxnum minimum maximum copysign floor ceil trunc rint "
    "nearbyint round roundeven lround llround lrint llrint pow powi exp exp2 log log2 log10 sin cos "
    "canonicalize smin smax umin umax abs ctpop ctlz cttz bswap bitreverse fshl fshr sadd uadd ssub "
    "usub smul umul sshl ushl vector.reduce").split())
_BAD_FN_ATTRIBUTES = {"nosanitize_coverage": ("the attribute no_sanitize", "instrument"),
                      "disable_sanitizer_instrumentation": ("the attribute disable_sanitizer_instrumentation",
                                                           "instrument"),
                      "naked": ("the attribute naked", "naked"),
                      "optnone": ("the attribute optnone", "optimise")}
_OK_LINKAGE = {"external", "internal", "private", "linkonce_odr", "weak_odr"}
_LINKAGES = _OK_LINKAGE | {"weak", "linkonce", "common", "appending", "extern_weak", "available_externally"}
_LIBC_GLOBALS = {"environ", "__environ", "stdin", "stdout", "stderr", "errno", "optarg", "optind", "opterr",
                 "optopt", "signgam", "timezone", "daylight", "tzname", "program_invocation_name",
                 "program_invocation_short_name"}
# The C++ runtime calls behind static objects with dynamic initialisation or destructors.
_STATIC_OBJECT_HELPERS = {"__cxa_atexit", "__cxa_thread_atexit", "__cxa_thread_atexit_impl",
                          "__cxa_guard_acquire", "__cxa_guard_release", "__cxa_guard_abort"}
_STATIC = "a static object with a constructor or destructor"

_NAME = r'(?:"(?:[^"\\]|\\.)*"|[-\w$.]+)'
_GREF = re.compile(r"@(" + _NAME + ")")
_CSTRING = re.compile(r'c"[^"]*"')
_DBG = re.compile(r"!dbg !(\d+)")
_ASM = re.compile(r'\basm\s+(?:sideeffect\s+|alignstack\s+|inteldialect\s+|unwind\s+)*"')
_LOCAL_DEF = re.compile(r"\s*(%" + _NAME + r") = (.*)")
_DIRECT_CALLEE = re.compile(r" ([@%]" + _NAME + r")\(")
_FIELD = {name: re.compile(r"\b" + name + r": !?(\d+)") for name in ("line", "scope", "file", "inlinedAt", "var")}
_SANCOV = re.compile(r"__sanitizer_cov_(load|store)(\d+)")


def _unquote(name):
    return name[1:-1] if name.startswith('"') else name


# --- LLVM types, as far as sizes go (x86-64 data layout) ------------------------------------

_SCALAR = re.compile(r"(i\d+|half|bfloat|float|double|x86_fp80|fp128|ppc_fp128|x86_mmx|void|ptr|label|"
                     r"metadata|token|opaque|%" + _NAME + r"|\.\.\.)")
_FLOAT_BITS = {"half": 16, "bfloat": 16, "float": 32, "double": 64, "x86_fp80": 80, "fp128": 128,
               "ppc_fp128": 128, "x86_mmx": 64}


_BRACKET = re.compile(r"[()\[\]{}<>,]")
# The patterns of the per-line and per-instruction paths, compiled once (re's own cache is a
# lookup per call: some 60,000 for 7.9's module).
_VECTOR_OR_ARRAY = re.compile(r"[\[<]\s*(vscale x )?(\d+) x ")
_INT_TYPE = re.compile(r"i\d+")
_METADATA_LINE = re.compile(r"!(\d+) = (.*)")
_OPCODE = re.compile(r"(?:(?:tail|musttail|notail) )?(\w+)")
_ACCESS_PREFIX = re.compile(r"^\w+(?: (?:atomic|volatile|weak))*(?: (?:xchg|add|sub|and|nand|or|xor|"
                            r"max|min|umax|umin|fadd|fsub|fmax|fmin)(?= ))?\s")
_CAST = re.compile(r"\b(inttoptr|bitcast) \(?")
_VARIABLE_ALLOCA = re.compile(r", i\d+ %")


# The readers below are pure functions of their text, memoized: a module repeats its operands
# and types thousands of times (7.9's: 26,000 type reads of some 2,000 distinct texts).
@functools.lru_cache(maxsize=1 << 14)
def _split_list(s):
    """Top-level comma-separated pieces of s (brackets of every kind respected), as a tuple."""
    pieces, depth, start = [], 0, 0
    for m in _BRACKET.finditer(s):
        ch = m.group()
        if ch == ",":
            if depth == 0:
                pieces.append(s[start:m.start()].strip())
                start = m.end()
        elif ch in "([{<":
            depth += 1
        else:
            depth -= 1
    pieces.append(s[start:].strip())
    return tuple(pieces)


@functools.lru_cache(maxsize=1 << 15)
def _parse_type(s, i=0):
    """(type, end) for the LLVM type starting at s[i]. Types are tuples: ("int", bits),
    ("fp", name), ("ptr", pointee), ("vec"|"arr", n, elem), ("struct", fields, packed),
    ("named", name), ("fn",)."""
    while i < len(s) and s[i] == " ":
        i += 1
    if s.startswith("<{", i) or s[i] == "{":
        packed = s[i] == "<"
        close = "}>" if packed else "}"
        i += 2 if packed else 1
        fields = []
        while True:
            while s[i] == " ":
                i += 1
            if s.startswith(close, i):
                i += len(close)
                break
            t, i = _parse_type(s, i)
            fields.append(t)
            while s[i] == " ":
                i += 1
            if s[i] == ",":
                i += 1
        t = ("struct", tuple(fields), packed)
    elif s[i] in "[<":
        m = _VECTOR_OR_ARRAY.match(s, i)
        elem, i = _parse_type(s, m.end())
        while s[i] == " ":
            i += 1
        t = ("arr" if s[m.start()] == "[" else "vec", int(m.group(2)), elem)
        i += 1
    else:
        m = _SCALAR.match(s, i)
        if not m:
            raise ValueError(f"cannot read an LLVM type at {s[i:i + 40]!r}")
        w, i = m.group(1), m.end()
        t = (("int", int(w[1:])) if _INT_TYPE.fullmatch(w) else ("named", w) if w[0] == "%"
             else ("fp", w) if w in _FLOAT_BITS else ("ptr", None) if w == "ptr" else ("other", w))
    while True:  # pointer and function-type suffixes
        j = i
        while j < len(s) and s[j] == " ":
            j += 1
        if s.startswith("*", j):
            t, i = ("ptr", t), j + 1
        elif s.startswith("addrspace(", j):
            i = s.index(")", j) + 1
        elif s.startswith("(", j) and t[0] != "fn":
            depth = 0
            for k in range(j, len(s)):
                depth += s[k] == "("
                depth -= s[k] == ")"
                if depth == 0:
                    break
            t, i = ("fn",), k + 1
        else:
            return t, i


class _Types:
    """Sizes of LLVM types under x86-64's data layout (as clang 14 writes it)."""

    def __init__(self, named):
        self.named = named  # "%struct.X" -> type text
        self.cache = {}

    def resolve(self, t):
        while t[0] == "named":
            name = t[1]
            if name not in self.cache:
                body = self.named.get(name, "opaque")
                self.cache[name] = ("other", "opaque") if body.strip() == "opaque" else _parse_type(body)[0]
            t = self.cache[name]
        return t

    def bits(self, t):
        t = self.resolve(t)
        if t[0] == "int":
            return t[1]
        if t[0] == "fp":
            return _FLOAT_BITS[t[1]]
        if t[0] == "ptr":
            return 64
        return self.alloc(t) * 8

    def align(self, t):
        t = self.resolve(t)
        if t[0] == "int":
            return min(_pow2((t[1] + 7) // 8), 8)
        if t[0] == "fp":
            return {"x86_fp80": 16, "fp128": 16, "ppc_fp128": 16}.get(t[1], _FLOAT_BITS[t[1]] // 8)
        if t[0] == "ptr":
            return 8
        if t[0] == "vec":
            return _pow2(self.store(t))
        if t[0] == "arr":
            return self.align(t[2])
        if t[0] == "struct":
            return 1 if t[2] else max([self.align(f) for f in t[1]] or [1])
        return 1

    def store(self, t):
        """Bytes a load or store of t touches (LLVM's store size)."""
        t = self.resolve(t)
        if t[0] in ("int", "fp"):
            return (self.bits(t) + 7) // 8
        if t[0] == "vec":
            return (t[1] * self.bits(t[2]) + 7) // 8
        return self.alloc(t)

    def alloc(self, t):
        t = self.resolve(t)
        if t[0] == "arr":
            return t[1] * self.alloc(t[2])
        if t[0] == "struct":
            return self.field_offsets(t)[-1]
        if t[0] in ("int", "fp", "vec", "ptr"):
            a = self.align(t)
            return -(-self.store(t) // a) * a if t[0] != "ptr" else 8
        return 0

    def field_offsets(self, t):
        """Offsets of a struct's fields, then its size."""
        off, out = 0, []
        for f in t[1]:
            a = 1 if t[2] else self.align(f)
            off = -(-off // a) * a
            out.append(off)
            off += self.alloc(f)
        a = self.align(t)
        out.append(-(-off // a) * a)
        return out


def _pow2(n):
    p = 1
    while p < n:
        p *= 2
    return p


def _is_fn_pointer(t):
    return t[0] == "ptr" and t[1] is not None and t[1][0] == "fn"


# --- the module ----------------------------------------------------------------------------------

@dataclass
class _Function:
    name: str
    header: str
    insts: list  # (text, dbg id or None), debug-intrinsic calls left out
    defs: dict   # "%x" -> right-hand side


class _Module:
    def __init__(self, text):
        self.md, self.attr_groups, self.named_types = {}, {}, {}
        # name -> (kind: "global", "constant", "alias" or "ifunc"; linkage; its line; a declaration?)
        self.globals = {}
        self.defined, self.declared = {}, {}  # function name -> header line
        self.functions, self.module_asm = [], []
        lines = text.split("\n")
        n, k = len(lines), 0
        while k < n:
            line = lines[k]
            c = line[:1]
            if c == "!":
                m = _METADATA_LINE.match(line)
                if m:
                    self.md[int(m.group(1))] = m.group(2)
            elif line.startswith("define "):
                name = _unquote(_GREF.search(line).group(1))
                insts, defs = [], {}
                k += 1
                while k < n and lines[k] != "}":
                    s = lines[k]
                    k += 1
                    if not s or s.startswith(";") or "@llvm.dbg." in s:
                        continue
                    if s.startswith("   ") or s.startswith("  ]"):  # continuation (switch, invoke)
                        if insts:
                            insts[-1] = (insts[-1][0] + " " + s.strip(), insts[-1][1])
                        continue
                    if not s.startswith("  "):
                        continue  # a label
                    m = _DBG.search(s)
                    insts.append((s, int(m.group(1)) if m else None))
                    d = _LOCAL_DEF.match(s)
                    if d:
                        defs[d.group(1)] = d.group(2)
                self.defined[name] = line
                self.functions.append(_Function(name, line, insts, defs))
            elif line.startswith("declare "):
                self.declared[_unquote(_GREF.search(line).group(1))] = line
            elif c == "@":
                m = re.match(r"@(" + _NAME + r") = (.*?)\b(global|constant|alias|ifunc)\b", line)
                if m:
                    words = m.group(2).split()
                    linkage = next((w for w in words if w in _LINKAGES), "external")
                    declaration = "external" in words or "extern_weak" in words
                    self.globals[_unquote(m.group(1))] = (m.group(3), linkage, line, declaration)
            elif c == "%":
                m = re.match(r"(%" + _NAME + r") = type (.*)", line)
                if m:
                    self.named_types[m.group(1)] = m.group(2)
            elif line.startswith("attributes #"):
                m = re.match(r"attributes #(\d+) = \{(.*)\}", line)
                self.attr_groups[int(m.group(1))] = m.group(2)
            elif line.startswith("module asm"):
                self.module_asm.append(line)
            k += 1
        for name in self.defined:
            self.declared.pop(name, None)
        self.types = _Types(self.named_types)


_PARAM_ATTRIBUTE = re.compile(
    r"\s*(?:noundef|nonnull|noalias|nocapture|readonly|writeonly|readnone|returned|signext|zeroext|inreg|"
    r"immarg|nofree|align \d+|(?:dereferenceable|dereferenceable_or_null)\(\d+\)|"
    r"(?:byval|sret|elementtype|byref|preallocated|inalloca)\([^)]*\))(?=\s)")
_ORDERING = re.compile(r'(?:\s+(?:syncscope\("[^"]*"\)|unordered|monotonic|acquire|release|acq_rel|seq_cst))+$')


@functools.lru_cache(maxsize=1 << 14)
def _value(operand):
    """The value of an operand written `TYPE [attributes] VALUE` (a constant expression whole)."""
    _, end = _parse_type(operand)
    rest = operand[end:]
    while True:
        m = _PARAM_ATTRIBUTE.match(rest)
        if not m:
            break
        rest = rest[m.end():]
    return _ORDERING.sub("", rest.strip())


def _after_params(header):
    """What follows the parameter list of a define/declare line (attributes, section, ...)."""
    start = _GREF.search(header).end()
    depth = 0
    for k in range(start, len(header)):
        depth += header[k] == "("
        depth -= header[k] == ")"
        if depth == 0:
            return header[k + 1:]
    return ""


def _read_instruction(text):
    """(body, opcode, callee, through a cast?) of one instruction line; callee is None but for
    call, invoke and callbr: "@name", "%value" or "?" (ir_agreement.py checks this reading)."""
    body = text.split(" = ", 1)[1] if _LOCAL_DEF.match(text) else text.strip()
    op = _OPCODE.match(body).group(1)
    if op not in ("call", "invoke", "callbr"):
        return body, op, None, False
    direct = _DIRECT_CALLEE.search(body)
    cast = None if direct else re.search(r"bitcast \([^@]*@(" + _NAME + r") to ", body)
    return body, op, direct.group(1) if direct else "@" + cast.group(1) if cast else "?", bool(cast)


@functools.lru_cache(maxsize=1)
def _module(text):
    """The module of `text`, read once for the checks and for ir_agreement's facts (hand_facts),
    which read the same text; nothing reads it to change it."""
    return _Module(text)


class _IrCheck:
    def __init__(self, path, ir_text, allowed_functions, allowed_globals):
        self.path = Path(path)
        self.m = _module(ir_text)
        self.allowed = allowed_functions
        self.allowed_globals = allowed_globals
        self.found = []
        self.first_use = {}  # global name -> dbg id of its first located use in an instruction
        self.used = set()    # every global name an instruction or initialiser refers to
        self._files = {}
        try:
            self.source = self.path.read_text(errors="replace").split("\n")
        except OSError:
            self.source = []
        files = [k for k, text in self.m.md.items() if text.startswith("!DIFile(")]
        target = os.path.realpath(self.path)
        self.kernel_files = {self._difile(k) for k in files if os.path.realpath(self._difile(k)) == target}
        if not self.kernel_files:  # IR compiled from another copy of the file: match its name
            self.kernel_files = {self._difile(k) for k in files if Path(self._difile(k)).name == self.path.name}

    # --- where things are ------------------------------------------------------------------
    def _difile(self, k):
        if k not in self._files:
            text = self.m.md.get(k, "")
            fname = re.search(r'filename: "((?:[^"\\]|\\.)*)"', text)
            dname = re.search(r'directory: "((?:[^"\\]|\\.)*)"', text)
            f = fname.group(1) if fname else ""
            self._files[k] = os.path.join(dname.group(1), f) if dname and f and not os.path.isabs(f) else f
        return self._files[k]

    def _field(self, k, name):
        m = _FIELD[name].search(self.m.md.get(k, ""))
        return int(m.group(1)) if m else None

    def loc(self, dbg, outermost=False):
        """(file, line) of a !DILocation: the kernel file's line, following the inlinedAt chain
        out of header code inlined into it (the innermost such line, or the outermost: where a
        static object's inlined constructor was called for); else the innermost location."""
        mine, other = [], None
        for _ in range(64):
            if dbg is None:
                break
            line, scope = self._field(dbg, "line"), self._field(dbg, "scope")
            file_id = self._field(scope, "file") if scope is not None else None
            f = self._difile(file_id) if file_id is not None else ""
            if line and f in self.kernel_files:
                mine.append(line)
            elif line and other is None:
                other = (Path(f) if f else self.path, line)
            dbg = self._field(dbg, "inlinedAt")
        if mine:
            return self.path, mine[-1 if outermost else 0]
        return other or (self.path, 0)

    def where(self, name):
        """(file, line) of a function or global: its debug info, else its first use, else the
        first located instruction of the function (a global constructor has no line of its own)."""
        header = (self.m.defined.get(name) or self.m.declared.get(name)
                  or (self.m.globals[name][2] if name in self.m.globals else ""))
        m = _DBG.search(header)
        if m:
            k = int(m.group(1))
            var = self._field(k, "var")  # a global's !DIGlobalVariableExpression
            k = var if var is not None else k
            line, file_id = self._field(k, "line"), self._field(k, "file")
            if line:
                f = self._difile(file_id) if file_id is not None else ""
                return (self.path if f in self.kernel_files or not f else Path(f)), line
        if name in self.first_use:
            return self.loc(self.first_use[name])
        # No debug info (a global variable, an alias): the first line that names it.
        ident = re.sub(r"<.*|\(.*", "", _demangle(name)).split("::")[-1]
        if re.fullmatch(r"[A-Za-z_]\w*", ident):
            for number, text in enumerate(self.source, 1):
                if re.search(r"\b" + ident + r"\b", text):
                    return self.path, number
        for fn in self.m.functions:
            if fn.name == name:
                for _, dbg in fn.insts:
                    where = self.loc(dbg, outermost=True) if dbg is not None else (self.path, 0)
                    if where[1]:
                        return where
        return self.path, 0

    def add(self, where, construct, why):
        where = where() if callable(where) else where
        f = _finding(where[0], where[1], construct, why)
        if f not in self.found:
            self.found.append(f)

    # --- the checks ------------------------------------------------------------------------
    def run(self):
        for line in self.m.module_asm:  # file-scope asm has no debug location: find its text
            text = re.sub(r'^module asm "|"$', "", line)
            number = next((k for k, src in enumerate(self.source, 1) if text and text in src), 0)
            self.add((self.path, number), "inline asm", "asm")
        for fn in self.m.functions:
            self.check_function(fn)
        self.check_definitions()
        self.check_globals()
        return sorted(self.found, key=lambda f: (f.file != self.path, f.line))

    def check_definitions(self):
        for name, header in self.m.defined.items():
            word = header.split()[1]
            linkage = word if word in _LINKAGES else "external"
            where = functools.partial(self.where, name)  # worked out only for a finding
            if name.startswith("__sanitizer") or ".module_ctor" in name:
                self.add(where, name, "callback")  # SanitizerCoverage skips functions of these names
            if linkage not in _OK_LINKAGE:
                self.add(where, "the attribute weak" if linkage == "weak" else f"{linkage} linkage", "link")
            elif linkage not in ("internal", "private"):
                if not name.startswith("_Z"):
                    self.add(where, f"a definition of {name}", "extern_c")
                elif re.match(r"_ZN?K?(4halo|7doctest|5boost|9__gnu_cxx)|_Z[nd][wal]", name) or (
                        linkage in ("external", "weak_odr") and re.match(r"_ZN?K?St", name)):
                    self.add(where, f"a definition of {_demangle(name)}", "namespace")
            rest = _after_params(header)
            section = re.search(r'section "([^"]*)"', rest)
            if section and not name.startswith("_GLOBAL__sub_I_"):  # that one is reported as a static object
                self.add(where, "the attribute section", f'section "{section.group(1)}": {WHY["link"]}')
            attrs = " ".join(self.m.attr_groups.get(int(g), "") for g in re.findall(r"#(\d+)", rest)) + " " + rest
            for attr, (construct, why) in _BAD_FN_ATTRIBUTES.items():
                if re.search(r"(?<![\w\"-])" + attr + r"(?![\w\"-])", attrs):
                    self.add(where, construct, why)
        for name, header in self.m.declared.items():
            if header.split()[1] == "extern_weak" and name in self.used:
                self.add(self.where(name), "the attribute weak", "link")

    def check_globals(self):
        for name, (kind, linkage, line, declaration) in self.m.globals.items():
            refs = [_unquote(r) for r in _GREF.findall(_CSTRING.sub("", line.split(" = ", 1)[1]))]
            if name in ("llvm.global_ctors", "llvm.global_dtors"):
                for r in refs:
                    if r.startswith("_GLOBAL__sub_I_"):
                        self.add(self.where(r), _STATIC, "static")
                    elif r in self.m.defined:
                        self.add(self.where(r), "the attribute " + ("constructor" if "ctors" in name
                                                                     else "destructor"), "startup")
                continue
            if name in ("llvm.used", "llvm.compiler.used"):  # __constant__ variables are `used`
                for r in refs:
                    section = re.search(r'section "([^"]*)"', self.m.globals[r][2] if r in self.m.globals else "")
                    if (r in self.m.defined or r in self.m.globals) and not (
                            section and section.group(1) == CONSTANT_SECTION) and not _DIALECT_MARKER.search(r):
                        self.add(self.where(r), "the attribute used", "link")
                continue
            if name.startswith("llvm."):
                continue
            where = functools.partial(self.where, name)
            if kind in ("alias", "ifunc"):
                # clang itself makes a complete-object constructor or destructor (C1, D1) an
                # alias of the base-object one (C2, D2); any other alias or ifunc is the student's.
                target = refs[-1] if refs else ""
                if not (kind == "alias" and linkage in _OK_LINKAGE and target in self.m.defined
                        and re.sub(r"([CD])1([EI])", r"\g<1>2\2", name) == target):
                    self.add(where, f"the attribute {kind}", "link")
                continue
            if declaration:  # an external variable: the runtime's or the C library's
                if name in self.used and name != "__dso_handle" and name not in self.allowed_globals:
                    self.add(where, name, FORBIDDEN_NAMES.get(name, "global"))
                    if linkage == "extern_weak":
                        self.add(where, "the attribute weak", "link")
                continue
            if linkage not in _OK_LINKAGE:
                self.add(where, "the attribute weak" if linkage == "weak" else f"{linkage} linkage", "link")
            section = re.search(r'section "([^"]*)"', line)
            if section and section.group(1) != CONSTANT_SECTION:
                self.add(where, "the attribute section", f'section "{section.group(1)}": {WHY["link"]}')
            if name == "__tls_guard" or name.startswith("_ZGV"):  # guards of dynamic initialisation
                self.add(where, _STATIC, "static")
            elif linkage not in ("internal", "private") and (
                    name in _LIBC_GLOBALS or re.match(r"_ZN?K?4halo|__|_[A-Y]", name)):
                self.add(where, f"a definition of {_demangle(name)}", "extern_c")
            for r in refs:  # function pointers in initialisers (tables, vtables)
                self.used.add(r)
                self.check_reference(r, where, callee=False)

    def check_reference(self, name, where, callee):
        """A use of a function declared, not defined, in this module (`where` may be a function
        that works the place out, called only for a finding)."""
        if name.startswith("llvm.") or name not in self.m.declared:
            return
        if name in _STATIC_OBJECT_HELPERS:
            self.add(where, _STATIC, "static")
        elif name.startswith("__sanitizer_cov_"):
            if not callee:  # its address taken: only the compiler's direct calls are fine
                self.add(where, name, "callback")
        elif name not in self.allowed:
            why = FORBIDDEN_NAMES.get(name) or FORBIDDEN_CALLS.get(name) or (
                "internal" if name.startswith(("_ZN4halo", "__halo", "__cxa", "__sanitizer")) else "function")
            self.add(where, _demangle(name), why)

    def check_function(self, fn):
        for idx, (text, dbg) in enumerate(fn.insts):
            cached = []

            def at():  # the instruction's (file, line), worked out only for a finding
                if not cached:
                    where = self.loc(dbg) if dbg is not None else (self.path, 0)
                    cached.append(where if where[1] else self.where(fn.name))
                return cached[0]

            refs = [_unquote(r) for r in _GREF.findall(text)]
            for r in refs:
                self.used.add(r)
                if dbg is not None:
                    self.first_use.setdefault(r, dbg)
            if "!nosanitize" in text and _uninstrumented_access(text):
                self.add(at, "an uninstrumented access (!nosanitize)", "instrument")
            if "asm" in text and _ASM.search(text):
                self.add(at, "inline asm", "asm")
                continue
            body, op, callee, through_cast = _read_instruction(text)
            if callee is not None:
                self.check_call(fn, idx, body, callee, through_cast, at)
            callee_name = _unquote(callee[1:]) if callee and callee.startswith("@") else None
            for r in refs:
                self.check_reference(r, at, callee=r == callee_name)
            if op == "alloca" and _VARIABLE_ALLOCA.search(body):
                self.add(at, "a variable-length array", "vla")
            if op in ("atomicrmw", "cmpxchg"):
                self.add(at, "an atomic instruction", "atomic")
            if op in ("load", "store", "atomicrmw", "cmpxchg"):
                size, _ = self.access(body, op)
                if size not in (1, 2, 4, 8, 16):
                    kind = op if op in ("load", "store") else "atomic access"
                    self.add(at, f"a {size}-byte {kind}" if size else f"a {kind} of an unknown size", "size")
            if "inttoptr" in body or "bitcast" in body:
                self.check_casts(body, at)

    def access(self, body, op):
        """(store size, pointer value) of a load, store, atomicrmw or cmpxchg."""
        try:
            pieces = _split_list(_ACCESS_PREFIX.sub("", body))
            value_piece, pointer_piece = (pieces[0], pieces[1]) if op in ("load", "store") else (pieces[1], pieces[0])
            return self.m.types.store(_parse_type(value_piece)[0]), _value(pointer_piece)
        except (ValueError, IndexError, KeyError, AttributeError):
            return None, ""

    def root(self, fn, value, depth=0):
        """(base, byte offset) of a pointer value: the value it is derived from through casts
        and GEPs (instructions or constant expressions), and its constant offset from it (None
        where it is not constant)."""
        value = value.strip()
        if depth > 16:
            return value, None
        const = re.fullmatch(r"(bitcast|addrspacecast|getelementptr(?: inbounds)?) \((.*)\)", value)
        rhs = f"{const.group(1)} {const.group(2)}" if const else fn.defs.get(value, "")
        tls = re.match(r"(?:tail |musttail |notail )?call .*?@llvm\.threadlocal\.address\.\w+\((.*)\)", rhs)
        if tls:  # the address of a thread_local variable: that variable, as a direct use reads it
            operand = self.thread_local_operand(_split_list(tls.group(1)))
            return (operand, 0) if operand else (value, 0)
        try:
            if rhs.startswith(("bitcast ", "addrspacecast ")):
                _, end = _parse_type(rhs, rhs.index(" ") + 1)
                return self.root(fn, rhs[end:].rsplit(" to ", 1)[0], depth + 1)
            if rhs.startswith("getelementptr "):
                pieces = [p for p in _split_list(re.sub(r"^getelementptr (inbounds )?", "", rhs))
                          if not p.startswith("!")]
                base, off = self.root(fn, _value(pieces[1]), depth + 1)
                t = _parse_type(pieces[0])[0]
                indices = [p.split()[-1] for p in pieces[2:]]
                if off is None or not all(re.fullmatch(r"-?\d+", k) for k in indices):
                    return base, None  # a variable index: the base is known, the offset is not
                indices = [int(k) for k in indices]
                total = indices[0] * self.m.types.alloc(t)
                for k in indices[1:]:
                    t = self.m.types.resolve(t)
                    if t[0] == "struct":
                        total += self.m.types.field_offsets(t)[k]
                        t = t[1][k]
                    else:
                        t = t[2]
                        total += k * self.m.types.alloc(t)
                return base, off + total
        except (ValueError, IndexError):
            return value, None
        return value, 0

    def extent(self, fn, value):
        """Bytes from a pointer to the end of the local variable (alloca) or constant it points
        into; None when it may point anywhere else (global memory, arguments, ...)."""
        base, off = self.root(fn, value)
        if off is None:
            return None
        if fn.defs.get(base, "").startswith("alloca "):
            rhs = fn.defs[base]
            t, end = _parse_type(rhs, len("alloca "))
            count = re.match(r", i\d+ (\d+)", rhs[end:])
            return self.m.types.alloc(t) * (int(count.group(1)) if count else 1) - off
        g = self.m.globals.get(base[1:]) if base.startswith("@") else None
        if g and g[0] == "constant" and not g[3]:
            return self.m.types.alloc(_parse_type(g[2].split(" constant ", 1)[1])[0]) - off
        return None

    def check_call(self, fn, idx, body, callee, through_cast, at):
        if not callee.startswith("@"):
            if not self.calls_known_function(fn, callee):
                self.add(at, "an indirect call", "indirect")
            return
        name = _unquote(callee[1:])
        open_ = body.find("(", body.find(callee) + len(callee))
        args = _split_list(body[open_ + 1:body.rfind(")")]) if open_ >= 0 and not through_cast else []
        if name.startswith("llvm."):
            block = re.match(r"llvm\.(memcpy|memmove|memset)(?:\.inline)?\b", name)
            if block:
                # A block operation within one local variable (or from a constant) is harmless:
                # that is what `float acc[8] = {}` and `float w[3] = {1, 2, 3}` become.
                try:
                    length = int(_value(args[2]))
                    pointers = args[:1] if block.group(1) == "memset" else args[:2]
                    extents = [self.extent(fn, _value(a)) for a in pointers]
                    ok = all(e is not None and e >= length for e in extents)
                except (ValueError, IndexError):
                    ok = False
                if not ok:
                    self.add(at, block.group(1), "memory")
            elif name.startswith("llvm.threadlocal.address."):
                # clang >= 16 reads a thread_local variable (a __shared__ tile on the CPU backend)
                # through this intrinsic: its result is that variable's address and nothing else,
                # so it passes only on a thread_local variable the validator already allows (see
                # thread_local_operand), whose uses then meet every check a direct use meets
                # (root() sees through it).
                if self.thread_local_operand(args) is None or through_cast:
                    self.add(at, "the intrinsic llvm.threadlocal.address", "intrinsic")
            elif not name.startswith(_ALLOWED_INTRINSICS):
                self.add(at, "the intrinsic " + re.sub(r"(\.(p0)?[ifv]\d+\w*)+$", "", name), "intrinsic")
            return
        if name in SANITIZER_HANDLERS:
            return  # the compiler's (it may merge two into one, its data chosen by a phi)
        if name in _LITERAL_ARGUMENTS:
            for arg in args[:_LITERAL_ARGUMENTS[name]]:
                text = self.literal(arg)
                if text is None:
                    self.add(at, f"{name} with a string that is not a literal", "literal")
                elif name == "printf":
                    bad = _printf_refusal(text)
                    if bad:
                        self.add(at, f"printf with {bad}", "printf")
            if len(args) < _LITERAL_ARGUMENTS[name] or through_cast:
                self.add(at, f"{name} with a string that is not a literal", "literal")
            return
        m = _SANCOV.fullmatch(name)
        if m:
            # SanitizerCoverage inserts its callback straight before the access it announces, on
            # the same address and for the same size. A call of the student's own cannot sit
            # there: the compiler's callback for that access would come between them.
            nxt = fn.insts[idx + 1][0] if idx + 1 < len(fn.insts) else ""
            nbody = nxt.split(" = ", 1)[1] if _LOCAL_DEF.match(nxt) else nxt.strip()
            ok = False
            if not through_cast and len(args) == 1 and nbody.startswith(m.group(1) + " "):
                size, pointer = self.access(nbody, m.group(1))
                arg = _value(args[0])
                ok = size == int(m.group(2)) and (self.uncast(fn, arg) == pointer or (
                    None not in self.root(fn, arg) and self.root(fn, arg) == self.root(fn, pointer)))
            if not ok:
                self.add(at, name, "callback")

    def thread_local_operand(self, args):
        """`@name` where a call's only argument is a thread_local variable defined in this file or
        an external one the dialect allows (halo_dynamic_shared_memory, `extern __shared__`);
        None for anything else (a local value, another external or an ordinary variable, a
        constant expression)."""
        if len(args) != 1:
            return None
        value = _value(args[0])
        if not re.fullmatch("@" + _NAME, value):
            return None
        g = self.m.globals.get(_unquote(value[1:]))
        if not g or g[0] != "global" or (g[3] and _unquote(value[1:]) not in self.allowed_globals):
            return None
        words = re.match(r"@" + _NAME + r" = (.*?)\bglobal\b", g[2]).group(1).split()
        return value if "thread_local" in words or any(w.startswith("thread_local(") for w in words) else None

    def literal(self, arg):
        """The text of a string literal an argument points at (a private constant array of i8,
        from its start), or None."""
        refs = _GREF.findall(arg)
        # Typed pointers (clang 14) point at the array's first element with a GEP; opaque ones
        # (clang >= 15) pass the array itself: `ptr noundef @.str`.
        if len(refs) != 1 or not (re.search(r"getelementptr inbounds \(\[\d+ x i8\], \[\d+ x i8\]\* @" +
                                            re.escape(refs[0]) + r", i64 0, i64 0\)$", arg.strip())
                                  or (arg.strip().startswith("ptr ") and _value(arg) == "@" + refs[0])):
            return None
        g = self.m.globals.get(_unquote(refs[0]))
        if not g or g[0] != "constant" or g[1] != "private":
            return None
        m = re.search(r'c"((?:[^"\\]|\\.)*)"', g[2])
        if not m:
            return None
        raw = re.sub(r"\\([0-9A-Fa-f]{2})", lambda h: chr(int(h.group(1), 16)), m.group(1))
        return raw.split("\0", 1)[0]

    def uncast(self, fn, value):
        """The pointer a callback's argument was cast from (as the instrumentation casts it)."""
        cast = re.fullmatch(r"bitcast \((.*) to [^()]*\)", value) or (
            re.fullmatch(r"bitcast (.*) to .*", fn.defs.get(value, "")))
        return _value(cast.group(1)) if cast else value

    def calls_known_function(self, fn, value, depth=0):
        """Whether an indirect call can only reach functions defined in this module: through
        casts, select, phi, or a load from a constant table of them (a switch table)."""
        value = value.strip()
        if value.startswith("@"):
            return _unquote(value[1:]) in self.m.defined
        if depth > 16 or value not in fn.defs:
            return False
        rhs = fn.defs[value]
        op = rhs.split(" ", 1)[0]
        try:
            if op in ("bitcast", "addrspacecast"):
                _, end = _parse_type(rhs, len(op) + 1)
                return self.calls_known_function(fn, rhs[end:].split(" to ")[0], depth + 1)
            if op == "select":
                return all(self.calls_known_function(fn, _value(p), depth + 1) for p in _split_list(rhs)[1:3])
            if op == "phi":
                return all(self.calls_known_function(fn, v, depth + 1) for v in re.findall(r"\[ ([^,]+),", rhs))
            if op == "load":
                base, _ = self.root(fn, _value(_split_list(rhs[len("load "):])[1]))
                g = self.m.globals.get(_unquote(base[1:])) if base.startswith("@") else None
                if g and g[0] == "constant" and not g[3]:
                    refs = [_unquote(r) for r in _GREF.findall(g[2].split(" = ", 1)[1])]
                    return bool(refs) and all(r in self.m.defined for r in refs)
        except (ValueError, IndexError):
            pass
        return False

    def check_casts(self, body, at):
        """Function pointers made from an integer or from a data pointer."""
        for m in _CAST.finditer(body):
            try:
                src, end = _parse_type(body, m.end())
                dst, _ = _parse_type(body, body.index(" to ", end) + 4)
            except (ValueError, IndexError):
                continue
            if _is_fn_pointer(dst) and not _is_fn_pointer(src):
                origin = "an integer" if m.group(1) == "inttoptr" else "a data pointer"
                self.add(at, f"a function pointer made from {origin}", "fnptr")


@functools.lru_cache(maxsize=None)
def _demangle(name):
    """A C++ name as the student wrote it (c++filt), or the symbol itself."""
    if not name.startswith("_Z") or not shutil.which("c++filt"):
        return name
    try:
        return subprocess.run(["c++filt", name], capture_output=True, text=True, timeout=10).stdout.strip() or name
    except (OSError, subprocess.SubprocessError):
        return name


def _uninstrumented_access(text):
    """Whether an instruction marked !nosanitize touches memory: the compiler's own checks
    (compare, branch, extend, a call of a sanitizer handler) carry the mark and touch none."""
    body = text.split(" = ", 1)[1] if _LOCAL_DEF.match(text) else text.strip()
    op = body.split(" ", 1)[0]
    if op in ("call", "tail", "notail", "musttail"):
        called = _DIRECT_CALLEE.search(body)
        return not (called and _unquote(called.group(1)[1:]) in SANITIZER_HANDLERS)
    return op in ("load", "store", "atomicrmw", "cmpxchg", "invoke", "callbr") or "asm" in body


def _printf_refusal(fmt):
    """Why a printf format may not be used in a kernel, or "" (the runtime checks the same)."""
    k = 0
    while True:
        k = fmt.find("%", k)
        if k < 0:
            return ""
        m = _PRINTF_CONVERSION.match(fmt, k)
        if not m:
            rest = fmt[k + 1:k + 8]
            if re.match(r"[-+ #0]*\d*(\.\d*)?(hh|h|ll|l|j|z|t|L)?n", rest):
                return "%n (it stores through its argument)"
            if re.match(r"\d+\$", rest):
                return "a positional argument ($)"
            return "the conversion %" + rest[:3] + " (not one a kernel's printf prints)"
        if m.group("length") == "l" and m.group("conversion") == "s":
            return "%ls (wide strings)"
        k = m.end()


def validate_ir(path: Path, ir_text: str, allowed_functions: set[str] = ALLOWED_FUNCTIONS, *,
                allowed_globals: set[str] = DIALECT_GLOBALS, clang: str | None = None) -> list[Finding]:
    """The IR-level check of one kernel file, from the text of `clang++ -S -emit-llvm` with the
    kernel flags (instrumentation applied). `path` is the kernel file, to map lines to it; `clang`
    the compiler that wrote the text (default find_clang()), whose libLLVM reads it a second time:
    another version's parser may reject it (clang 14's cannot read clang 16's `ptr`)."""
    try:
        found = _IrCheck(path, ir_text, allowed_functions, allowed_globals).run()
        # The checks above read the text by hand; the compiler reads it with LLVM's parser. Any
        # fact the two read differently refuses the file (tools/halo/core/ir_agreement.py).
        from . import ir_agreement
        differences = ir_agreement.check(ir_text, sys.modules[__name__], clang)
        if differences:
            found.append(Finding(Path(path), 0, ir_agreement.CONSTRUCT, ir_agreement.message(differences)))
        return found
    except Exception as e:  # IR this reader does not understand is not waved through
        return [Finding(Path(path), 0, "unreadable IR",
                        f"unreadable IR is not allowed in a kernel file: line 0 — the validator could not read "
                        f"clang's output ({type(e).__name__}: {e}); please report this")]


# ---------------------------------------------------------------------------------------------
# Compiling and the command line
# ---------------------------------------------------------------------------------------------

class CompileError(Exception):
    pass


_GENERATED = []
_GENERATED_LOCK = threading.Lock()


def _generated_include() -> Path:
    """A directory with halo/chapter_defines.hpp, written once per process by the same command
    the build uses (`./workbook internal emit-header`)."""
    with _GENERATED_LOCK:
        if not _GENERATED:
            out = Path(tempfile.mkdtemp(prefix="halo-validate-"))
            atexit.register(shutil.rmtree, out, True)
            subprocess.run([*workbook_argv(REPO_ROOT), "internal", "emit-header",
                            str(out / "halo" / "chapter_data.hpp"), str(out / "halo" / "chapter_defines.hpp")],
                           check=True, capture_output=True, cwd=REPO_ROOT)
            _GENERATED.append(out)
        return _GENERATED[0]


def find_clang() -> str | None:
    """The compiler the validator reads IR from: HALO_VALIDATE_CLANG where set (to run the check
    under another clang version, docs/platforms.md), else the first clang++ on PATH."""
    chosen = os.environ.get("HALO_VALIDATE_CLANG")
    if chosen:
        return shutil.which(chosen)
    for name in ("clang++", *(f"clang++-{v}" for v in range(14, 22))):
        found = shutil.which(name)
        if found:
            return found
    return None


def include_dirs_for(include_dirs=None) -> list[Path]:
    """The given include directories, plus grader/include and a generated chapter_defines.hpp
    for whatever of the two they do not provide."""
    dirs = [Path(d) for d in include_dirs or []]
    if not any((d / "halo" / "cpu" / "cuda_dialect.hpp").exists() for d in dirs):
        dirs.append(GRADER_INCLUDE)
    if not any((d / "halo" / "chapter_defines.hpp").exists() for d in dirs):
        dirs.append(_generated_include())
    return dirs


def compile_to_ir(kernel_path: Path, compile_cmd: list[str] | None = None, include_dirs=None) -> str:
    """The LLVM IR of a kernel file as Halo builds it: a wrapper that includes the CUDA dialect,
    the chapter's #defines, then the file. `compile_cmd` is the compiler and its flags (default:
    clang++ -std=c++20 and the kernel flags, line tables only). Raises CompileError with clang's
    messages."""
    kernel = Path(kernel_path).resolve()
    scratch = None
    if compile_cmd is None:
        clang = find_clang()
        if clang is None:
            raise CompileError("clang++ was not found")
        compile_cmd = [clang, "-std=c++20", *VALIDATION_FLAGS]
        # As the build does: `extern __shared__` and `extern "C"` are rewritten (kernel_overlay.py); the
        # build's own command line carries its overlay already.
        scratch = tempfile.TemporaryDirectory(prefix="halo-validate-")
        overlay = kernel_overlay.overlay([str(kernel)], scratch.name)
        if overlay:
            compile_cmd = [*compile_cmd, "-ivfsoverlay", overlay]
    quoted = str(kernel).replace("\\", "\\\\").replace('"', '\\"')
    kernel_line = f'#include "{quoted}"\n'
    dirs = include_dirs_for(include_dirs)
    own = [f for f in own_names.flags_for_files([kernel], own_names.header_in(dirs)) if f not in compile_cmd]
    options = [*compile_cmd, *own, *(f"-I{d}" for d in dirs), "-fno-color-diagnostics"]
    out = ["-S", "-emit-llvm", "-o", "-", "-x", "c++", "-"]
    try:
        pch = _precompiled_wrapper(options)
        r = None
        if pch is not None:
            r = subprocess.run([*options, "-include-pch", str(pch), *out], input=kernel_line,
                               capture_output=True, text=True)
        if r is None or r.returncode != 0:  # a file that does not compile is told in the words it always was
            wrapper = "".join(f"{line}\n" for line in WRAPPER_INCLUDES) + kernel_line
            r = subprocess.run([*options, *out], input=wrapper, capture_output=True, text=True)
    finally:
        if scratch is not None:
            scratch.cleanup()
    if r.returncode != 0:
        raise CompileError(r.stderr)
    return r.stdout


_PCH = {}  # compile options -> the precompiled WRAPPER_INCLUDES, or None where it did not build
_PCH_LOCK = threading.Lock()


def _precompiled_wrapper(options) -> Path | None:
    """WRAPPER_INCLUDES precompiled with these compile options, built once per process (the
    headers are most of a kernel file's compile: about three quarters of a small one's). The IR
    is the same as with the headers read as text; clang itself refuses the header where the
    options or a header file differ from its build, and compile_to_ir then compiles as text."""
    # The overlay maps kernel files only, never a header, and each compile has its own.
    options = [a for k, a in enumerate(options) if "-ivfsoverlay" not in (a, options[k - 1] if k else "")]
    key = tuple(options)
    with _PCH_LOCK:
        if key not in _PCH:
            folder = Path(tempfile.mkdtemp(prefix="halo-validate-pch-"))
            atexit.register(shutil.rmtree, folder, True)
            (folder / "wrapper.hpp").write_text("".join(f"{line}\n" for line in WRAPPER_INCLUDES))
            pch = folder / "wrapper.hpp.pch"
            r = subprocess.run([*options, "-x", "c++-header", str(folder / "wrapper.hpp"), "-o", str(pch)],
                               capture_output=True, text=True)
            _PCH[key] = pch if r.returncode == 0 else None
        return _PCH[key]


# What the build's wrapper includes before a kernel file (grader/cmake/HaloSections.cmake).
WRAPPER_INCLUDES = ('#include "halo/cpu/cuda_dialect.hpp"', '#include "halo/chapter_defines.hpp"')


def kernel_headers() -> list[str]:
    """Every header a kernel file may include, as #include operands."""
    given = sorted(f'"halo/given/{p.name}"' for p in (GRADER_INCLUDE / "halo" / "given").glob("*.cuh"))
    return given + [f"<{h}>" for h in sorted(ALLOWED_SYSTEM_HEADERS)]


def pasted_name_findings(kernel_path: Path, text: str, compiler: list[str], include_lines, run,
                         scratch) -> list[Finding]:
    """Build-telling names the file makes by macro expansion (pasted_names.py). `compiler` is the
    compiler and its flags without a source or an output; `run(cmd)` gives (status, output)."""
    if not pasted_names.needed(text):
        return []
    prelude = Path(scratch) / "halo-prelude.cpp"
    prelude.write_text(pasted_names.prelude(include_lines, kernel_headers()))
    status, listed = run(pasted_names.defined_names_command(compiler, prelude))
    if status != 0:  # the grader's own headers, not the student's file: say so rather than pass
        return [Finding(kernel_path, 0, COMPILE_ERROR, "the kernel file could not be checked for names "
                        f"made by its macros: the grader's headers did not preprocess\n{listed[-2000:]}")]
    check = Path(scratch) / "halo-pasted-names.cpp"
    check.write_text(pasted_names.check_text(prelude.read_text(),
                                             pasted_names.poisoned_names(listed, _BUILD_TELLING), kernel_path))
    _, said = run(pasted_names.check_command(compiler, check))
    return [_finding(kernel_path, line, "a macro that expands to `defined`" if name == "defined"
                     else f"{name} (made by a macro)", "build")
            for line, name in pasted_names.findings(said, kernel_path, _BUILD_TELLING)]


def _run_local(cmd):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return 124, "the preprocessor did not finish within 60 s"
    return r.returncode, r.stdout + r.stderr


def validate_file(kernel_path: Path, compile_cmd: list[str] | None = None, include_dirs=None) -> list[Finding]:
    """Both layers: the source check, then (only when it is clean) the IR check. A file clang
    cannot compile gives one COMPILE_ERROR finding (nothing was validated, so nothing passes)."""
    kernel_path = Path(kernel_path)
    text = kernel_path.read_text(errors="replace")
    found = validate_source(kernel_path, text)
    if found:
        return found
    if pasted_names.needed(text):
        clang = compile_cmd or [find_clang() or "clang++", "-std=c++20", *VALIDATION_FLAGS]
        with tempfile.TemporaryDirectory(prefix="halo-validate-") as scratch:
            found = pasted_name_findings(kernel_path, text,
                                         [*clang, *(f"-I{d}" for d in include_dirs_for(include_dirs))],
                                         WRAPPER_INCLUDES, _run_local, scratch)
        if found:
            return found
    try:
        ir = compile_to_ir(kernel_path, compile_cmd, include_dirs)
    except CompileError as e:
        errors = re.findall(r"^(.*?):(\d+):\d+: (?:fatal )?error: (.*)$", str(e), re.M)
        mine = [x for x in errors if Path(x[0]).name == kernel_path.name] or errors
        line, what = (int(mine[0][1]), mine[0][2]) if mine else (0, str(e).strip().splitlines()[-1:] or "")
        return [Finding(kernel_path, line, COMPILE_ERROR,
                        f"the kernel file does not compile, so it cannot be validated: line {line} — {what}")]
    return validate_ir(kernel_path, ir, ALLOWED_FUNCTIONS)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m halo.core.validate",
                                description="Validate kernel files before they are compiled into the grader.")
    p.add_argument("files", nargs="+", type=Path, metavar="FILE")
    p.add_argument("--include", action="append", type=Path, default=[], metavar="DIR",
                   help="an include directory of the build (grader/include, the generated headers)")
    p.add_argument("--source-only", action="store_true", help="only the source check (no compiler)")
    args = p.parse_args(argv)
    status = 0
    for f in args.files:
        try:
            found = (validate_source(f, f.read_text(errors="replace")) if args.source_only
                     else validate_file(f, include_dirs=args.include))
        except OSError as e:
            print(f"{f}: {e}", file=sys.stderr)
            return 2
        for finding in found:
            print(finding)
        status |= bool(found)
    return status


if __name__ == "__main__":
    sys.exit(main())
