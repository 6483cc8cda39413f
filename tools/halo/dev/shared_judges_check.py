"""The check's proof that the judges it publishes (core/judge_cache.py) are what a grade build of
the same tree would compile: a tree that links them must be graded by the same judge as one that
compiles its own."""
import subprocess
from pathlib import Path

from ..core import build, judge_cache
from ..core.cmake_cache import cache_value


def grade_build_differences(root, build_dir, toolchain, scratch, sid="7_2") -> list:
    """Whether the check build's objects of section `sid`'s judge are what a grade build of the
    same tree compiles: a grade build configured in `scratch` (the libraries imported when the
    cache has them, the judges not) compiles the section's judge and entry table, and each object
    must be the check build's, byte for byte. A flag that only one mode gives them, or a path that
    reaches an object, is a difference: a tree that linked the check's would be graded by another
    judge than its own."""
    build_dir, scratch = Path(build_dir), Path(scratch)
    judge, entries = judge_cache.objects(build_dir, sid)
    if not judge or not entries.is_file():
        return [f"section {sid}'s judge is not compiled in {build_dir}"]
    own_judges = {judge_cache.CMAKE_VAR: ""}
    cross = cache_value(build_dir, "CMAKE_TOOLCHAIN_FILE")
    if cross:  # `./workbook check --arch`: the grade build compiles for the same machine (objects only)
        own_judges["CMAKE_TOOLCHAIN_FILE"] = cross
    empty = scratch / "exercises"
    empty.mkdir(parents=True, exist_ok=True)
    if not build.configure(root, scratch / "build", toolchain, "grade", exercises_dir=empty, extra=own_judges):
        return ["a grade build of this tree does not configure"]
    wanted = [str(o.relative_to(build_dir)) for o in judge + [entries]]
    made = subprocess.run([cache_value(scratch / "build", "CMAKE_MAKE_PROGRAM") or "ninja", "-C",
                           str(scratch / "build"), *wanted], capture_output=True, text=True)
    if made.returncode != 0:
        return [f"a grade build does not compile {', '.join(wanted)}:\n{made.stdout[-2000:]}{made.stderr[-2000:]}"]
    return [f"{rel} differs between the check's build and a grade build" for rel in wanted
            if (build_dir / rel).read_bytes() != (scratch / "build" / rel).read_bytes()]
