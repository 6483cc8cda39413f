"""`./workbook internal load-heatmaps`: runs grader/bench/load_heatmaps (the reference kernels on
the CPU backend with per-element load counting on) and writes its JSON, from which
figures_heatmap.heatmap_svg() draws the lessons' heat maps."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from ..core import build
from . import figures_heatmap

TARGET = "load_heatmaps"


def run(root, build_dir=None, out=None) -> int:
    root = Path(root)
    build_dir = Path(build_dir) if build_dir else root / "build" / "check"
    out = Path(out) if out else root / "docs" / "results" / "cpu-load-heatmaps.json"
    binary = build_dir / "grader" / "bench" / TARGET
    if not binary.exists():
        if build.cache_value(build_dir, "HALO_MODE") != "check":
            print(f"halo: {build_dir} is not a check build (run ./workbook check first, or give --build-dir)",
                  file=sys.stderr)
            return 1
        cmake = build.cache_value(build_dir, "CMAKE_COMMAND") or shutil.which("cmake") or "cmake"
        p = subprocess.run([cmake, "--build", str(build_dir), "--target", TARGET, "--", f"-j{build.jobs()}"])
        if p.returncode != 0 or not binary.exists():
            print(f"halo: could not build {TARGET} in {build_dir}", file=sys.stderr)
            return 1
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".partial")
    p = subprocess.run([str(binary), str(partial)], timeout=600)
    if p.returncode != 0:
        partial.unlink(missing_ok=True)
        print(f"halo: {TARGET} failed (exit {p.returncode}); {out} left as it was", file=sys.stderr)
        return 1
    try:
        entries = figures_heatmap.heatmap_entries(partial)
    except figures_heatmap.HeatmapError as e:
        partial.unlink(missing_ok=True)
        print(f"halo: {e}", file=sys.stderr)
        return 1
    os.replace(partial, out)
    print(f"{len(entries)} heat maps in {out}")
    return 0
