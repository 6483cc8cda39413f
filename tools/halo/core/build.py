"""Configures, builds and tests a Halo build directory with CMake, Ninja and CTest."""
import os
import re
import subprocess
import sys
from pathlib import Path

from . import grader_cache, judge_cache
from .cmake_cache import cache_value  # noqa: F401  (build.cache_value, as its callers know it)
from .cpus import usable_cpus


def jobs():
    """Parallel jobs for the build tool and CTest: the CPUs this process may use, not the host's."""
    return str(usable_cpus())


def configure(root, build_dir, toolchain, mode, exercises_dir=None, extra=None):
    """Runs CMake's configure step unless the directory is already set up the same way (Ninja
    re-runs it by itself when a CMake input changes)."""
    build_dir = Path(build_dir)
    # This interpreter, named: CMake then needs no search for one (most of a second).
    wanted = {"HALO_MODE": mode, "CMAKE_CXX_COMPILER": toolchain.cxx, "Python3_EXECUTABLE": sys.executable}
    if exercises_dir:
        wanted["HALO_EXERCISES_DIR"] = str(Path(exercises_dir).resolve())
    if mode == "grade":  # the grader's libraries and judges built once for trees of the same sources, where asked
        wanted[grader_cache.CMAKE_VAR] = grader_cache.libraries_for(root, toolchain, build_dir)
        wanted[judge_cache.CMAKE_VAR] = judge_cache.judges_for(root, toolchain, build_dir)
    wanted.update(extra or {})
    if (build_dir / "build.ninja").exists() and all(cache_value(build_dir, k) == v for k, v in wanted.items()):
        return True
    if cache_value(build_dir, "CMAKE_CXX_COMPILER") not in (None, toolchain.cxx):
        (build_dir / "CMakeCache.txt").unlink()  # another compiler: CMake needs a fresh cache
    cmd = [toolchain.cmake, "-S", str(root), "-B", str(build_dir), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo"]
    cmd += [f"-D{k}={v}" for k, v in wanted.items()]
    if toolchain.nvcc:
        cmd.append(f"-DCMAKE_CUDA_COMPILER={toolchain.nvcc}")
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        print(p.stdout[-4000:] + p.stderr[-6000:], file=sys.stderr)
        print("halo: CMake could not configure the build (output above).", file=sys.stderr)
        return False
    return True


def build_targets(toolchain, build_dir, targets, env=None):
    """Builds the targets in one run of the build tool (every core busy, one start-up), going on
    past errors; returns {target: compiler output} for the targets that failed. When one target
    failed, its output is that run's (Ninja's `FAILED:` lines name what failed, and `ninja -t
    inputs` what each target is made of): a student's `grade 7.2` with a compile error compiles
    the kernel once, not twice. When more failed, or the lines do not tell, each of them is built
    again on its own, so that each failure is told with its own compiler output and one section's
    error never hides another's. `env`: variables added to this process's environment for the
    build."""
    if not targets:
        return {}
    env = dict(os.environ, **env) if env else None
    together = subprocess.run([toolchain.cmake, "--build", str(build_dir), "--target", *targets, "--", "-k", "0",
                               f"-j{jobs()}"], capture_output=True, text=True, env=env)
    if together.returncode == 0:
        grader_cache.publish(toolchain, build_dir)
        return {}
    output = together.stdout + together.stderr
    told = failed_targets(build_dir, targets, output)
    if told is not None and len(told) == 1:
        return {told[0]: output}
    failed = {}
    for target in (targets if told is None else told):
        p = subprocess.run([toolchain.cmake, "--build", str(build_dir), "--target", target, "--", f"-j{jobs()}"],
                           capture_output=True, text=True, env=env)
        if p.returncode != 0:
            failed[target] = p.stdout + p.stderr
    return failed


def failed_targets(build_dir, targets, output):
    """The targets that a failed Ninja run's `output` says did not build: those made of an output
    named on a `FAILED:` line (its edge's outputs, as Ninja writes paths: relative to the build
    folder, spaces escaped with `$`). None when that cannot be told: no such line, a line that is
    no target's, or no Ninja to ask."""
    named = [line[len("FAILED: "):].strip() for line in output.splitlines() if line.startswith("FAILED: ")]
    ninja = cache_value(build_dir, "CMAKE_MAKE_PROGRAM")
    if not named or not ninja or not os.path.isfile(ninja):
        return None
    outputs = {o.replace("$ ", " ") for line in named for o in re.split(r"(?<!\$) ", line) if o}
    failed, claimed = [], set()
    for target in targets:
        p = subprocess.run([ninja, "-C", str(build_dir), "-t", "inputs", target], capture_output=True, text=True)
        if p.returncode != 0:
            return None
        made_of = set(p.stdout.splitlines()) | {target}
        mine = {o for o in outputs if o in made_of or o.endswith("/" + target)}
        if mine:
            failed.append(target)
            claimed |= mine
    return failed if failed and claimed == outputs else None


def build_all(toolchain, build_dir):
    return subprocess.run([toolchain.cmake, "--build", str(build_dir), "--", f"-j{jobs()}"]).returncode == 0


CTEST_PROGRESS = re.compile(r"^\s*(\d+)/(\d+) Test\s+#")
# "  3/17 Test  #5: 7.4 tiled-1d / correct / x ......***Failed    0.12 sec": a test that did not pass.
CTEST_FAILED = re.compile(r"^\s*\d+/\d+ Test\s+#\d+: (?P<name>.*?) \.*\s*\*{3}(?:Failed|Exception|Timeout)")
# What ends the output --output-on-failure prints after a failed test's line.
CTEST_OWN_LINE = re.compile(r"^\s*(?:\d+/\d+ Test\s+#|Start\s+\d+:|\d+% tests passed)")


def run_ctest(toolchain, build_dir, junit=None, env=None, extra=(), progress=None, drop=(), on_failed=None):
    """Runs CTest quietly (the caller reports from the JUnit file); `progress(done, total)` is
    called as each test finishes; `on_failed(name, output)` as each failed test finishes, with
    its output, so that a caller can show a first failure before the last test ends; `drop`
    names variables of this process's environment that CTest must not see. Returns (exit code,
    CTest's output)."""
    cmd = [toolchain.ctest, "--test-dir", str(build_dir), "-j", jobs(), "--no-tests=ignore"]
    if junit:
        cmd += ["--output-junit", str(junit)]
    if on_failed:
        cmd.append("--output-on-failure")
    cmd += list(extra)
    full_env = {k: v for k, v in os.environ.items() if k not in drop}
    proc = subprocess.Popen(cmd, env=dict(full_env, **(env or {})), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    lines, failed, output = [], None, []

    def finish_failed():
        if failed is not None:
            on_failed(failed, "".join(output))
    for line in proc.stdout:
        lines.append(line)
        if on_failed and CTEST_OWN_LINE.match(line):
            finish_failed()
            m = CTEST_FAILED.match(line)
            failed, output = (m.group("name").strip(), []) if m else (None, [])
        elif failed is not None:
            output.append(line)
        m = CTEST_PROGRESS.match(line)
        if m and progress:
            progress(int(m.group(1)), int(m.group(2)))
    if on_failed:
        finish_failed()
    proc.stdout.close()
    return proc.wait(), "".join(lines)
