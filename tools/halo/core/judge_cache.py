"""Every section's judge and worker entry table compiled once for the trees of the same inputs.

grader_cache shares the grader's libraries. What a tree then still compiles before any kernel file
is, for each section, its judge (the section's tests, grader/sections/<folder>/) and its worker
entry table (grader/remote/worker_entries.cpp over the section's headers): some 50 s of compiles
for the chapter, in every clone a check makes and in a student's first grade. They are the same
in every tree whose sources, chapter and toolchain are the same: compiled with -ffile-prefix-map
(HaloSections.cmake), their objects name no path of their tree; only the link does
(halo_project_root).

So a build of every judge (the check's own, `./workbook setup`'s) publishes their objects into the
same caches as the libraries (HALO_GRADER_CACHE, or the machine's copy that only root can change),
in an entry named by the hash of what they are made of: the libraries' inputs, every file of
grader/sections/ and of the kernels' given headers, and what the chapter's generated headers are
made from (its manifest and questions, and the Python that writes them). A grade build whose
inputs hash the same links them (CMake's HALO_GRADER_JUDGES, halo_imported_judge) instead of
compiling them. Any byte of difference is another key, and a miss costs only the compiles it would
have made.

Layout of an entry: <section id>/judge/*.o (the judge's objects) and <section id>/worker_entries.o,
for every section with kernels (an id as CMake names it: 7.2 is 7_2).
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

from . import grader_cache
from .chapter_data import loaded_chapter
from .cmake_cache import cache_value

CMAKE_VAR = "HALO_GRADER_JUDGES"
MEMO = "halo-machine-judges.json"  # in a build folder: the inputs' listing when it last asked
# What the judges read beyond the libraries' inputs (grader_cache.key): the sections' tests, and
# the kernels' given headers, which grader_cache leaves out and a section's tests may include.
SOURCES = ("grader/sections",) + grader_cache.LEFT_OUT


def _inputs(root: Path):
    """Every file key() reads beyond the libraries' inputs, in a fixed order."""
    for top in SOURCES:
        for dirpath, dirnames, filenames in os.walk(root / top):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            yield from (Path(dirpath) / name for name in sorted(filenames))
    yield from _generator_inputs(root)


def _generator_inputs(root: Path):
    """What the chapter's generated headers (chapter_data.hpp, chapter_defines.hpp) are made from:
    the manifest and every section's questions, which `internal emit-header` reads, and the Python
    that reads and writes them. Hashed rather than the headers themselves, which take a grade some
    40 ms to write; more than they need is only a miss."""
    chapters = root / "chapters"
    yield chapters / "manifest.toml"
    yield from sorted(chapters.glob("*/questions.toml"))
    yield from sorted((root / "tools" / "halo").glob("*.py"))
    yield from sorted((root / "tools" / "halo" / "core").glob("*.py"))


def key(root, toolchain) -> str:
    """The entry's name for the tree `root` built by `toolchain`."""
    root = Path(root)
    h = hashlib.sha256(grader_cache.key(root, toolchain).encode() + b"\0")
    for path in _inputs(root):
        h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return grader_cache.JUDGES_PREFIX + h.hexdigest()[:32]


def entry_for(cache, root, toolchain):
    """The cache's folder for this tree's judges, or None when the inputs cannot be read (the
    build then says why on its own)."""
    try:
        return Path(cache) / key(root, toolchain)
    except Exception:  # noqa: BLE001  (any reason at all: compile them in the tree)
        return None


def judges_for(root, toolchain, build_dir) -> str:
    """HALO_GRADER_JUDGES for a grade build of `root` in `build_dir`: the entry of the cache
    (HALO_GRADER_CACHE, else the machine's copy) that holds this tree's judges, else "" (the
    build compiles them)."""
    made = Path(build_dir) / "grader" / "CMakeFiles"
    if cache_value(build_dir, CMAKE_VAR) == "" and any(made.glob("judge_*.dir/**/*.o")):
        return ""  # it compiled its own: Ninja keeps them right
    cache = os.environ.get(grader_cache.ENV)
    if cache:
        entry = entry_for(cache, root, toolchain)
        return str(entry) if entry and entry.is_dir() else ""
    entry = grader_cache.machine_entry(root, toolchain, build_dir, MEMO,
                                       lambda folder: entry_for(folder, root, toolchain))
    return str(entry) if entry and entry.is_dir() and grader_cache.only_root_can_change(entry) else ""


def section_ids(root) -> list:
    """The sections that have a judge, as CMake names them (7.2 is 7_2)."""
    return [s.id.replace(".", "_") for s in loaded_chapter(Path(root)).sections if s.kernels]


def objects(build_dir, sid):
    """A section's judge objects and its entry table's object, where CMake compiles them."""
    made = Path(build_dir) / "grader" / "CMakeFiles"
    return (sorted((made / f"judge_{sid}.dir").glob("**/*.o")),
            made / f"halo_worker_entries_{sid}.dir" / "remote" / "worker_entries.cpp.o")


def publish(toolchain, build_dir, cache=None) -> bool:
    """After a build of every section's judge (the check's, setup's): their objects into the cache
    (`cache`, else HALO_GRADER_CACHE), unless the build linked imported ones or the cache holds
    them already. The judges are brought up to date first (a no-op after a whole build), and
    refused if an object names the tree or the build folder."""
    cache = cache or os.environ.get(grader_cache.ENV)
    root = cache_value(build_dir, "CMAKE_HOME_DIRECTORY")
    if not cache or not root or cache_value(build_dir, CMAKE_VAR) != "" \
            or cache_value(build_dir, "HALO_MODE") not in ("grade", "check"):
        return False
    entry = entry_for(cache, root, toolchain)
    if entry is None or entry.is_dir():
        return False
    ids = section_ids(root)
    targets = [t for sid in ids for t in (f"judge_{sid}", f"halo_worker_entries_{sid}")]
    if subprocess.run([toolchain.cmake, "--build", str(build_dir), "--target", *targets],
                      capture_output=True, text=True).returncode != 0:
        return False
    copies = {}
    for sid in ids:
        judge, entries = objects(build_dir, sid)
        if not judge or not entries.is_file():
            return False
        if len({o.name for o in judge}) != len(judge):
            return False  # two sources of one name in the section's folders: not laid flat
        copies.update({f"{sid}/judge/{o.name}": o for o in judge})
        copies[f"{sid}/worker_entries.o"] = entries
    named = [os.fsencode(str(Path(p).resolve()) + "/") for p in (root, build_dir)]
    holding = [rel for rel, path in copies.items() if any(n in path.read_bytes() for n in named)]
    if holding:
        print(f"halo: the judges are not shared: {holding[0]} names the path of its tree", file=sys.stderr)
        return False
    return grader_cache.place(entry, copies)


def left_out_problems(build_dir, root) -> list:
    """Why key() may not stand for the judges of the build `build_dir` of `root` (the check's):
    a compile of a judge or an entry table not made with the tree's prefix map (its objects would
    name the tree), or one that reads a file of the tree or the build folder that the key does not
    hash. Empty when every one reads only what the key covers."""
    build_dir, root = Path(build_dir).resolve(), Path(root).resolve()
    covered = [str(root / top) + "/" for top in grader_cache.SOURCES + SOURCES]
    covered += [str(build_dir / "generated") + "/"]  # the generated headers, hashed as key() writes them
    covered += [str(build_dir / "grader" / "CMakeFiles" / f"{pch}.dir") + "/"  # CMake's precompiled-header stubs
                for pch in ("halo_judge_headers", "halo_worker_entry_headers")]
    ninja = cache_value(build_dir, "CMAKE_MAKE_PROGRAM") or "ninja"
    ids = section_ids(root)
    compiled, problems = [], []
    for sid in ids:
        judge, entries = objects(build_dir, sid)
        if not judge or not entries.is_file():
            problems.append(f"section {sid}'s judge is not compiled in {build_dir}")
        compiled += [str(o.relative_to(build_dir)) for o in judge + [entries] if o.is_file()]
    mapped = f"-ffile-prefix-map={root}/="
    for obj in compiled:
        command = subprocess.run([ninja, "-C", str(build_dir), "-t", "commands", obj], capture_output=True,
                                 text=True).stdout.strip().splitlines()[-1:]
        if not command or mapped not in command[0].split():
            problems.append(f"{obj} is not compiled with {mapped}: it would name its tree")
        deps = subprocess.run([ninja, "-C", str(build_dir), "-t", "deps", obj], capture_output=True, text=True).stdout
        for line in deps.splitlines()[1:]:
            path = line.strip()
            if not path:
                continue
            path = path if os.path.isabs(path) else str(build_dir / path)
            inside = path.startswith((str(root) + "/", str(build_dir) + "/"))
            if inside and not path.startswith(tuple(covered)):
                problems.append(f"{obj} reads {path}, which the judges' key does not hash")
    return problems

