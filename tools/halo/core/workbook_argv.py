"""The command that starts a tree's ./workbook from Python."""
import sys
from pathlib import Path


def workbook_argv(root, *args) -> list:
    """This interpreter (not whatever python3 is first on PATH), without site (-S: the grader
    needs the standard library only; site_packages.py says why and how a command adds it back),
    on `root`'s workbook, with `args`."""
    return [sys.executable, "-S", str(Path(root) / "workbook"), *map(str, args)]
