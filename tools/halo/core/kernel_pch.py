"""The grader's headers that every kernel file's wrapper includes first (the CUDA dialect and the
chapter's #defines), precompiled once per build folder and set of compile options, for the
compile launcher (compile_sandboxed.py).

Those headers are most of a kernel file's compile: the dialect brings <cmath>, <cstdio>, <atomic>
and the runtime's declarations, and a small kernel's IR compile spent about two thirds of its time
reading them. Precompiled, the compile reads them once per build (validate.py does the same for the
unit suite's compiles, and keeps the IR byte for byte the same). The header is made in the sandbox
like every compile, written under another name and renamed into place, so a compile never reads a
half-written one; clang itself refuses one whose options or headers differ, and the launcher then
compiles as text (and drops the stale header, for the next compile to make again).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

from . import sandbox

# What the build's wrapper includes before a kernel file (grader/cmake/HaloSections.cmake).
WRAPPER_INCLUDES = ('#include "halo/cpu/cuda_dialect.hpp"', '#include "halo/chapter_defines.hpp"')
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
    skip_dirs = {f"-I{d}" for d in kernel_dirs}
    out, k = [], 0
    while k < len(compiler):
        a = compiler[k]
        if a in _OWN_WITH_VALUE:
            k += 2
            continue
        if a not in _OWN and a != source and a not in skip_dirs:
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
    read_only = {p for p in read_only if p not in kernel_dirs}
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
