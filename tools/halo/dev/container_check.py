"""`./workbook check --container [--arch arm64]`: the Dev Container a Mac, Windows or Codespaces
student opens is built and graded in, as they would use it.

1. The image: `.devcontainer/Containerfile` of a clone of the last commit (what a student
   clones), built by rootful podman for linux/amd64 (or linux/arm64, run by qemu-user through
   binfmt_misc) from a Debian 12 base that mmdebstrap made (container_base: no registry here).
2. The clone mounted at /workspaces/halo, as Codespaces mounts a repository, and owned by the
   image's non-root user; inside, as that user:
   - the image runs as its non-root user;
   - with 7.2's reference kernel and answers in exercises/, `./workbook grade 7.2` passes without
     installing anything (the image's `./workbook setup` did), and without building the grader's
     own libraries (it imports the ones that setup built as root in /var/cache/halo/grader);
   - with a known-wrong kernel there (ghost cells loaded), it fails and prints its message;
   - each grade says exactly once that it runs without the bubblewrap sandbox, with limits only
     (in rootful podman here bwrap "Can't mount proc", under qemu-user it cannot make namespaces,
     and Docker's default seccomp profile stops them), or says nothing of it where bubblewrap
     does start.
A step that cannot run (no podman, no base, a build that fails) fails the check; nothing skips.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from ..core.chapter_data import load_chapter
from . import container_base, quoted_output
from ..core import grader_cache, judge_cache, wrong_kernels
from ..core.cmake_cache import cache_value

SECTION = "7.2"
WORKSPACE = "/workspaces/halo"
USER_UID = 1000   # the Containerfile's default USER_UID, passed to the build so both agree
IMAGE = "localhost/halo-devcontainer"
# What toolchain.ensure and pydeps.ensure_apt print before apt-get: the image should need neither.
INSTALLING = re.compile(r"^halo: installing ", re.M)
# What sandbox.announce prints when bubblewrap cannot start: the student is told once per grade.
LIMITS_ONLY = re.compile(r"without the bubblewrap sandbox \(.*\): resource limits only")


def _git_clone(root, repo):
    shutil.rmtree(repo, ignore_errors=True)   # a fresh clone each run: a student's first grade
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(root), str(repo)], check=True)


def _give_to_user(repo):
    """The clone belongs to the image's user, as a Dev Container's workspace does."""
    for path in [repo, *repo.rglob("*")]:
        os.lchown(path, USER_UID, USER_UID)


def build_command(repo, platform, base, tag):
    return container_base.PODMAN + ["build", "--pull=never", "--platform", f"linux/{platform}", *container_base.ulimits(),
                                    "--build-arg", f"BASE={base}", "--build-arg", f"USER_UID={USER_UID}",
                                    "-f", str(repo / ".devcontainer" / "Containerfile"), "-t", tag, str(repo)]


def grade_command(repo, platform, tag):
    # NO_COLOR and no HALO_* variable: a student's shell, not the check's.
    return container_base.PODMAN + ["run", "--rm", "--platform", f"linux/{platform}", *container_base.ulimits(),
                                    "-e", "NO_COLOR=1", "-v", f"{repo}:{WORKSPACE}", "-w", WORKSPACE, tag,
                                    "./workbook", "grade", SECTION]


def isolation_of(repo):
    """The isolation the grade's results.json says it ran with ("bubblewrap", "rlimits-only"), or None."""
    try:
        return json.loads((repo / "build" / "grade" / "results.json").read_text())["isolation"]["mode"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def sandbox_problems(what, output, isolation):
    """Without bubblewrap the grade says so exactly once (not per test, not never); with it, never."""
    notes = len(LIMITS_ONLY.findall(output))
    if isolation is None:
        return [f"{what}: build/grade/results.json names no isolation"]
    wanted = 0 if isolation == "bubblewrap" else 1
    if notes != wanted:
        return [f"{what}: isolation {isolation}, and the limits-only note was printed {notes} times, not {wanted}"]
    return []


def _image_id(tag):
    """The id of the image `tag` names, or None."""
    p = subprocess.run(container_base.PODMAN + ["image", "inspect", "--format", "{{.Id}}", tag],
                       capture_output=True, text=True)
    return p.stdout.strip() if p.returncode == 0 and p.stdout.strip() else None


def _timed(cmd, what):
    """(exit status, output, seconds) of a podman step, its output shown as it comes."""
    print(f"halo check --container: {what}", flush=True)
    started = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    for line in proc.stdout:
        sys.stdout.write(line)
        lines.append(line)
    sys.stdout.flush()
    return proc.wait(), "".join(lines), time.monotonic() - started


def run(root, arch, build_dir=None):
    root = Path(root).resolve()
    platform = container_base.PLATFORMS[arch]
    work = Path(build_dir).resolve() if build_dir else root / "build" / "container" / platform
    started = time.monotonic()
    if not container_base.ensure_tools(platform):
        print("halo check --container: FAILED before any test: podman or mmdebstrap is missing (message above)",
              file=sys.stderr)
        return 1
    base = container_base.base_image(root, platform)
    if base is None:
        print("halo check --container: FAILED before any test: no Debian 12 base (message above)", file=sys.stderr)
        return 1
    repo = work / "student"
    _git_clone(root, repo)
    if not (repo / ".devcontainer" / "Containerfile").exists():
        print("halo check --container: FAILED: the last commit has no .devcontainer/Containerfile", file=sys.stderr)
        return 1
    tag = f"{IMAGE}:{platform}"
    previous = _image_id(tag)
    code, out, build_s = _timed(build_command(repo, platform, base, tag), f"building {tag} for linux/{platform}")
    if code != 0:
        print(f"halo check --container: FAILED: podman build exited {code} (output above)", file=sys.stderr)
        return 1
    if previous and previous != _image_id(tag):  # the last run's image, untagged now: 1.2 GB a run otherwise
        subprocess.run(container_base.PODMAN + ["rmi", previous], capture_output=True)

    problems, times = [], {"image build": build_s}
    code, out, _ = _timed(container_base.PODMAN + ["run", "--rm", "--platform", f"linux/{platform}",
                                                   *container_base.ulimits(), tag, "id", "-u"],
                          "the user the image runs as")
    if code != 0 or out.strip() != str(USER_UID):
        problems.append(f"the image runs as uid {out.strip()!r} (exit {code}), not the non-root {USER_UID}")

    chapter = load_chapter(repo)
    section = chapter.section(SECTION)
    folder = repo / "exercises" / section.folder
    shutil.copytree(repo / "solutions" / section.folder, folder, dirs_exist_ok=True)
    _give_to_user(repo)
    code, out, times["grade 7.2, reference kernel"] = _timed(grade_command(repo, platform, tag),
                                                             f"./workbook grade {SECTION} on the reference kernel")
    if code != 0:
        problems.append(f"./workbook grade {SECTION} in the container failed the reference kernel (exit {code})")
    if INSTALLING.search(out):
        problems.append("the grade installed packages: the image lacks what `./workbook setup` should have put in it")
    isolation = isolation_of(repo)
    problems += sandbox_problems("the reference kernel's grade", out, isolation)
    for var, what in ((grader_cache.CMAKE_VAR, "libraries"), (judge_cache.CMAKE_VAR, "judges")):
        imported = cache_value(repo / "build" / "grade", var) or ""
        if not imported.startswith(f"{grader_cache.MACHINE}/"):
            problems.append(f"the first grade built the grader's {what}: it did not import the ones the image's "
                            f"`./workbook setup` builds in {grader_cache.MACHINE} ({var}={imported!r})")

    wrong_name = next(name for sid, name in quoted_output.RUNS.values() if sid == SECTION and name)
    wrong = next(w for w in wrong_kernels.load(repo, section) if w.name == wrong_name)
    wrong_kernels.write_tree(repo, section, wrong, folder)
    _give_to_user(repo)
    code, out, times[f"grade 7.2, '{wrong_name}'"] = _timed(grade_command(repo, platform, tag),
                                                            f"./workbook grade {SECTION} on '{wrong_name}'")
    if code == 0:
        problems.append(f"./workbook grade {SECTION} in the container passed the wrong kernel '{wrong_name}'")
    if not re.search(wrong.expect, out):
        problems.append(f"./workbook grade {SECTION} in the container: '{wrong_name}' without its message "
                        f"/{wrong.expect}/")
    problems += sandbox_problems(f"the grade of '{wrong_name}'", out, isolation_of(repo))

    for p in problems:
        print(f"FAIL {p}")
    print(f"\nhalo check --container: linux/{platform} image {tag} from {base}, grading with isolation {isolation}; " +
          ", ".join(f"{k} {v:.0f} s" for k, v in times.items()) + f"; whole check {time.monotonic() - started:.0f} s")
    print(f"halo check --container: {len(problems)} problem{'' if len(problems) == 1 else 's'}")
    return 1 if problems else 0
