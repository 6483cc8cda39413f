"""The sandbox around every step that compiles a submission's code (the worker that runs it is
started by the judge, grader/remote/worker_process.cpp, with the same rules).

bubblewrap (Debian's `bubblewrap`) gives the step a view of the machine with only what it needs
(the toolchain read-only, the files it compiles read-only, its output folder writable, a private
/tmp), no network, no other process, a cleared environment and no capabilities, as uid 65534.
Where bubblewrap cannot start (no user namespaces, as inside some containers) the step runs with
resource limits only, and the grade says so ("isolation": "rlimits-only"); it never runs
unisolated without saying it.
"""
import functools
import os
import resource
import shutil
import subprocess
import sys

NOBODY = 65534
# Limits of one compile: generous for a kernel file, small enough that a compile bomb or an
# `#include "/dev/zero"` is stopped and reported rather than taking the machine.
COMPILE_SECONDS = 120
COMPILE_MEMORY = 4 << 30
COMPILE_FILE_BYTES = 256 << 20


def bwrap_path():
    return shutil.which("bwrap") or ("/usr/bin/bwrap" if os.path.exists("/usr/bin/bwrap") else "")


def _system_binds():
    """The toolchain and the system's libraries, read-only. On merged-/usr systems /bin, /lib and
    /lib64 are links into /usr, and stay links inside."""
    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("bin", "sbin", "lib", "lib32", "lib64"):
        path = "/" + top
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    for etc in ("/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d"):
        if os.path.exists(etc):
            args += ["--ro-bind", etc, etc]
    return args


def bwrap_argv(read_only=(), writable=(), cwd="/tmp"):
    """The bubblewrap command line that runs a command with only these paths visible."""
    args = [bwrap_path(), "--unshare-all", "--die-with-parent", "--new-session", "--clearenv",
            "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "LANG", "C.UTF-8",
            "--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY),
            "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"] + _system_binds()
    for path in sorted(set(map(str, read_only))):
        args += ["--ro-bind", path, path]
    for path in sorted(set(map(str, writable))):
        args += ["--bind", path, path]
    return args + ["--chdir", str(cwd), "--"]


@functools.lru_cache(maxsize=None)
def probe():
    """("bubblewrap", "") when bubblewrap can run a command here, else ("rlimits-only", why)."""
    bwrap = bwrap_path()
    if not bwrap:
        return "rlimits-only", "bwrap not found (apt-get install bubblewrap)"
    try:
        p = subprocess.run(bwrap_argv() + ["/bin/true"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return "rlimits-only", f"bwrap could not start: {e}"
    if p.returncode != 0:
        line = (p.stderr.strip().splitlines() or ["exit status %d" % p.returncode])[-1]
        return "rlimits-only", f"bwrap could not create its sandbox: {line}"
    return "bubblewrap", ""


def mode():
    """What HALO_SANDBOX asks for ("auto" by default), resolved against what works here."""
    wanted = os.environ.get("HALO_SANDBOX", "auto")
    found, why = probe()
    if wanted == "bubblewrap" and found != "bubblewrap":
        raise RuntimeError(f"HALO_SANDBOX=bubblewrap, but {why}")
    if wanted in ("rlimits-only", "none"):
        return wanted, "asked for by HALO_SANDBOX"
    return found, why


def announce(doing):
    """(isolation, why) in force, after saying on stderr when it is weaker than bubblewrap; None,
    after saying why, when HALO_SANDBOX asks for an isolation that cannot start here."""
    try:
        isolation, why = mode()
    except RuntimeError as e:
        print(f"halo: {e}", file=sys.stderr)
        return None
    if isolation != "bubblewrap":
        print(f"halo: note: {doing} without the bubblewrap sandbox ({why}): resource limits only", file=sys.stderr)
    return isolation, why


def _limit(seconds, memory, file_bytes):
    def apply():
        os.setsid()
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds))
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def run(cmd, read_only=(), writable=(), cwd="/tmp", seconds=COMPILE_SECONDS, memory=COMPILE_MEMORY,
        file_bytes=COMPILE_FILE_BYTES):
    """Runs `cmd` in the sandbox; returns (exit status, output). A step that runs past `seconds`
    of wall clock is killed, with its whole process group, and reported as such (status 124)."""
    isolation, _ = mode()
    if isolation == "bubblewrap":
        full = bwrap_argv(read_only, writable, cwd) + list(cmd)
        env = {}
    else:
        full = list(cmd)
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    p = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                         env=env, cwd=cwd if isolation != "bubblewrap" else None,
                         preexec_fn=_limit(seconds, memory, file_bytes))
    try:
        out, _ = p.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        out, _ = p.communicate()
        return 124, (out or b"").decode("utf-8", "replace") + f"\nstopped after {seconds} s\n"
    return p.returncode, (out or b"").decode("utf-8", "replace")
