"""`./workbook check`: the project's own test suite (what CI runs). Builds everything in check
mode (reference solutions, stubs, known-wrong kernels, the runtime's own tests, the GPU
binaries when nvcc is present) and runs CTest. CTest's summary line is printed last."""
import re
import subprocess
import sys
from pathlib import Path

from . import build, toolchain

SUMMARY = re.compile(r"^\d+% tests passed, \d+ tests? failed out of \d+")


def run(root, build_dir=None):
    root = Path(root)
    build_dir = Path(build_dir).resolve() if build_dir else root / "build" / "check"
    tc = toolchain.ensure()
    print(f"halo check: clang {tc.cxx}, cmake {tc.cmake}, nvcc {tc.nvcc or 'not found'}", flush=True)
    if not build.configure(root, build_dir, tc, "check"):
        return 2
    if not build.build_all(tc, build_dir):
        print("halo check: the build failed (output above)", file=sys.stderr)
        return 1
    # CTest lists skipped and failed tests after its summary; repeat the summary at the end so
    # the run's last line says how it went.
    cmd = [tc.ctest, "--test-dir", str(build_dir), "-j", build.jobs(), "--no-tests=error", "--output-on-failure"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    summary = None
    for line in proc.stdout:
        sys.stdout.write(line)
        if SUMMARY.match(line):
            summary = line.strip()
    code = proc.wait()
    if summary:
        print(f"\n{summary}")
    sys.stdout.flush()
    return code
