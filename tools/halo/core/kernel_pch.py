"""The grader's headers that every kernel file's wrapper includes first (the CUDA dialect and the
chapter's #defines), precompiled once per build folder and set of compile options, for the
compile launcher (compile_sandboxed.py).

The dialect brings <cmath>, <cstdio>, <atomic> and the runtime's declarations: reading them was
most of a small kernel file's compile (docs/results/check-times.md; validate.py precompiles them
for the unit suite's compiles alike). Precompiled, a build reads them once. The IR's code, the
source line of every instruction and the validator's findings are those of the headers read as
text (checked over every solution, known-wrong and learner kernel; only metadata is numbered
differently). The header is made in the sandbox like every compile, written under another name
and renamed into place, so a compile never reads a half-written one; clang itself refuses one
whose options or headers differ, and the launcher then compiles as text (and drops the stale
header, for the next compile to make again). Its folder is the build's (or the class harness's,
shared by the submissions it grades, as its judges are).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

from . import sandbox
from .validate import WRAPPER_INCLUDES
FOLDER = "kernel-headers-pch"  # its name in a build folder (the launcher's --pch-dir)
# Options of one compile that are no part of the header's: its output, its dependency file, its
# overlay of the kernel files (each compile has its own).
_OWN_WITH_VALUE = ("-o", "-MT", "-MF", "-MQ", "-ivfsoverlay")
_OWN = ("-MD", "-MMD", "-c", "-S", "-emit-llvm")


def header_options(compiler, source, kernel_dirs=()):
    """The compiler and the options a precompiled header for this compile is made with: not the
    kernel files' own folders (-I), so that no file of a submission can stand in for a header the
    grader's include (a folder's `cmath` for <cmath>), and one header serves every section and,
    in grade-class, every submission."""
    skip_dirs = {os.path.normpath(d) for d in kernel_dirs}
    out, k = [], 0
    while k < len(compiler):
        a = compiler[k]
        if a in _OWN_WITH_VALUE:
            k += 2
            continue
        if a not in _OWN and a != source and not (a.startswith("-I") and os.path.normpath(a[2:]) in skip_dirs):
            out.append(a)
        k += 1
    return out


def _headers(options):
    """The text of the wrapper's headers as these options find them (their first -I match)."""
    dirs = [a[2:] for a in options if a.startswith("-I") and len(a) > 2]
    text = []
    for line in WRAPPER_INCLUDES:
        name = line.split('"')[1]
        found = next((Path(d) / name for d in dirs if (Path(d) / name).is_file()), None)
        text.append(found.read_bytes() if found else b"")
    return b"\0".join(text)


def precompiled(compiler, source, read_only, folder, kernel_dirs=()):
    """The path of the precompiled wrapper headers for this compile, in `folder` (the build's, made
    now if needed); None where they do not precompile (the compile then reads them as text)."""
    options = header_options(compiler, source, kernel_dirs)
    key = hashlib.sha256("\0".join(options).encode() + b"\0" + _headers(options)).hexdigest()[:24]
    folder = Path(folder)
    kernel_dirs = {os.path.normpath(d) for d in kernel_dirs}
    read_only = {p for p in read_only if os.path.normpath(p) not in kernel_dirs}
    pch = folder / f"{key}.pch"
    if pch.is_file():
        return str(pch)
    try:
        folder.mkdir(mode=0o755, parents=True, exist_ok=True)
        making = Path(tempfile.mkdtemp(prefix="making-", dir=folder))
    except OSError:
        return None
    try:
        os.chmod(making, 0o777)  # the compiler may run as another user
        header = folder / f"{key}.hpp"
        if not header.is_file():
            written = making / "wrapper.hpp"
            written.write_text("".join(f"{line}\n" for line in WRAPPER_INCLUDES))
            os.chmod(written, 0o644)
            os.replace(written, header)
        status, _ = sandbox.run([*options, "-x", "c++-header", str(header), "-o", str(making / "wrapper.pch")],
                                read_only=set(read_only) | {str(header)}, writable={str(making)}, cwd=str(making))
        made = making / "wrapper.pch"
        if status != 0 or not made.is_file():
            return None
        os.chmod(made, 0o644)
        os.replace(made, pch)
        return str(pch)
    except OSError:
        return None
    finally:
        shutil.rmtree(making, ignore_errors=True)


def drop(pch):
    """A header clang refused while the same compile succeeded as text: stale (a header or an
    option changed since it was made). The next compile makes it again."""
    try:
        os.unlink(pch)
    except OSError:
        pass
