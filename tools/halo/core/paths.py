"""Small path checks shared by the commands that write outside the student's tree."""
import functools
import os
from pathlib import Path


def is_inside(path, folder) -> bool:
    """Whether `path` is `folder` or below it, links resolved (so an output folder given by a
    roundabout path is still recognised as inside exercises/, say)."""
    try:
        Path(path).resolve().relative_to(Path(folder).resolve())
        return True
    except ValueError:
        return False


def shown(path, root) -> str:
    """`path` as a student reads it: relative to the repository root `root` when inside it (the
    commands run there, and an absolute path of somebody's home folder is noise), else as given."""
    return _shown(str(path), str(root), os.getcwd())  # the folder a relative path is read from


@functools.lru_cache(maxsize=256)  # a grade names one answers file for each of its ~90 questions
def _shown(path, root, cwd) -> str:
    try:
        return str(Path(path).resolve().relative_to(Path(root).resolve()))
    except (ValueError, OSError):
        return path


def without_root(text: str, root) -> str:
    """Tool output (a compiler's, say) with the repository root's absolute prefix taken off its
    paths, so that `/home/ann/halo/exercises/7.2-basic-1d/x.cu:3` reads `exercises/7.2-basic-1d/x.cu:3`."""
    for prefix in dict.fromkeys([str(Path(root).resolve()), str(Path(root).absolute())]):
        text = text.replace(prefix.rstrip("/") + "/", "")
    return text
