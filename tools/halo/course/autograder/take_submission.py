#!/usr/bin/env python3
"""Lays a Gradescope submission over a clean copy of exercises/ (run_autograder calls this).

    take_submission.py --submission DIR --out DIR

Prints, per section, which files came from the submission; the note becomes the top of what
the student reads. The rules are in halo.core.intake.take_submission, shared by every grading path."""
import argparse
import sys
from pathlib import Path

HALO = Path(__file__).resolve().parents[4]
sys.path.insert(0, str(HALO / "tools"))

from halo.core.chapter_data import ChapterError, load_chapter  # noqa: E402  (needs the path above)
from halo.core.intake import take_submission  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--submission", required=True, help="the student's files (/autograder/submission)")
    p.add_argument("--out", required=True, help="where the tree to grade is written (replaced)")
    args = p.parse_args()
    try:
        chapter = load_chapter(HALO)
    except ChapterError as e:
        sys.exit(f"halo: {e}")
    for line in take_submission(chapter, Path(args.submission), HALO / "exercises", Path(args.out)):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
