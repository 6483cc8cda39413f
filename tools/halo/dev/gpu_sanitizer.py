"""Runs a GPU test binary under NVIDIA's compute-sanitizer (memcheck: out-of-bounds global
accesses; racecheck: shared-memory races), as a CTest test: the reference solutions must come
out clean, and the known-wrong kernels marked `gpu_sanitizer` must be reported. Without a CUDA
device the test is skipped (exit 77), never passed."""
import re
import subprocess
import sys

SKIP = 77
# What each tool prints for the errors it finds (compute-sanitizer 2025.x / CUDA 13).
FINDS = {"memcheck": r"Invalid __global__ (read|write)|out of bounds",
         "racecheck": r"Race reported|[Hh]azard detected"}
# The load tests need the load counter preloaded, which cannot run under compute-sanitizer.
EXCLUDE = "*/ loads /*"


def _errors(output):
    """Errors the tool counted: memcheck ends with "ERROR SUMMARY: N errors", racecheck also
    with "RACECHECK SUMMARY: H hazards displayed (E errors, W warnings)"; None when neither."""
    counts = [int(m.group(1)) for m in re.finditer(r"ERROR SUMMARY: (\d+) errors?", output)]
    counts += [int(m.group(1)) for m in re.finditer(r"RACECHECK SUMMARY: \d+ hazards? displayed \((\d+) errors?", output)]
    return max(counts) if counts else None


def run(sanitizer, tool, binary, must_catch, tests):
    probe = subprocess.run([binary, "--count"], capture_output=True, text=True, timeout=300)
    if probe.returncode == SKIP:
        print("skipped: no CUDA device here (compute-sanitizer needs one)")
        return SKIP
    cmd = [sanitizer, "--tool", tool, "--print-limit", "10", binary, f"--test-case={tests}",
           f"--test-case-exclude={EXCLUDE}"]
    print("$ " + " ".join(cmd), flush=True)
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    except subprocess.TimeoutExpired:
        print(f"compute-sanitizer --tool {tool} ran past 900 s")
        return 1
    out = p.stdout + p.stderr
    errors = _errors(out)
    found = re.search(FINDS[tool], out)
    if must_catch:
        if errors and found:
            print(f"{tool} caught it: {found.group(0)!r} ({errors} errors); first lines:")
            print("\n".join([line for line in out.splitlines() if line.startswith("=========")][:12]))
            return 0
        print(out[-6000:])
        print(f"FAILED: {tool} did not report this known-wrong kernel (ERROR SUMMARY: {errors})")
        return 1
    print(out[-6000:])
    if errors is None:
        print(f"FAILED: no ERROR SUMMARY from compute-sanitizer --tool {tool} (exit {p.returncode})")
        return 1
    if errors:
        print(f"FAILED: {tool} reported {errors} errors in the reference solution")
        return 1
    if p.returncode != 0:
        print(f"FAILED: the tests failed under {tool} (exit {p.returncode})")
        return 1
    print(f"{tool}: 0 errors")
    return 0
