"""One build of the grader's libraries for every tree of the same sources.

A grade build compiles the grader's own libraries (the CPU runtime, the judge's and the worker's,
the test support) before any student file: about half of a first grade's build. A machine that
grades many trees of one commit (./workbook check's project tests make eight: clones, releases,
the class harness, the Gradescope fake root) builds the same libraries in each. With
HALO_GRADER_CACHE naming a folder, the first grade build of a given set of sources publishes its
libraries there, under the hash of every input they are made of (their sources and build files,
the generated chapter headers, the compiler, the machine), and a later grade build whose inputs hash the same imports them (CMake's
HALO_GRADER_LIBS, grader/cmake/HaloImportedGraderLibraries.cmake) instead of compiling them.

A miss costs nothing but the build it would have made: any byte of difference in an input is
another key. A tree that builds its own libraries keeps doing so (Ninja keeps them right); a tree
that imports goes back to building when its inputs no longer match. No library holds a path of
its tree (grader/cpu/project_root.cpp, built in every tree, does).

The machine's copy (MACHINE): `./workbook setup` run as root (the Dev Container's image build,
`sudo ./workbook setup` on Linux) builds its tree's libraries once into a folder only root can
change, and a grade with no HALO_GRADER_CACHE imports from it when this tree's inputs hash the
same: a fresh clone's first grade then compiles the kernel files, the judges and the worker entry
tables, not the runtime (about 60 % of that build's work). A grade trusts such a folder only when
it, every folder above it and each library are root's and writable by no one else: no
submission code ever runs as root (a root grade's worker takes a uid of its own, and
PR_SET_NO_NEW_PRIVS bars sudo; bubblewrap does not even show it the folder), so no submission can
leave a library there for the next grade.
"""
from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import stat
import subprocess
import sys
import uuid
from pathlib import Path

from .cmake_cache import cache_value

ENV = "HALO_GRADER_CACHE"
CMAKE_VAR = "HALO_GRADER_LIBS"
MACHINE = Path("/var/cache/halo/grader")
# Where the machine's copy is, for a setup or a grade that is told (the bench, the tests): trusted
# by who owns it, never by where it is, so naming another folder can only miss.
MACHINE_ENV = "HALO_MACHINE_GRADER"
MACHINE_OFF = "HALO_NO_MACHINE_GRADER"  # set: build the libraries in the tree even so
TRUSTED_OWNERS = {0}
MEMO = "halo-machine-grader.json"  # in a build folder: the inputs' listing when it last imported
JUDGES_PREFIX = "judges-"  # the entries of core/judge_cache.py, beside the libraries' in the same folders
LIBRARIES = ("halo_platform", "halo_cpu_runtime", "halo_judge_runtime", "halo_worker_main", "halo_testing_judge")
# What the libraries are made of, relative to the tree's root: their sources and headers (not
# the runtime's own tests, nor LEFT_OUT) and the build files. Not the chapter: no library source
# can include its generated headers (HaloGraderLibraries.cmake gives them to what links a library,
# never to the library's own compile), so trees of other chapters (a release of two sections, the
# Gradescope zip without the errata) share one build: three identical builds of each check were
# two too many. More than the libraries need is only a miss; less would be a wrong import.
SOURCES = ("grader/cpu", "grader/remote", "grader/platform", "grader/testing", "grader/include")
# Under SOURCES but no library's input: the headers kernel files may include, of which a release
# of some sections holds only its own (left_out_problems proves that no library reads one).
LEFT_OUT = ("grader/include/halo/given",)
BUILD_FILES = ("CMakeLists.txt", "grader/CMakeLists.txt", "grader/cmake")
# Headers of the libraries the grader's libraries compile against, found where CMake finds them.
SYSTEM_HEADERS = ("/usr/include/boost/version.hpp", "/usr/include/doctest/doctest.h",
                  "/usr/local/include/boost/version.hpp", "/usr/local/include/doctest/doctest.h")


def _files(root: Path):
    for top in SOURCES + BUILD_FILES:
        path = root / top
        if path.is_file():
            yield path
        for dirpath, dirnames, filenames in os.walk(path):
            dirnames[:] = sorted(d for d in dirnames if d not in ("tests", "__pycache__")
                                 and os.path.relpath(os.path.join(dirpath, d), root) not in LEFT_OUT)
            for name in sorted(filenames):
                yield Path(dirpath) / name


def left_out_problems(build_dir, root) -> list:
    """Why key() may not leave out what it leaves out, read from a build of the tree `root` that
    made the libraries (the check's): each of their compiles that is given the chapter's
    generated headers' folder, or reads a file there or among the kernels' given headers
    (LEFT_OUT). Empty when none does: the libraries are the same for every chapter and every
    set of given headers."""
    build_dir = Path(build_dir)
    generated = str(build_dir / "generated")
    left_out = [generated, "generated/"] + [str(Path(root) / rel) for rel in LEFT_OUT]
    ninja = cache_value(build_dir, "CMAKE_MAKE_PROGRAM") or "ninja"  # the build's own, as build.failed_targets
    listed = subprocess.run([ninja, "-C", str(build_dir), "-t", "inputs", *(f"lib{n}.a" for n in LIBRARIES)],
                            capture_output=True, text=True)
    if listed.returncode != 0:
        return [f"ninja cannot list the libraries' inputs in {build_dir}: {listed.stderr.strip()}"]
    objects = [o for o in listed.stdout.splitlines() if o.endswith(".o")]
    problems = [] if objects else [f"no object of the grader's libraries in {build_dir}"]
    for obj in objects:
        command = subprocess.run([ninja, "-C", str(build_dir), "-t", "commands", obj], capture_output=True,
                                 text=True).stdout.strip().splitlines()[-1:]
        deps = subprocess.run([ninja, "-C", str(build_dir), "-t", "deps", obj], capture_output=True, text=True).stdout
        if command and f"-I{generated}" in command[0].split():
            problems.append(f"{obj} is compiled with the chapter's generated headers (-I{generated})")
        problems += [f"{obj} reads {line.strip()}" for line in deps.splitlines()
                     if line.strip().startswith(tuple(left_out))]
    return problems


def key(root, toolchain) -> str:
    """The hash of everything the libraries are made of in the tree `root`, built by `toolchain`."""
    root = Path(root)
    h = hashlib.sha256()
    for path in _files(root):
        h.update(str(path.relative_to(root)).encode() + b"\0")
        h.update(path.read_bytes() + b"\0")
    for tool in (toolchain.cxx, toolchain.cmake):
        real = os.path.realpath(tool)
        st = os.stat(real)
        h.update(f"{real} {st.st_size} {st.st_mtime_ns}\0".encode())
    for header in SYSTEM_HEADERS:
        if os.path.isfile(header):
            h.update(header.encode() + b"\0" + Path(header).read_bytes() + b"\0")
    h.update(f"{platform.system()} {platform.machine()}".encode())
    return h.hexdigest()[:32]


def libraries_for(root, toolchain, build_dir) -> str:
    """HALO_GRADER_LIBS for a grade build of `root` in `build_dir`: the cached libraries' folder
    when the cache (HALO_GRADER_CACHE, else the machine's copy) holds this tree's, else "" (the
    build makes its own)."""
    cache = os.environ.get(ENV)
    if cache_value(build_dir, CMAKE_VAR) == "" and all((Path(build_dir) / "grader" / f"lib{n}.a").is_file()
                                                       for n in LIBRARIES):
        return ""  # it built its own: Ninja keeps them right, and an import would relink everything
    if not cache:
        return _from_machine(root, toolchain, build_dir)
    entry = entry_for(cache, root, toolchain)
    return str(entry) if entry and entry.is_dir() else ""


def first_build_note(build_dir):
    """The line a grade prints before a build that will compile the grader's own libraries in this
    build folder (configured without an import, none built yet): the first grade of a clone on a
    machine that `sudo ./workbook setup` did not prepare, about 20 s longer for it
    (docs/results/grade-loop-times.md). None otherwise, every later grade included."""
    if cache_value(build_dir, CMAKE_VAR) != "" or any((Path(build_dir) / "grader" / f"lib{n}.a").is_file()
                                                      for n in LIBRARIES):
        return None
    return ("halo: this first build also compiles the grader's own libraries, once for this clone; "
            "`sudo ./workbook setup` builds them once for every clone on this machine")


def machine_folder() -> Path:
    return Path(os.environ.get(MACHINE_ENV) or MACHINE)


def only_root_can_change(path) -> bool:
    """Whether `path` (resolved), every folder above it and, for a folder, what is in it (the
    libraries, or all of a judges' entry: core/judge_cache.py)
    are a trusted owner's (root's) and writable by no one else. A folder above that all may write
    with the sticky bit set (/tmp) is allowed: no one else can rename or remove what is in it."""
    path = Path(os.path.realpath(path))
    files = []
    if path.is_dir():
        files = sorted(path.rglob("*")) if path.name.startswith(JUDGES_PREFIX) else \
            [path / f"lib{n}.a" for n in LIBRARIES]
    for p in files + [path, *path.parents]:
        try:
            st = os.lstat(p)
        except OSError:
            return False
        if st.st_uid not in TRUSTED_OWNERS or stat.S_ISLNK(st.st_mode):
            return False
        sticky_above = p not in files and p != path and stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISVTX
        if st.st_mode & 0o022 and not sticky_above:
            return False
        if p in files and not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
            return False
    return True


def _listing(root, toolchain):
    """Size, time and inode of everything key() and judge_cache.key() read: when none moved,
    neither did the keys."""
    root = Path(root)
    paths = list(_files(root))
    for top in ("chapters", "tools/halo/core", "grader/sections") + LEFT_OUT:
        for dirpath, dirnames, filenames in os.walk(root / top):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            paths += [Path(dirpath) / f for f in sorted(filenames)]
    paths += sorted((root / "tools" / "halo").glob("*.py"))  # the command line, which emits the chapter's headers
    paths += [Path(os.path.realpath(t)) for t in (toolchain.cxx, toolchain.cmake)] + [Path(h) for h in SYSTEM_HEADERS]
    out = []
    for path in paths:
        try:
            st = os.stat(path)
            out.append([str(path), st.st_size, st.st_mtime_ns, st.st_ino])
        except OSError:
            out.append([str(path)])
    return out


def _from_machine(root, toolchain, build_dir) -> str:
    """The machine's copy of this tree's libraries, when it has one that only root can change."""
    entry = machine_entry(root, toolchain, build_dir, MEMO, lambda folder: entry_for(folder, root, toolchain))
    return str(entry) if entry and entry.is_dir() and only_root_can_change(entry) else ""


def machine_entry(root, toolchain, build_dir, memo_name, find):
    """The machine folder's entry for this tree that `find(folder)` names (None: no such key),
    whether or not it exists. A grade of a build folder that asked before hashes the inputs again
    only when their listing changed (a hash is a tenth of a second; the listing, a few
    milliseconds): the last answer is kept in the build folder's `memo_name`."""
    folder = machine_folder()
    if os.environ.get(MACHINE_OFF) or not folder.is_dir():
        return None
    memo_path = Path(build_dir) / memo_name
    listing = _listing(root, toolchain)
    try:
        memo = json.loads(memo_path.read_text())
        entry = Path(memo["entry"]) if memo["listing"] == listing and memo["folder"] == str(folder) else None
    except (OSError, ValueError, KeyError, TypeError):
        entry = None
    if entry is None:
        entry = find(folder)
        if entry is None:
            return None
        try:
            Path(build_dir).mkdir(parents=True, exist_ok=True)
            memo_path.write_text(json.dumps({"folder": str(folder), "entry": str(entry), "listing": listing}))
        except OSError:
            pass
    return entry


def entry_for(cache, root, toolchain):
    """The cache's folder for this tree, or None when its inputs cannot be read (a chapter that
    does not load fails the build on its own; the cache stays out of it)."""
    try:
        return Path(cache) / key(root, toolchain)
    except Exception:  # noqa: BLE001  (any reason at all: build without the cache)
        return None


def publish(toolchain, build_dir, cache=None) -> bool:
    """After a build that succeeded: the build's own libraries into the cache (`cache`, else
    HALO_GRADER_CACHE), unless it imported them or the cache holds them already. They are brought
    up to date first (a no-op when the build made them), so that what is published is what the
    sources make now, and are refused if one holds the path of its tree. An entry appears whole or
    not at all (a folder renamed into place), readable by all and writable by its owner alone."""
    cache = cache or os.environ.get(ENV)
    if not cache:
        return False
    root = cache_value(build_dir, "CMAKE_HOME_DIRECTORY")
    # A check build's libraries are a grade build's (the same targets and options; only grade
    # builds import): ./workbook check publishes its own before any project test makes a tree.
    if cache_value(build_dir, CMAKE_VAR) != "" or cache_value(build_dir, "HALO_MODE") not in ("grade", "check") \
            or not root:
        return False
    entry = entry_for(cache, root, toolchain)
    if entry is None or entry.is_dir():
        return False
    grader = Path(build_dir) / "grader"
    made = subprocess.run([toolchain.cmake, "--build", str(build_dir), "--target", *LIBRARIES],
                          capture_output=True, text=True)
    if made.returncode != 0:
        return False
    own_path = os.fsencode(str(Path(root).resolve()) + "/")
    holding = [n for n in LIBRARIES if own_path in (grader / f"lib{n}.a").read_bytes()]
    if holding:  # another tree would print this tree's paths: not shared (a library's path must move out)
        print(f"halo: the grader's libraries are not shared: lib{holding[0]}.a holds the path of its tree",
              file=sys.stderr)
        return False
    return place(entry, {f"lib{n}.a": grader / f"lib{n}.a" for n in LIBRARIES})


def place(entry, copies) -> bool:
    """The files `copies` ({path in the entry: file}) as the folder `entry`, whole or not at all
    (a folder renamed into place), readable by all and writable by its owner alone. False when
    another build placed it first, or the cache is not ours to write."""
    entry = Path(entry)
    staging = entry.parent / f".staging-{uuid.uuid4().hex}"
    try:
        staging.mkdir(parents=True)
        for rel, source in copies.items():
            target = staging / rel
            for folder in reversed(target.relative_to(staging).parents[:-1]):
                (staging / folder).mkdir(exist_ok=True)
                (staging / folder).chmod(0o755)
            shutil.copy2(source, target)
            target.chmod(0o644)
        staging.chmod(0o755)
        os.rename(staging, entry)
        return True
    except OSError:
        return False
    finally:
        shutil.rmtree(staging, ignore_errors=True)
