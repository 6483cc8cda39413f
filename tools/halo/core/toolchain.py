"""Finds the tools Halo builds with and installs what is missing.

On Debian/Ubuntu, missing packages are installed with apt-get when we are root or sudo works
without a password; otherwise the one command to run is printed and nothing else happens."""
import glob
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field

from .tool_versions import Versions

INCLUDE_DIRS = ["/usr/include", "/usr/local/include", "/opt/homebrew/include", "/opt/local/include"]


@dataclass
class Toolchain:
    cxx: str = ""             # clang++ >= 14
    cmake: str = ""
    ctest: str = ""
    ninja: str = ""
    nvcc: str = ""            # optional: the CUDA backend
    missing: list = field(default_factory=list)   # [(what, debian package)]


VERSION = r"version (\d+)\.(\d+)"


def _version(cmd, pattern=VERSION):
    """(major, minor) from `cmd --version`, found by `pattern`; None when it cannot be read."""
    try:
        out = subprocess.run([cmd, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(pattern, out)
    return (int(m.group(1)), int(m.group(2))) if m else None


def _find_clang(versions):
    names = ["clang++"] + [f"clang++-{v}" for v in range(21, 13, -1)]
    for name in names:
        path = shutil.which(name)
        if path and (versions.version(path, VERSION) or (0, 0)) >= (14, 0):
            return path
    return ""


def _header(relpath):
    return any(os.path.exists(os.path.join(d, relpath)) for d in INCLUDE_DIRS)


def _library(stem):
    """A library one can link against: the unversioned name (libfoo.so, .a or .dylib), which
    only the -dev package provides; the runtime's libfoo.so.1.74.0 is not enough."""
    dirs = ["/usr/lib/*", "/usr/lib", "/usr/local/lib", "/opt/homebrew/lib"]
    return any(glob.glob(f"{d}/{stem}.{ext}") for d in dirs for ext in ("so", "a", "dylib"))


def _toml_ok():
    try:
        import tomllib  # noqa: F401
        return True
    except ImportError:
        try:
            import tomli  # noqa: F401
            return True
        except ImportError:
            return False


def inspect(cache_dir=None):
    """What is here and what is missing; the versions of clang++ and CMake are kept in
    `cache_dir` (a build folder) and asked again only of a changed file (tool_versions.py)."""
    versions = Versions(_version, cache_dir)
    tc = Toolchain()
    tc.cxx = _find_clang(versions)
    if not tc.cxx:
        tc.missing.append(("clang++ 14 or newer", "clang"))
    tc.cmake = shutil.which("cmake") or ""
    tc.ctest = shutil.which("ctest") or ""
    if not tc.cmake or (versions.version(tc.cmake, VERSION) or (0, 0)) < (3, 25) or not tc.ctest:
        tc.missing.append(("CMake 3.25 or newer", "cmake"))
    tc.ninja = shutil.which("ninja") or ""
    if not tc.ninja:
        tc.missing.append(("Ninja", "ninja-build"))
    if not (_header("boost/context/detail/fcontext.hpp") and _library("libboost_context")):
        tc.missing.append(("Boost.Context", "libboost-context-dev"))
    if not _header("doctest/doctest.h"):
        tc.missing.append(("doctest", "doctest-dev"))
    if sys.platform.startswith("linux") and not (shutil.which("bwrap") or os.path.exists("/usr/bin/bwrap")):
        tc.missing.append(("bubblewrap (the sandbox submission code is compiled and run in)", "bubblewrap"))
    if not shutil.which("addr2line"):
        tc.missing.append(("addr2line (source lines in diagnostics)", "binutils"))
    if not _toml_ok():
        tc.missing.append(("a TOML reader for Python (Python >= 3.11 has one)", "python3-tomli"))
    tc.nvcc = shutil.which("nvcc") or (os.path.exists("/usr/local/cuda/bin/nvcc") and "/usr/local/cuda/bin/nvcc") or ""
    versions.save()
    return tc


def apt_get_install(prefix, packages, recommends=True):
    """apt-get update and install `packages` (prefix: from can_install()); False, after printing
    apt's output and the one command to run by hand, when either step fails. `recommends=False`:
    only what the packages depend on (apt's --no-install-recommends)."""
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    install = ["apt-get", "install", "-y", "-q"] + ([] if recommends else ["--no-install-recommends"])
    for cmd in (prefix + ["apt-get", "update", "-q"], prefix + install + list(packages)):
        p = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if p.returncode != 0:
            print(p.stdout[-3000:] + p.stderr[-3000:], file=sys.stderr)
            print(f"halo: `{' '.join(cmd)}` failed; install {' '.join(packages)} and run this again", file=sys.stderr)
            return False
    return True


def can_install():
    if not shutil.which("apt-get"):
        return None
    if os.geteuid() == 0:
        return []
    if shutil.which("sudo") and subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode == 0:
        return ["sudo", "-n"]
    return None


def ensure(quiet=False, cache_dir=None):
    """A complete Toolchain, installing what is missing; exits with a message when it cannot.
    `cache_dir`: see inspect()."""
    tc = inspect(cache_dir)
    if not tc.missing:
        return tc
    packages = sorted({pkg for _, pkg in tc.missing})
    what = ", ".join(w for w, _ in tc.missing)
    prefix = can_install()
    if prefix is None:
        print(f"halo: missing {what}.", file=sys.stderr)
        if shutil.which("apt-get"):
            # setup first, as docs/getting-started.md: it installs the same packages and builds the
            # grader's libraries once for the machine, which a clone's first grade then imports
            # (about 20 s less of it: docs/results/grade-loop-times.md).
            print("Install them, and the grader's libraries for every clone on this machine, with:\n\n"
                  "    sudo ./workbook setup\n\n"
                  f"or the packages alone: sudo apt-get install -y {' '.join(packages)}\n", file=sys.stderr)
        else:
            print("Halo is tested on Debian/Ubuntu. Elsewhere install clang >= 14, CMake >= 3.25, Ninja, "
                  "Boost.Context and doctest (macOS: brew install llvm cmake ninja boost doctest).", file=sys.stderr)
        sys.exit(2)
    print(f"halo: installing {what} ({' '.join(packages)}) with apt-get...", flush=True)
    # Only what the grader runs: clang-14's recommended llvm-14-dev and cmake's compilers, among
    # others, about doubled the Dev Container's image (1.9 GB) and its build's time.
    if not apt_get_install(prefix, packages, recommends=False):
        sys.exit(2)
    tc = inspect()
    if tc.missing:
        sys.exit(f"halo: still missing after installing: {', '.join(w for w, _ in tc.missing)}")
    return tc


def sanitizer_api(root, nvcc):
    """Where the Compute Sanitizer API is (the folder with include/sanitizer.h), installing
    PyPI's nvidia-cuda-sanitizer-api for nvcc's CUDA release into build/.deps when the toolkit
    has no copy; "" when there is none to be had. Only the GPU load counter needs it, so a
    failure here is a note, never an error."""
    if not nvcc:
        return ""
    cuda_root = os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))
    if os.path.exists(os.path.join(cuda_root, "compute-sanitizer", "include", "sanitizer.h")):
        return os.path.join(cuda_root, "compute-sanitizer")
    release = _version(nvcc, r"release (\d+)\.(\d+)")
    if not release:
        return ""
    major, minor = release
    target = os.path.join(root, "build", ".deps", f"cuda-sanitizer-api-{major}.{minor}")
    found = os.path.join(target, "nvidia", f"cu{major}")
    if os.path.exists(os.path.join(found, "include", "sanitizer.h")):
        return found
    print(f"halo: installing the Compute Sanitizer API for CUDA {major}.{minor} "
          f"(pip: nvidia-cuda-sanitizer-api) into {os.path.relpath(target, root)}...", flush=True)
    p = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps",
                        "--target", target, f"nvidia-cuda-sanitizer-api=={major}.{minor}.*"],
                       capture_output=True, text=True)
    if p.returncode != 0 or not os.path.exists(os.path.join(found, "include", "sanitizer.h")):
        print("halo: note: could not install nvidia-cuda-sanitizer-api (" + (p.stderr.strip().splitlines() or ["?"])[-1]
              + "); the GPU load counter is not built and GPU load tests will be skipped", file=sys.stderr)
        return ""
    return found
