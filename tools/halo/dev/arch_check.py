"""`./workbook check --arch arm64`: the CPU backend and the section tests cross-built for another
architecture and run under qemu-user, so that the verdicts a student gets in a linux/arm64
container (a Mac's) are proven to be the ones x86-64 gives: every reference solution passes with
its load counts, every stub fails cleanly, every known-wrong and learner kernel gets its verdict
and message key, the runtime's own tests pass.

Only tests that run a program built for the target are run: the answers and the Python tools'
checks are the same on every architecture and belong to the plain `./workbook check`.
`--sections 7.2 7.4` narrows it to those sections (a quicker run while working on them)."""
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from ..core import build, toolchain
from . import cross_arch, verdict_records
from .check import SUMMARY
from ..core.workbook_argv import workbook_argv

# Programs of the runtime's own tests (grader/cpu/tests, grader/testing/tests, grader/remote/tests).
RUNTIME_TARGETS = ["test_cpu_runtime", "test_cpu_dialect", "test_cpu_tile_copy", "test_compare", "fake_worker",
                   "test_worker_process"]
# Tests that run no program of the target, or need a GPU.
EXCLUDED_LABELS = "^(answers|gpu|nvcc|bench|redteam|course|student|sanitizer)$"
TIMEOUT_SCALE = 4


def _sid(section):
    return section.replace(".", "_")


def targets_for(all_targets, sections):
    """The build targets whose programs the selected tests run: each section's judge and its
    workers (reference, stubs, known-wrong and learner kernels); without `sections`, every
    section's and the runtime's test programs."""
    if sections:
        ids = "|".join(re.escape(_sid(s)) for s in sections)
        pattern = re.compile(rf"^(judge_({ids})|test_({ids})_.+_worker)$")
    else:
        pattern = re.compile(r"^(judge_\d+_\d+|test_\d+_\d+_.+_worker|" + "|".join(RUNTIME_TARGETS) + ")$")
    return sorted(t for t in all_targets if pattern.match(t))


def ctest_selection(sections):
    """CTest's label options: one -L regex (a test with any matching label) and one -LE."""
    if sections:
        wanted = "^(" + "|".join(re.escape(s) for s in sections) + ")$"
    else:
        wanted = r"^([0-9]+\.[0-9]+|runtime|trust)$"
    return ["-L", wanted, "-LE", EXCLUDED_LABELS]


def _ninja_targets(tc, build_dir):
    """The build's targets, after Ninja has brought build.ninja up to date: a kernel file added
    since the folder was configured (a new learner or known-wrong kernel) is found by CMake's
    glob check only when Ninja runs, and listing first would leave its program unbuilt."""
    subprocess.run([tc.ninja, "-C", str(build_dir), "build.ninja"], check=True, stdout=subprocess.DEVNULL)
    out = subprocess.run([tc.ninja, "-C", str(build_dir), "-t", "targets", "all"], capture_output=True,
                         text=True).stdout
    return {line.split(":", 1)[0] for line in out.splitlines() if ": phony" in line}


def _same_accesses(root):
    """The kernel flags make the same instrumented accesses on x86-64 and aarch64
    (tools/tests/test_arch_accesses.py). The unit suite skips that test where the arm64 headers
    are missing; here they are installed, and it must run and pass: 0, or 1 with why."""
    env = dict(os.environ, HALO_REQUIRE_CROSS_HEADERS="1")
    p = subprocess.run([sys.executable, "-m", "unittest", "tests.test_arch_accesses"], cwd=root / "tools", env=env,
                       capture_output=True, text=True)
    if p.returncode == 0 and "skipped" not in p.stderr:
        print("halo check --arch: the kernels make the same instrumented accesses on x86-64 and aarch64 "
              "(tests.test_arch_accesses)", flush=True)
        return 0
    print(f"halo check --arch: FAILED: tests.test_arch_accesses\n{p.stderr.strip()[-2000:]}", flush=True)
    return 1


def run(root, arch_name, sections=None, build_dir=None):
    root = Path(root)
    arch = cross_arch.ARCHES[arch_name]
    build_dir = Path(build_dir).resolve() if build_dir else root / "build" / arch.debian
    started = time.monotonic()
    tc = toolchain.ensure()
    machine = cross_arch.ensure(arch, tc.cxx, build_dir)
    if machine is None:
        print(f"halo check --arch {arch_name}: FAILED before any test: {arch.qemu} programs cannot be built or run "
              "here (message above)", file=sys.stderr)
        return 1
    qemu = shutil.which(f"qemu-{arch.qemu}-static") or f"qemu-{arch.qemu}-static"
    print(f"halo check --arch {arch_name}: clang {tc.cxx} --target={arch.triple}; programs run under {qemu} "
          f"through binfmt_misc (a probe reports machine {machine})", flush=True)
    # No CUDA: nvcc makes no aarch64 programs here, and a GPU is not what this check is about.
    extra = {"CMAKE_TOOLCHAIN_FILE": str(root / "grader" / "cmake" / "toolchains" / arch.toolchain_file),
             "HALO_CUDA": "OFF"}
    if not build.configure(root, build_dir, tc, "check", extra=extra):
        return 2
    if subprocess.run([*workbook_argv(root), "internal", "write-committed-stubs",
                       "--out", str(build_dir / "committed" / "exercises")]).returncode != 0:
        return 2
    targets = targets_for(_ninja_targets(tc, build_dir), sections)
    if not targets:
        print(f"halo check --arch {arch_name}: no test programs for sections {sections}", file=sys.stderr)
        return 2
    print(f"halo check --arch {arch_name}: building {len(targets)} programs in {build_dir}", flush=True)
    # -k 0: one kernel that does not compile fails its own tests below, not the whole check's.
    build_failed = subprocess.run([tc.cmake, "--build", str(build_dir), "--target", *targets, "--", "-k", "0",
                                   f"-j{build.jobs()}"]).returncode != 0
    if build_failed:
        print(f"halo check --arch {arch_name}: some programs did not build (output above); their tests fail",
              file=sys.stderr, flush=True)
    built = time.monotonic()
    wrong = [t for t in targets if t.startswith("judge_") and (build_dir / "grader" / t).exists() and
             cross_arch.elf_machine(build_dir / "grader" / t) != arch.elf_machine]
    if wrong:
        print(f"halo check --arch {arch_name}: {wrong[0]} is not a {arch.qemu} program", file=sys.stderr)
        return 1
    report_dir = build_dir / "report"
    shutil.rmtree(report_dir, ignore_errors=True)
    # qemu-user runs the target's code several times slower than the host runs its own: the
    # tools' wall-clock limits on a test binary grow by this much (CPU-time limits of a launch
    # are the runtime's, measured in the emulated process, and stay as they are).
    # Each known-wrong and learner kernel runs on the inputs x86-64's check gave it, and what it
    # says is compared with what it said there (verdict_records.py).
    base = root / "build" / "check" / "verdicts"
    verdicts = build_dir / "verdicts"
    shutil.rmtree(verdicts, ignore_errors=True)
    env = dict(os.environ, HALO_REPORT_DIR=str(report_dir), HALO_TIMEOUT_SCALE=str(TIMEOUT_SCALE),
               HALO_VERDICT_DIR=str(verdicts), HALO_VERDICT_BASE=str(base))
    cmd = [tc.ctest, "--test-dir", str(build_dir), "-j", build.jobs(), "--no-tests=error", "--output-on-failure",
           *ctest_selection(sections)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    last = None
    for line in proc.stdout:
        sys.stdout.write(line)
        last = SUMMARY.match(line) or last
    code = proc.wait()
    done = time.monotonic()
    scope = "sections " + " ".join(sections) if sections else "every section and the runtime's tests"
    print(f"\nhalo check --arch {arch_name}: ran {arch.qemu} programs under qemu-user ({scope}); "
          f"build {built - started:.0f} s, tests {done - built:.0f} s")
    if build_failed:
        print(f"halo check --arch {arch_name}: FAILED: some programs did not build (output above)")
        code = code or 1
    code = _compare_verdicts(arch_name, base, verdicts) or code
    code = _same_accesses(root) or code
    if last:
        print(last.group(0))
    else:
        print("halo: CTest printed no summary", file=sys.stderr)
        code = code or 1
    sys.stdout.flush()
    return code


def _compare_verdicts(arch_name, base, verdicts):
    """1 unless every kernel recorded here said what it said on x86-64 (exit status, failing
    tests, every file:line quoted); prints the comparison."""
    if not base.is_dir() or not any(base.glob("*.json")):
        print(f"halo check --arch {arch_name}: FAILED: no x86-64 verdicts in {base} to compare with "
              "(run ./workbook check first)")
        return 1
    same, different, unmatched = verdict_records.compare(base, verdicts)
    print(f"halo check --arch {arch_name}: {len(same) + len(different)} kernels' verdicts compared with "
          f"x86-64's ({base}): {len(same)} the same, {len(different)} different"
          + (f", {len(unmatched)} with no x86-64 record" if unmatched else ""))
    for name, what in different:
        print(f"  differs: {name}: {what}")
    for name in unmatched:
        print(f"  not compared: {name} (no x86-64 record: was ./workbook check run on this tree?)")
    return 1 if different or unmatched or not same else 0
