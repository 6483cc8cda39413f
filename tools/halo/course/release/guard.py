"""What a student release refuses: the commands that are for instructors.

A release (`./workbook release`) carries MARKER at its root. In it, the commands that print
answer keys or reference kernels, rewrite the exercises from solutions/, or make another release
or autograder are refused with one line. Most would fail anyway (a release has no solutions/),
but with a stack trace or, worse, with output that looks like an answer key of the wrong files.
"""
from pathlib import Path

MARKER = ".halo-release.toml"


def is_release(root) -> bool:
    return (Path(root) / MARKER).is_file()


def instructor_command(args):
    """The instructor-only command `args` (argparse's) asks for, as typed; None for any other."""
    command = getattr(args, "command", None)
    if command == "handout" and getattr(args, "edition", None) == "instructor":
        return "./workbook handout --edition instructor"
    if command == "docs" and getattr(args, "instructor", False):
        return "./workbook docs --instructor"
    if command == "export" and getattr(args, "target", None) == "gradescope-autograder":
        return "./workbook export gradescope-autograder"
    if command in ("sync", "check", "release"):
        return f"./workbook {command}"
    return None


def refusal(root, args):
    """The line to exit with when `args` asks a student release for an instructor's command."""
    command = instructor_command(args)
    if command is None or not is_release(root):
        return None
    return (f"halo: this is a student release: {command} is for instructors (it runs in the course's "
            "own repository, which has the reference solutions)")
