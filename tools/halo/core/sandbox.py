"""The sandbox around every step that compiles a submission's code (the worker that runs it is
started by the judge, grader/platform/linux/worker_process.cpp, with the same rules).

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
import tempfile
import time

from . import limits

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
    # A path, or (what to mount, where): a staged copy shown at the original's path.
    pairs = lambda paths: sorted({(str(p), str(p)) if isinstance(p, (str, os.PathLike)) else tuple(map(str, p))
                                  for p in paths}, key=lambda pair: pair[1])
    for src, dest in pairs(read_only):
        args += ["--ro-bind", src, dest]
    for src, dest in pairs(writable):
        args += ["--bind", src, dest]
    return args + ["--chdir", str(cwd), "--"]


# What a process that probed hands the steps it starts (the build's compile launcher: grade.py),
# so that each compile need not run the same probes again a second later. Only findings that
# bubblewrap works are handed on and believed: a claim that is false (set by hand) can make a
# step's bubblewrap fail, never make it run weaker; anything else is probed again.
PROBED_ENV = "HALO_SANDBOX_PROBED"
WORKS, WORKS_AS_NOBODY = "bubblewrap", "bubblewrap as nobody"


def handed_on():
    """{PROBED_ENV: what this process's probes found} for the environment of the steps it starts;
    {} when bubblewrap does not work here (each step then finds why for itself)."""
    if probe()[0] != "bubblewrap":
        return {}
    return {PROBED_ENV: WORKS_AS_NOBODY if drops_to_nobody() else WORKS}


@functools.lru_cache(maxsize=None)
def probe():
    """("bubblewrap", "") when bubblewrap can run a command here, else ("rlimits-only", why)."""
    if os.environ.get(PROBED_ENV) in (WORKS, WORKS_AS_NOBODY):
        return "bubblewrap", ""
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


def _drop_privileges():
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)


@functools.lru_cache(maxsize=None)
def drops_to_nobody():
    """Whether a step started by root runs bubblewrap as uid 65534 (an unprivileged user
    namespace), so that nothing of it is root outside the sandbox either."""
    if os.geteuid() != 0 or probe()[0] != "bubblewrap":
        return False
    if os.environ.get(PROBED_ENV) == WORKS_AS_NOBODY:
        return True
    try:
        p = subprocess.run(bwrap_argv() + ["/bin/true"], capture_output=True, timeout=30, preexec_fn=_drop_privileges)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return p.returncode == 0


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


def _limit(seconds, memory, file_bytes, drop=False):
    # Fitted under the hard limits in the parent: asking for more than the account's hard limit
    # fails with EPERM, and every compile would fail (limits.shortfall refuses a limit too tight).
    wanted = [(resource.RLIMIT_CPU, limits.fitted(resource.RLIMIT_CPU, seconds)),
              (resource.RLIMIT_AS, limits.fitted(resource.RLIMIT_AS, memory)),
              (resource.RLIMIT_FSIZE, limits.fitted(resource.RLIMIT_FSIZE, file_bytes)),
              (resource.RLIMIT_CORE, (0, 0))]

    def apply():
        os.setsid()
        if drop:
            _drop_privileges()
        for res, pair in wanted:
            resource.setrlimit(res, pair)
    return apply


def run(cmd, read_only=(), writable=(), cwd="/tmp", seconds=COMPILE_SECONDS, memory=COMPILE_MEMORY,
        file_bytes=COMPILE_FILE_BYTES):
    """Runs `cmd` in the sandbox; returns (exit status, output). A step that runs past `seconds`
    of wall clock is killed, with its whole process group, and reported as such (status 124)."""
    return start(cmd, read_only, writable, cwd, seconds, memory, file_bytes).finish()


def start(cmd, read_only=(), writable=(), cwd="/tmp", seconds=COMPILE_SECONDS, memory=COMPILE_MEMORY,
          file_bytes=COMPILE_FILE_BYTES):
    """`run` in two halves: the step starts now, and its Step's finish() waits for it and returns
    (exit status, output), its `seconds` counted from the start. The caller may work meanwhile
    (in this thread: the process is started before any other thread could hold a lock)."""
    isolation, _ = mode()
    stage, unstage = None, lambda text: text
    if isolation == "bubblewrap":
        stage = _Staging(read_only, writable) if drops_to_nobody() else None
        full = bwrap_argv(stage.read_only if stage else read_only, stage.writable if stage else writable, cwd) + list(cmd)
        env = {}
    else:
        full = list(cmd)
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
        if isolation == "rlimits-only" and os.geteuid() == 0:
            # No namespace to show staged copies at their original paths: the step reads its
            # inputs where they are (they must be readable by others, as an unpacked autograder
            # is) and writes into folders of its own, named in its command line in place of the
            # real ones; only regular files come back.
            unreadable = [path for path in read_only if not _others_can_read(path)]
            if unreadable:
                return _Done(1, ("halo: grading as root without bubblewrap runs the compiler as an unprivileged "
                                 f"user, who cannot read {unreadable[0]}; make the checkout readable by others "
                                 "(chmod -R o+rX) or install bubblewrap\n"))
            stage = _Staging((), writable)
            full = _rewritten(full, stage.writable)
            unstage = lambda text: _rewritten([text], [(path, staged) for staged, path in stage.writable])[0]
    try:
        p = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             env=env, cwd=cwd if isolation != "bubblewrap" else None,
                             preexec_fn=_limit(seconds, memory, file_bytes, drop=stage is not None))
    except BaseException:
        if stage:
            stage.remove()
        raise
    return _Step(p, stage, unstage, seconds)


class _Done:
    """A step that never started: its result is known."""

    def __init__(self, status, output):
        self.result = (status, output)

    def finish(self):
        return self.result


class _Step:
    def __init__(self, process, stage, unstage, seconds):
        self.process, self.stage, self.unstage, self.seconds = process, stage, unstage, seconds
        self.deadline = time.monotonic() + seconds

    def finish(self):
        p = self.process
        try:
            try:
                out, _ = p.communicate(timeout=max(0.0, self.deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, 9)
                out, _ = p.communicate()
                return 124, self.unstage((out or b"").decode("utf-8", "replace")) + f"\nstopped after {self.seconds} s\n"
            if self.stage:
                self.stage.copy_back()
            return p.returncode, self.unstage((out or b"").decode("utf-8", "replace"))
        finally:
            if self.stage:
                self.stage.remove()


def _others_can_read(path):
    """Whether a user with no claim on `path` (neither its owner nor in its group) can read it,
    and every folder above it lets that user through."""
    path = os.path.abspath(path)
    try:
        mode_bits = os.stat(path).st_mode
        if not mode_bits & 0o004 or (os.path.isdir(path) and not mode_bits & 0o001):
            return False
        parent = os.path.dirname(path)
        while parent != os.path.dirname(parent):
            if not os.stat(parent).st_mode & 0o001:
                return False
            parent = os.path.dirname(parent)
    except OSError:
        return False
    if os.path.isdir(path):
        for top, dirs, files in os.walk(path):
            for name in dirs + files:
                bits = os.stat(os.path.join(top, name)).st_mode
                if not bits & 0o004 or (name in dirs and not bits & 0o001):
                    return False
    return True


def _rewritten(args, pairs):
    """`args` with every path under the second of a (new, old) pair moved under the first."""
    out = []
    for a in args:
        for new, old in sorted(pairs, key=lambda pair: -len(pair[1])):
            a = a.replace(old + "/", new + "/")
        out.append(a)
    return out


class _Staging:
    """For a step started by root: copies of its inputs that uid 65534 may read, and output
    folders it may write, each shown in the sandbox at the original's path (so debug info and
    messages name the real files); what the step wrote is copied back afterwards. Root's own
    folders (a checkout under /root, say) stay closed to the step."""

    def __init__(self, read_only, writable):
        self.dir = tempfile.mkdtemp(prefix="halo-sandbox-")
        os.chmod(self.dir, 0o755)
        self.read_only, self.writable = [], []
        for k, path in enumerate(sorted(set(map(str, read_only)))):
            staged = os.path.join(self.dir, f"in{k}")
            if os.path.isdir(path):
                shutil.copytree(path, staged, symlinks=False)
            else:
                shutil.copy2(path, staged)
            self.read_only.append((staged, path))
        for k, path in enumerate(sorted(set(map(str, writable)))):
            staged = os.path.join(self.dir, f"out{k}")
            os.mkdir(staged)
            os.chown(staged, NOBODY, NOBODY)
            self.writable.append((staged, path))
        for top, dirs, files in os.walk(self.dir):
            for name in dirs + files:
                full = os.path.join(top, name)
                os.chmod(full, os.stat(full).st_mode | (0o555 if name in dirs else 0o444))

    def copy_back(self):
        for staged, path in self.writable:
            for name in os.listdir(staged):
                src = os.path.join(staged, name)
                if os.path.isfile(src) and not os.path.islink(src):
                    shutil.copyfile(src, os.path.join(path, name))

    def remove(self):
        shutil.rmtree(self.dir, ignore_errors=True)
