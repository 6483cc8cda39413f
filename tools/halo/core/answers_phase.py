"""The answers phase of `./workbook grade`: every question of the graded sections checked in
this one process, with the very test names, verdicts and messages of the CTest answers tests
(`internal check-answer`, `internal check-answers-file`), so that results.json reads the same
whichever path produced it.

Why not CTest here: one Python process per question cost most of a grade (95 questions, 7 to
15 s on a 2-core machine). Nothing of the submission runs in this process: an answers file is
data, read by the TOML parser, and the measured ratios come from the judges' load reports.

In a summative student release the answer keys are not there (chapter_data: answers_withheld):
an answered question is then recorded as skipped, "checked by your course's autograder", never
as right or wrong, and one line says so.
"""
import sys
import time

from . import answers
from .results import failure_message


def _name(section, what):
    return f"{section.id} {section.slug} / answers / {what}"


def _record(name, section_id, ok, output, seconds, status=None, cause=None):
    status = status or ("passed" if ok else "failed")
    record = {"name": name, "section": section_id, "kind": "answers", "status": status,
              # A passed answer keeps its words only when they say what was left unchecked.
              "message": failure_message(output) if status != "passed" or answers.UNMEASURED in output else "",
              "seconds": seconds}
    if cause:  # why it could not be graded (unreadable, variant): the section's status (core/statuses.py)
        record["cause"] = cause
    return record


def _question_verdict(chapter, section_id, question_id, path, report_dir, student):
    verdict = answers.check_question(chapter, section_id, question_id, path, report_dir, student=student)
    return verdict, f"{question_id}: {verdict.status}" + (f"\n{verdict.message}" if verdict.message else "")


def check_question_output(chapter, section_id, question_id, path, report_dir, student):
    """What `internal check-answer` prints, and whether the question is right."""
    verdict, text = _question_verdict(chapter, section_id, question_id, path, report_dir, student)
    return verdict.status == answers.RIGHT, text


def check_file_output(chapter, section_id, path):
    """What `internal check-answers-file` prints (without --expect-status), and whether the file is fine."""
    problems = answers.check_file(chapter, section_id, path)
    return not problems, "\n".join(problems) if problems else f"{path} is well-formed"


def run(chapter, sections, exercises, report_dir, student=None):
    """One test record per question of each section, then one for the file as a whole."""
    tests, withheld = [], {}
    for s in sections:
        path = exercises / s.folder / "answers.toml"
        for q in chapter.questions(s.id):
            start = time.monotonic()
            verdict, text = _question_verdict(chapter, s.id, q.id, path, report_dir, student)
            elsewhere = verdict.status == answers.AUTOGRADER
            if q.withheld:
                withheld.setdefault(s.id, [0, 0])[0] += elsewhere
                withheld[s.id][1] += 1
            tests.append(_record(_name(s, q.id), s.id, verdict.status == answers.RIGHT, text,
                                 time.monotonic() - start, "skipped" if elsewhere else None, verdict.cause))
        start = time.monotonic()
        ok, text = check_file_output(chapter, s.id, path)
        tests.append(_record(_name(s, "the file is well-formed"), s.id, ok, text, time.monotonic() - start))
    if withheld:
        _say_withheld(withheld)
    return tests


def _say_withheld(withheld):
    """One line for the terminal: the table's answers column counts only answers checked here."""
    counts = "; ".join(f"{sid}: {done} of {asked} answered" for sid, (done, asked) in withheld.items())
    # On a terminal a progress line may be drawn: clear it first, so that this line stands alone.
    clear = "\r\033[K" if sys.stdout.isatty() else ""
    print(f"{clear}answers ({counts}) are {answers.AUTOGRADER}: this release holds no answer key, so they are "
          "not counted as right here", flush=True)
