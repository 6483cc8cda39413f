"""Small path checks shared by the commands that write outside the student's tree."""
from pathlib import Path


def is_inside(path, folder) -> bool:
    """Whether `path` is `folder` or below it, links resolved (so an output folder given by a
    roundabout path is still recognised as inside exercises/, say)."""
    try:
        Path(path).resolve().relative_to(Path(folder).resolve())
        return True
    except ValueError:
        return False
