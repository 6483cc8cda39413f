"""What each known-wrong and learner kernel's test binary said, kept so that two architectures can
be compared (issue 33: on aarch64 every kernel gets the verdict x86-64 gives and its diagnostics
quote the same file:line).

`./workbook check` sets HALO_VERDICT_DIR (build/check/verdicts); `./workbook check --arch arm64`
sets its own and HALO_VERDICT_BASE to x86-64's, so that each binary runs on the inputs of the
x86-64 run (its HALO_SEED) and the two records can be compared line for line. A record holds the
exit status, the seed, the test cases that failed and every `file.cu:line` the output quotes.

One kind of line is kept apart: where a launch that never finished found a thread still running
("launch did not finish", an endless loop). That is the instruction the time limit interrupted, so
it is a fact of the machine code and of the moment, not of the kernel: in 7.2's "loop counter
never advances" the loop's compare, its index and its load sit on lines 25 to 27, and runs have
quoted 25 and 27 (on x86-64 as well as under qemu). For those only the file is compared."""
import json
import os
import re
from pathlib import Path

_SEED = re.compile(r"HALO_SEED=(\d+)")
_FAILED_CASE = re.compile(r"^TEST CASE:\s+(.*?)\s*$", re.M)
_KERNEL_LINE = re.compile(r"([\w.+-]+\.cuh?):(\d+)")
_STOPPED = re.compile(r"launch did not finish:[^\n]*\n(?:[^\n]*\n){0,3}?\s+at block [^\n]*?([\w.+-]+\.cuh?):\d+")


def _path(folder, name):
    return Path(folder) / (re.sub(r"[^\w.+-]", "_", name) + ".json")


def summary(code, out):
    """The parts of a run that must not depend on the architecture."""
    seed = _SEED.search(out)
    stopped = {m.group(1) for m in _STOPPED.finditer(out)}
    return {"exit": code, "seed": seed.group(1) if seed else None,
            "failed": sorted(set(_FAILED_CASE.findall(out))),
            "lines": sorted({f"{f}:{n}" for f, n in _KERNEL_LINE.findall(_STOPPED.sub("", out))}),
            "stopped_in": sorted(stopped)}


def record(name, code, out):
    """Writes the run's summary where HALO_VERDICT_DIR says (nothing when it is unset)."""
    folder = os.environ.get("HALO_VERDICT_DIR")
    if folder:
        os.makedirs(folder, exist_ok=True)
        _path(folder, name).write_text(json.dumps(summary(code, out), indent=1) + "\n")


def base_seed(name):
    """The seed the base architecture's run of `name` used, to run on the same inputs."""
    folder = os.environ.get("HALO_VERDICT_BASE")
    try:
        return json.loads(_path(folder, name).read_text()).get("seed") if folder else None
    except (OSError, ValueError):
        return None


def compare(base_dir, other_dir):
    """(names the same, [(name, what differs)], names with no base record)."""
    same, different, unmatched = [], [], []
    for path in sorted(Path(other_dir).glob("*.json")):
        base = Path(base_dir) / path.name
        if not base.exists():
            unmatched.append(path.stem)
            continue
        a, b = json.loads(base.read_text()), json.loads(path.read_text())
        diffs = [f"{key}: {a.get(key)} here, {b.get(key)} there" for key in ("exit", "failed", "lines", "stopped_in")
                 if a.get(key) != b.get(key)]
        if diffs:
            different.append((path.stem, "; ".join(diffs)))
        else:
            same.append(path.stem)
    return same, different, unmatched
