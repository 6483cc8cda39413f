"""Podman and a Debian 12 base image for `./workbook check --container`, on a machine that reaches
Debian's mirror but no container registry: the base is made with mmdebstrap (the `apt` variant:
Debian's essential packages and apt, what the public debian:12 image holds) and imported into
rootful podman. The tarball is cached under build/container/, so only the first run makes it."""
import os
import resource
import subprocess
import sys
from pathlib import Path

from ..core import pydeps
from . import cross_arch

SUITE = "bookworm"   # Debian 12, the Containerfile's default base
MIRROR = "http://deb.debian.org/debian"
PLATFORMS = {"amd64": "amd64", "arm64": "arm64", "aarch64": "arm64"}   # --arch: Debian's and podman's name
# runc: the runtime the issue measured here (crun, podman's default on newer systems, is untested).
PODMAN = ["podman", "--runtime", "runc"]
# Tasks a container may run. Podman's own default (and a value near this machine's hard limit)
# makes runc fail with "error setting rlimit type 6: operation not permitted" where the process
# lacks CAP_SYS_RESOURCE; 32768 starts, and is far above what grading needs (limits.py).
CONTAINER_TASKS = 32768


def ulimits():
    """podman's --ulimit options: the caller's own open-files limit, which runc may always set
    (podman's default of 1048576 is above it here, and runc then refuses to start), and the task
    limit above, never more than the caller's."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    tasks = resource.getrlimit(resource.RLIMIT_NPROC)[1]
    tasks = CONTAINER_TASKS if tasks == resource.RLIM_INFINITY else min(tasks, CONTAINER_TASKS)
    return ["--ulimit", f"nofile={soft}:{hard}", "--ulimit", f"nproc={tasks}:{tasks}"]


def ensure_tools(arch):
    """podman, runc, mmdebstrap, and for a foreign architecture qemu-user through binfmt_misc."""
    packages = ["podman", "runc", "mmdebstrap", "uidmap"]
    if not pydeps.ensure_apt(packages, "building the Dev Container's image"):
        return False
    if arch == "amd64":
        return True
    foreign = cross_arch.ARCHES[arch]
    return pydeps.ensure_apt(["qemu-user-static", "binfmt-support"], f"running {arch} containers") and \
        cross_arch.ensure_binfmt(foreign)


def tarball(root, arch):
    """build/container/debian-bookworm-ARCH.tar, made by mmdebstrap unless a run made it before;
    None after printing why it could not be made."""
    path = Path(root) / "build" / "container" / f"debian-{SUITE}-{arch}.tar"
    if path.exists():
        print(f"halo: the {arch} base is cached: {os.path.relpath(path, root)}", flush=True)
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")   # never cached half-written
    # --format: mmdebstrap otherwise guesses from the name, and ".partial" would make a directory.
    cmd = ["mmdebstrap", "--variant=apt", "--format=tar", f"--architecture={arch}", SUITE, str(partial), MIRROR]
    print(f"halo: making the Debian 12 {arch} base: {' '.join(cmd)}", flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        print(p.stderr[-3000:], file=sys.stderr)
        print(f"halo: mmdebstrap could not make the {arch} base (output above)", file=sys.stderr)
        partial.unlink(missing_ok=True)
        return None
    partial.rename(path)
    return path


def base_image(root, arch):
    """The podman tag of the Debian 12 base for `arch` (imported from the tarball), or None."""
    tar = tarball(root, arch)
    if tar is None:
        return None
    tag = f"localhost/halo-base:{SUITE}-{arch}"
    p = subprocess.run(PODMAN + ["import", "--arch", arch, str(tar), tag], capture_output=True, text=True)
    if p.returncode != 0:
        print(p.stderr[-2000:], file=sys.stderr)
        print(f"halo: podman could not import {tar}", file=sys.stderr)
        return None
    return tag
