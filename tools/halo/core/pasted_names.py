"""Build-telling names that a kernel file makes by macro expansion (issue 32, item 3).

The source layer refuses every build-telling name it can read (`__CUDA_ARCH__`, `__clang__`, ...),
but `#if CAT(__CUDA,_ARCH__)` spells none: the preprocessor pastes the name together, and the file
branches on the build all the same (graded on the CPU build, run as the other one on a GPU). Only
the preprocessor knows what a line expands to, so this asks it:

- every header a kernel file may include is included first, then the build-telling names are
  poisoned (`#pragma GCC poison`), then the kernel file: a poisoned name that appears in the
  kernel file's own lines, pasted or not, is an error clang reports at that line. Names poisoned
  after the headers leave the headers' own uses (and macros they define) alone;
- names that neither this build nor nvcc defines cannot be listed up front; `#if` evaluates them
  as 0 and -Wundef names each one, which is kept when it is build-telling;
- a macro that expands to `defined` (undefined behaviour in C++, and a way to ask `defined` about
  a pasted name) is named by -Wexpansion-to-defined.

Only an `#if` or `#elif` can branch on a name (`#ifdef` takes one literal identifier, which the
source layer reads), so a file without them costs nothing here. The compiler runs through a
runner the caller gives (the sandbox when grading), since the file's macros are the student's.
"""
import re
from pathlib import Path

# What nvcc defines for its host and device passes (CUDA 13: `nvcc --dryrun` and `-Xcompiler -dM`),
# which the CPU build does not define and so cannot be listed from it.
NVCC_NAMES = ("__CUDACC__", "__NVCC__", "__CUDA_ARCH__", "__CUDA_ARCH_LIST__", "__CUDACC_VER_MAJOR__",
              "__CUDACC_VER_MINOR__", "__CUDACC_VER_BUILD__", "__CUDACC_VER__", "__CUDACC_RDC__",
              "__CUDACC_EWP__", "__CUDACC_DEBUG__", "__CUDACC_RTC__", "__CUDACC_DEVICE_ATOMIC_BUILTINS__",
              "__CUDACC_RELAXED_CONSTEXPR__", "__CUDACC_EXTENDED_LAMBDA__", "__CUDA_API_VER_MAJOR__",
              "__CUDA_API_VER_MINOR__", "__CUDA_ARCH_HAS_FEATURE__", "__CUDA_ARCH_SPECIFIC__",
              "__CUDA_ARCH_FAMILY_SPECIFIC__", "__NVCC_DIAG_PRAGMA_SUPPORT__", "CUDA_DOUBLE_MATH_FUNCTIONS")
# The preprocessor's own operators that tell compilers apart.
OPERATORS = ("__has_include", "__has_include_next", "__has_builtin", "__has_feature", "__has_extension",
             "__has_attribute", "__has_cpp_attribute", "__has_declspec_attribute", "__has_warning",
             "__is_identifier")

_CONDITIONAL = re.compile(r"^\s*(?:#|%:)\s*(?:el)?if\b", re.M)
_POISONED = re.compile(r"^(.*?):(\d+):\d+: error: attempt to use a poisoned identifier$", re.M)
_UNDEFINED = re.compile(r"^(.*?):(\d+):\d+: warning: '(\w+)' is not defined, evaluates to 0", re.M)
_TO_DEFINED = re.compile(r"^(.*?):(\d+):\d+: warning: macro expansion producing 'defined'", re.M)
_EXPANDED = re.compile(r"^<scratch space>:\d+:\d+: note: expanded from here\n(\w+)", re.M)
_NEXT_DIAGNOSTIC = re.compile(r"^\S.*?:\d+:\d+: (?:error|warning): ", re.M)


def needed(kernel_text):
    """Whether the file has an `#if` or `#elif` (the only places a made-up name can branch)."""
    return bool(_CONDITIONAL.search(kernel_text))


def prelude(include_lines, headers):
    """The text before the kernel file: the build's own includes, then every header a kernel file
    may include (each is guarded, so the kernel file's own #include of it adds nothing)."""
    return "".join(f"{line}\n" for line in include_lines) + "".join(f"#include {h}\n" for h in headers)


def defined_names_command(compiler, prelude_path):
    """Lists the macros the build defines once its headers are in (`-dM`)."""
    return [*compiler, "-dM", "-E", "-x", "c++", str(prelude_path), "-o", "-"]


def poisoned_names(dm_output, build_telling):
    """Every build-telling name defined by this build, by nvcc, and the operators."""
    here = {m for m in re.findall(r"^#define (\w+)", dm_output, re.M) if build_telling.fullmatch(m)}
    return sorted(here | set(NVCC_NAMES) | set(OPERATORS))


def check_text(prelude_text, names, kernel_path):
    """The text that preprocesses the kernel file with `names` poisoned after the headers."""
    quoted = str(Path(kernel_path).resolve()).replace("\\", "\\\\").replace('"', '\\"')
    return f'{prelude_text}#pragma GCC poison {" ".join(names)}\n#include "{quoted}"\n'


def check_command(compiler, check_path):
    return [*compiler, "-E", "-Wundef", "-Wexpansion-to-defined", "-fno-color-diagnostics", "-x", "c++",
            str(check_path), "-o", "/dev/null"]


def _same_file(reported, kernel_path):
    return Path(reported).name == Path(kernel_path).name


def findings(output, kernel_path, build_telling):
    """(line, name) for each build-telling name the kernel file made: poisoned names clang met in
    the file's lines, undefined build-telling names its #if evaluated, and macros expanding to
    `defined` (name "defined")."""
    found = []
    for m in _POISONED.finditer(output):
        if _same_file(m.group(1), kernel_path):
            following = _NEXT_DIAGNOSTIC.search(output, m.end())
            name = _EXPANDED.search(output, m.end(), following.start() if following else len(output))
            found.append((int(m.group(2)), name.group(1) if name else "a poisoned name"))
    for m in _UNDEFINED.finditer(output):
        if _same_file(m.group(1), kernel_path) and build_telling.fullmatch(m.group(3)):
            found.append((int(m.group(2)), m.group(3)))
    for m in _TO_DEFINED.finditer(output):
        if _same_file(m.group(1), kernel_path):
            found.append((int(m.group(2)), "defined"))
    return sorted(set(found))
