"""Makes programs of another architecture buildable and runnable on this Debian/Ubuntu machine,
for `./workbook check --arch arm64`: clang (already a cross compiler) gets that architecture's
libraries from Debian multiarch, and the kernel runs its programs with qemu-user through
binfmt_misc. Says what it installs, mounts or registers; a step it cannot take is an error, never
a skip: a check that ran nothing must not look green."""
import glob
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..core import pydeps, toolchain

BINFMT = Path("/proc/sys/fs/binfmt_misc")


@dataclass(frozen=True)
class Arch:
    debian: str        # dpkg's name: arm64
    triple: str        # clang's --target and the multiarch folder: aarch64-linux-gnu
    qemu: str          # qemu-user's and binfmt's name: aarch64
    elf_machine: int   # ELF e_machine of its programs
    toolchain_file: str  # below grader/cmake/toolchains/


ARCHES = {"arm64": Arch("arm64", "aarch64-linux-gnu", "aarch64", 183, "aarch64-linux-gnu.cmake")}
ARCHES["aarch64"] = ARCHES["arm64"]


def _gcc_major():
    """The GCC release whose libstdc++ the host's clang uses (the highest installed): the target's
    libstdc++ must be the same release, so both builds compile against the same library."""
    found = [int(Path(p).name) for p in glob.glob("/usr/lib/gcc/x86_64-linux-gnu/*") if Path(p).name.isdigit()]
    return max(found) if found else 12


def packages(arch):
    """Debian packages a cross build and its runs need, host ones first."""
    gcc = _gcc_major()
    # binutils-<triple>: the target's linker, which clang --target looks for by name.
    host = ["qemu-user-static", "binfmt-support", f"binutils-{arch.triple}"]
    target = [f"libc6-dev:{arch.debian}", f"libstdc++-{gcc}-dev:{arch.debian}", f"libgcc-{gcc}-dev:{arch.debian}",
              f"libboost-context-dev:{arch.debian}"]
    return host + target


def _run(cmd, what):
    """Runs a root-only step, saying what it does first; False after printing why it failed."""
    prefix = toolchain.can_install()
    if prefix is None:
        print(f"halo: {what} needs root. Run:\n\n    sudo {' '.join(cmd)}\n", file=sys.stderr)
        return False
    print(f"halo: {what}: {' '.join(cmd)}", flush=True)
    p = subprocess.run(prefix + cmd, capture_output=True, text=True)
    if p.returncode != 0:
        print(p.stdout[-2000:] + p.stderr[-2000:], file=sys.stderr)
        print(f"halo: `{' '.join(cmd)}` failed (output above)", file=sys.stderr)
        return False
    return True


def ensure_packages(arch):
    if not shutil.which("dpkg"):
        print("halo: --arch needs a Debian/Ubuntu machine (dpkg multiarch and qemu-user-static)", file=sys.stderr)
        return False
    foreign = subprocess.run(["dpkg", "--print-foreign-architectures"], capture_output=True, text=True).stdout.split()
    if arch.debian not in foreign and not _run(["dpkg", "--add-architecture", arch.debian],
                                               f"adding {arch.debian} to dpkg's architectures (multiarch)"):
        return False
    return pydeps.ensure_apt(packages(arch), f"building and running {arch.qemu} programs")


def ensure_binfmt(arch):
    """binfmt_misc mounted and qemu registered for the architecture's ELF programs."""
    if not (BINFMT / "status").exists():
        if not _run(["mount", "-t", "binfmt_misc", "binfmt_misc", str(BINFMT)], "mounting binfmt_misc"):
            return False
    entry = BINFMT / f"qemu-{arch.qemu}"
    if not entry.exists() or not entry.read_text().startswith("enabled"):
        # binfmt-support registers qemu-user-static's handler with the F flag: the interpreter is
        # opened now, so it also works inside the sandbox's mount namespace.
        if not _run(["update-binfmts", "--enable", f"qemu-{arch.qemu}"], f"registering qemu-{arch.qemu} with binfmt_misc"):
            return False
    return True


PROBE = r"""#include <sys/utsname.h>
#include <cstdio>
int main() { utsname u; uname(&u); std::printf("%s\n", u.machine); }
"""


def probe(arch, cxx, work_dir):
    """Builds and runs a tiny program for the architecture: the machine it says it runs on, or
    None after printing why (the cross compiler or qemu cannot start)."""
    Path(work_dir).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=work_dir) as tmp:
        src, exe = Path(tmp) / "probe.cpp", Path(tmp) / "probe"
        src.write_text(PROBE)
        p = subprocess.run([cxx, f"--target={arch.triple}", "-o", str(exe), str(src)], capture_output=True, text=True)
        if p.returncode != 0:
            print(p.stderr[-3000:], file=sys.stderr)
            print(f"halo: clang cannot build a {arch.qemu} program here (output above)", file=sys.stderr)
            return None
        try:
            r = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
        except OSError as e:  # Exec format error: no binfmt handler
            print(f"halo: a {arch.qemu} program cannot start here ({e}): qemu-user through binfmt_misc is "
                  "not working", file=sys.stderr)
            return None
        if r.returncode != 0:
            print(f"halo: a {arch.qemu} program failed to run (status {r.returncode}): {r.stderr[-1000:]}",
                  file=sys.stderr)
            return None
        return r.stdout.strip()


def ensure(arch, cxx, work_dir):
    """Everything needed to build and run `arch` programs; the machine a probe reported, or None."""
    if not (ensure_packages(arch) and ensure_binfmt(arch)):
        return None
    machine = probe(arch, cxx, work_dir)
    if machine is not None and machine != arch.qemu:
        print(f"halo: a {arch.qemu} program reported machine {machine!r}", file=sys.stderr)
        return None
    return machine


def elf_machine(path):
    """The ELF e_machine of a program (183 is AArch64, 62 x86-64); None when not ELF."""
    try:
        head = Path(path).read_bytes()[:20]
    except OSError:
        return None
    return int.from_bytes(head[18:20], "little") if head[:4] == b"\x7fELF" else None
