"""Every kernel file the project holds, compiled to IR as validate.py compiles it: the modules on
which the validator's IR reader is held against LLVM's (test_ir_agreement.py, ir_fuzz.py).

The reference solutions, the stubs as committed, the known-wrong kernels (each a change to a
solution, grader/wrong/*.toml), the learner corpus and the red team's attempts. A file the
source layer refuses for an include by absolute path or through a macro is not compiled: the
validator never compiles it either, and `#include "/dev/zero"` would not end; nor is the red
team's template bomb. Any other file the
source layer refuses (<cstdlib>, asm, memcpy, ...) is compiled all the same, for the constructs
its IR shows: the red team's attempts are mostly such files.
"""
from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from halo.core import cpus, validate, validated_record
from tests.helpers import REPO_ROOT, scratch_dir, stubs

# An include the source layer refuses that is not a header found by name on the include path.
# Red-team attempts whose compile is the attack and never ends (the sandboxed compile stops it
# after its time limit; this test has no sandbox and no clock).
BOMBS = {"template-bomb"}
_UNSAFE_INCLUDE = re.compile(r'#(?:include_next|import)\b|#include (?![<"][^/<>"])')


def wrong_kernels() -> list[Path]:
    """The known-wrong kernels, written out as `./workbook check` builds them."""
    from halo.core.chapter_data import load_chapter
    from halo.core import wrong_kernels as wk
    out_root = scratch_dir("halo-wrong-ir-")
    files = []
    for section in load_chapter(REPO_ROOT).sections:
        for k, wrong in enumerate(wk.load(REPO_ROOT, section)):
            out = out_root / f"{section.folder}-{k}"
            wk.write_tree(REPO_ROOT, section, wrong, out)
            files.append(out / wrong.file)
    return files


def kernel_files() -> dict[str, list[Path]]:
    """The corpus's kernel files, by where they come from."""
    return {"solutions": sorted(REPO_ROOT.glob("solutions/*/*.cu")),
            "exercises": sorted(stubs().glob("*/*.cu")),
            "wrong": wrong_kernels(),
            "learners": sorted(REPO_ROOT.glob("grader/learners/**/*.cu")),
            "redteam": sorted(REPO_ROOT.glob("grader/redteam/**/*.cu"))}


def compile_one(path: Path):
    """(path, IR text) or (path, None) when it is not compiled or does not compile."""
    found = validate.validate_source(path, path.read_text(errors="replace"))
    if any(_UNSAFE_INCLUDE.match(f.construct) for f in found):
        return path, None
    if BOMBS & set(path.parts):
        return path, None
    try:
        return path, validate.compile_to_ir(path)
    except validate.CompileError:
        return path, None


# In place of a module's IR: the check's build validated this file's exact bytes with this
# validator's code (halo.core.validated_record), both readers agreeing and no finding.
BUILD_VALIDATED = "validated by the check's build"


def recorded_by_the_check(path: Path) -> bool:
    """Whether the check's build recorded `path` as validated (in `./workbook check` only)."""
    return validated_record.validated(os.environ.get(validated_record.ENV), path)


def modules(workers: int | None = None, then=None, recorded=None) -> dict[str, list[tuple]]:
    """The corpus compiled: origin -> [(kernel file, IR text or None)], or with `then` (a function
    of the kernel file and its IR text) [(kernel file, IR text or None, then(file, IR) or None)]:
    each file's next steps run in the same worker as its compile, so one file's compile overlaps
    another's steps, and every test of the corpus shares its one compile of each file. A file
    `recorded` says the check's build validated is neither compiled nor read: BUILD_VALIDATED in
    place of its IR, None for its steps."""
    def one(path):
        if recorded and recorded(path):
            return (path, BUILD_VALIDATED) if then is None else (path, BUILD_VALIDATED, None)
        path, ir = compile_one(path)
        return (path, ir) if then is None else (path, ir, None if ir is None else then(path, ir))
    files = kernel_files()
    with ThreadPoolExecutor(max_workers=workers or cpus.usable_cpus()) as pool:
        return {origin: list(pool.map(one, paths)) for origin, paths in files.items()}
