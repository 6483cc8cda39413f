"""The grading harness of `./workbook grade-class`, built once for a whole class.

A grade build holds two kinds of things: the harness (the judges, the CPU runtime, the worker's
main and entry table: no student code) and, per section, a worker linked from the student's
kernel objects. The harness is the same for every student, so grade-class configures and builds
one grade build from the committed stubs, then reads from it how a kernel file becomes a worker:
the compile command of each kernel wrapper (compile_commands.json) and the worker's link command
(`ninja -t commands`). Each submission then costs only its own kernel compiles (through the same
sandboxed compiler launcher and validator as every grade build) and one link per section.
"""
from __future__ import annotations

import json
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ..core import build, committed, test_list

LAUNCHER = Path(__file__).resolve().parents[1] / "core" / "compile_sandboxed.py"


def launcher_argv(*args):
    """The compile launcher's command line for a submission's kernel file. -S, as CMake starts it:
    the launcher needs the standard library only, and site with an installation's .pth files is a
    tenth of a second of CPU on some machines (core/site_packages.py), paid by every compile."""
    return [sys.executable, "-S", str(LAUNCHER), *map(str, args)]


class HarnessError(Exception):
    """The harness cannot be built or read (the message is for the instructor)."""


@dataclass
class SectionRecipe:
    """How one section's worker is made from a tree shaped like exercises/, and what to run."""
    section: object
    judge: Path
    tests: list                                   # the judge's test names, from its sources
    compiles: list = field(default_factory=list)  # [(kernel file name, argv with {placeholders})]
    wrapper: str = ""                             # the wrapper's text with {kernel} for the file
    link: list = field(default_factory=list)      # argv with {objects} and {worker}


@dataclass
class Harness:
    build_dir: Path
    stubs: Path          # the committed stubs: what a submission's files are laid over
    recipes: dict        # {section id: SectionRecipe}
    cwd: Path            # where CTest would run the tests (the build's grader/ folder)
    root: Path = None    # the source folder the harness was configured from (the judge names files below it)


def harness_home(root) -> Path:
    """Where the harness for HEAD's commit lives: build/class-harness/<commit>/, whatever --out a
    run names, so a new --out reuses a harness built before (60 s saved) instead of building its
    own. One folder serves every assignment of the commit: the judges and the runtime are the same
    for all, and each run builds only its own sections' judges and workers into it (incremental),
    so a course of several assignments builds the runtime once, not once an assignment. The stubs
    are HEAD's, hence the commit in the key; grader/ and the runtime are the working tree's, which
    the build follows."""
    p = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True)
    if p.returncode != 0:
        raise HarnessError(f"{root} has no commit to build the harness from: {p.stderr.strip()}")
    return Path(root).resolve() / "build" / "class-harness" / p.stdout.strip()[:12]


def write_committed_stubs(root, out):
    """exercises/ as committed (never the instructor's working tree) into `out`."""
    try:
        return committed.write(root, "exercises", out)
    except committed.CommittedError as e:
        raise HarnessError(f"{e}: nothing to lay the submissions over") from None


def build_harness(root, toolchain, sections, work):
    """Configures and builds the grade build of the committed stubs under `work` (once: later
    runs find it built) and returns the Harness read from it."""
    work = Path(work)
    stubs = write_committed_stubs(root, work / "stubs")
    build_dir = work / "harness"
    if not build.configure(root, build_dir, toolchain, "grade", stubs, extra={"HALO_GPU_TESTS": "OFF"}):
        raise HarnessError("CMake could not configure the harness (output above)")
    targets = []
    for s in sections:
        if s.kernels:
            sid = s.id.replace(".", "_")
            targets += [f"judge_{sid}", f"test_{sid}_worker"]
    failed = build.build_targets(toolchain, build_dir, targets)
    judges = [t for t in failed if t.startswith("judge_")]
    if judges:
        raise HarnessError("the harness does not build:\n" + "\n".join(failed[t][-3000:] for t in judges))
    # A stub that does not compile would be a bug of the workbook, but it must not stop the class:
    # the recipes come from the build files, which CMake wrote whatever the stubs' state.
    return read_harness(root, toolchain, build_dir, stubs, sections)


def read_harness(root, toolchain, build_dir, stubs, sections):
    build_dir = Path(build_dir)
    commands = json.loads((build_dir / "compile_commands.json").read_text())
    recipes = {}
    for s in sections:
        if not s.kernels:
            continue
        sid = s.id.replace(".", "_")
        recipe = SectionRecipe(s, build_dir / "grader" / f"judge_{sid}",
                               [n for src in test_list.section_sources(root, s.folder)
                                for n in test_list.test_names(src, "cpu")])
        kernel_dir = str(Path(stubs) / s.folder)
        for kernel in s.kernels:
            entry = _kernel_entry(commands, f"test_{sid}_kernels", kernel)
            wrapper_path = Path(entry["file"])
            recipe.wrapper = wrapper_path.read_text().replace(f"{kernel_dir}/{kernel}", "{kernel}")
            recipe.compiles.append((kernel, _compile_template(shlex.split(entry["command"]), kernel_dir,
                                                              build_dir)))
        recipe.link = _link_template(toolchain.ninja, build_dir, f"grader/test_{sid}_worker", f"test_{sid}_kernels.dir")
        recipes[s.id] = recipe
    return Harness(build_dir, Path(stubs), recipes, build_dir / "grader", Path(root).absolute())


def _kernel_entry(commands, target, kernel):
    stem = f"{target}_{kernel}".replace(".", "_")
    for entry in commands:
        if Path(entry["file"]).name == f"{stem}.cpp":
            return entry
    raise HarnessError(f"no compile command for {kernel} of {target} in compile_commands.json")


def _compile_template(argv, kernel_dir, build_dir):
    """The wrapper's compile command with the student's folder, object and wrapper as
    placeholders ({folder}, {object}, {wrapper}); every other path made absolute."""
    out, k = [], 0
    while k < len(argv):
        a = argv[k]
        if a == f"-I{kernel_dir}":
            out.append("-I{folder}")
        elif a in ("-o", "-c") and k + 1 < len(argv):
            out += [a, "{object}" if a == "-o" else "{wrapper}"]
            k += 1
        elif a in ("-MD", "-MMD"):
            pass
        elif a in ("-MT", "-MF", "-MQ"):
            k += 1  # Ninja's dependency file: a one-off compile needs none
        else:
            out.append(a.replace("{", "{{").replace("}", "}}"))
        k += 1
    if "-I{folder}" not in out:
        raise HarnessError(f"the kernel compile command does not name {kernel_dir}: the harness changed shape")
    return out


def _link_template(ninja, build_dir, worker, kernels_dir):
    """The worker's link command from Ninja, with the kernel objects as {objects} and the output
    as {worker}; the other inputs (the runtime, the entry table) are the harness's own, by
    absolute path."""
    p = subprocess.run([ninja or "ninja", "-C", str(build_dir), "-t", "commands", worker], capture_output=True, text=True)
    if p.returncode != 0 or not p.stdout.strip():
        raise HarnessError(f"ninja cannot list the commands of {worker}: {p.stderr.strip()}")
    line = p.stdout.strip().splitlines()[-1].strip()
    line = line.removeprefix(":").strip().removeprefix("&&").strip()
    line = line.removesuffix(":").strip().removesuffix("&&").strip()
    argv = shlex.split(line)
    out, objects_put, k = [], False, 0
    while k < len(argv):
        a = argv[k]
        if a == "-o" and k + 1 < len(argv):
            out += ["-o", "{worker}"]
            k += 2
            continue
        if f"/{kernels_dir}/" in a:
            if not objects_put:
                out.append("{objects}")
                objects_put = True
        elif not a.startswith("-") and not Path(a).is_absolute() and (build_dir / a).exists():
            out.append(str(build_dir / a))
        else:
            out.append(a)
        k += 1
    if not objects_put or "{worker}" not in out:
        raise HarnessError(f"the link command of {worker} does not have the expected shape: {line}")
    return out
