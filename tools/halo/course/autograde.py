"""One Gradescope submission, start to results, in one Python process (run_autograder runs it):

1. lay the submission over a clean copy of exercises/ (core/intake.py's rules) and write the note
   of what was taken, which heads what the student reads;
2. find who submitted (the roster ID of the metadata's account: autograder/submitter.py);
3. ./workbook grade that tree, as that student;
4. ./workbook export gradescope: results.json, the note as its preamble.

These were four interpreters a submission; their starts cost more than the work of three of them
(docs/results/check-times.md). A failure of one step is printed and the next runs as before: a
grade that breaks still gets its export (which says what it can), and a failed export leaves
run_autograder's own zero-score results. An exit status other than 0 means the submission could
not be laid out or the export failed."""
import contextlib
import importlib.util
import io
import os
import sys
import time
import traceback
from pathlib import Path


def _step(what, call) -> int:
    """`call()`'s status; a SystemExit's message or an exception's traceback printed, not raised."""
    try:
        code = call()
    except SystemExit as e:
        if isinstance(e.code, str):
            print(e.code, file=sys.stderr)
            return 1
        return e.code or 0
    except Exception:  # the next step still runs; what broke is in the log
        print(f"halo autograde: {what} broke:", file=sys.stderr)
        traceback.print_exc()
        return 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    return code or 0


def take(root: Path, submission: Path, out: Path, notes: Path) -> int:
    """Step 1: the tree to grade, and the note (also printed)."""
    from ..core.chapter_data import CHECKED_IN_ENV, ChapterError, load_chapter_once
    from ..core.intake import take_submission
    try:
        chapter = load_chapter_once(root, os.environ.get(CHECKED_IN_ENV))
        lines = list(take_submission(chapter, submission, root / "exercises", out))
    except (ChapterError, OSError) as e:
        lines, code = [f"halo: {e}"], 1
    else:
        code = 0
    text = "".join(line + "\n" for line in lines)
    notes.write_text(text)
    sys.stdout.write(text)
    return code


def who(metadata: Path, roster: Path, notes: Path) -> str:
    """Step 2: the student to grade as; the lookup's remarks are added to the note."""
    spec = importlib.util.spec_from_file_location("halo_submitter", Path(__file__).resolve().parent / "autograder" / "submitter.py")
    submitter = importlib.util.module_from_spec(spec)  # the zip's script, as an instructor runs it by hand
    spec.loader.exec_module(submitter)
    said = io.StringIO()
    with contextlib.redirect_stderr(said):
        student = submitter.submitter(str(metadata), str(roster))
    if said.getvalue():  # in the log too, after the note it extends
        sys.stderr.write(said.getvalue())
        with notes.open("a") as f:
            f.write(said.getvalue())
    return student


def run(root, ag_root, work, build, results, started, main) -> int:
    """`main`: the command line's (halo.cli.main), which runs the grade and the export."""
    root, ag_root, work, build, results = (Path(p) for p in (root, ag_root, work, build, results))
    notes = work / "submission.txt"
    # The chapter is checked once per build folder (as the grade does), not at each of this run's loads.
    from ..core.chapter_data import CHECKED_IN_ENV
    os.environ[CHECKED_IN_ENV] = str(build)
    if _step("taking the submission", lambda: take(root, ag_root / "submission", work / "exercises", notes)) != 0:
        return 1
    student = ""
    try:
        student = who(ag_root / "submission_metadata.json", root / "roster.csv", notes)
    except Exception:  # graded as nobody in particular, as when there is no metadata
        traceback.print_exc()
    grade = ["grade", "--exercises", str(work / "exercises"), "--build-dir", str(build)]
    _step("grading", lambda: main(root, grade + (["--student", student] if student else [])))
    export = ["export", "gradescope", "--results", str(build / "results.json"), "--out", str(results),
              "--execution-time", str(int(time.time() - started)), "--preamble", str(notes)]
    return _step("the export", lambda: main(root, export))
