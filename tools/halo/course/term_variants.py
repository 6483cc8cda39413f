"""The variant flow of docs/instructor.md's term, on both platforms (term_check runs the page).

Before the page's commands: a roster of two students, one whose Gradescope account is an email
that is not their roster ID, both with a GitHub username; and, for Classroom, each student's
repository as GitHub Classroom makes it (a remote named `conv1d-<username>`, here a bare
repository) holding the release's generic answers files, cloned into `../conv1d-clones` as
`gh classroom clone student-repos` would. After them: each remote holds its student's own
variant, pushed, and the Gradescope zip's submitter.py grades the email account as its roster ID
(verify); the clones, pulled and graded with the roster, are rows of roster IDs, none a variant
mismatch (gradebook_problems).
"""
import csv
import json
import subprocess
import sys
import zipfile
from pathlib import Path

from ..core import answers, roster_identity, spreadsheet, variants
from . import export_autograder

ROSTER = ("student_id,name,email,github_username\n"
          "olivia,Olivia Ortiz,olivia@uni.edu,olivia-o\n"
          "peter,Peter Park,peter@uni.edu,ppark\n")
CLONES, ROSTER_FILE = "conv1d-clones", "roster.csv"


def _git(*args, cwd=None):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def _write_roster(path):
    """Its two students, and after them any the term's other steps put on the roster already
    (term_classroom.py's): a course has one roster, which every step reads."""
    header, *mine = [line.split(",") for line in ROSTER.strip().splitlines()]
    others = []
    if path.exists():
        with open(path, newline="") as f:
            others = [[row.get(column) or "" for column in header] for row in csv.DictReader(f)]
    with open(path, "w", newline="") as f:
        spreadsheet.writer(f).writerows([header, *mine, *others])


def prepare(chapter, sections, work):
    """Writes work/roster.csv, a bare remote per student and its clone under work/conv1d-clones."""
    work = Path(work)
    _write_roster(work / ROSTER_FILE)
    for name in ("remotes", CLONES):
        subprocess.run(["rm", "-rf", str(work / name)], check=True)
    for user in roster_identity.github_usernames(work / ROSTER_FILE):
        remote = work / "remotes" / f"conv1d-{user}.git"
        _git("init", "-q", "--bare", str(remote))
        seed = work / "remotes" / f"seed-{user}"
        for s in sections:
            if chapter.questions(s.id):
                path = seed / "exercises" / s.folder / "answers.toml"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(answers.answers_template(chapter, s.id))
        _git("init", "-q", str(seed))
        _git("add", "-A", cwd=seed)
        _git("-c", "user.name=Course", "-c", "user.email=course@example.edu", "commit", "-qm", "template", cwd=seed)
        _git("push", "-q", str(remote), "HEAD:refs/heads/main", cwd=seed)
        _git("clone", "-q", "--branch", "main", str(remote), str(work / CLONES / f"conv1d-{user}"))


def gradebook_problems(work, repo):
    """The Classroom clones graded with the roster: each row a roster ID, none a variant mismatch."""
    path = Path(repo) / "build" / "class" / "conv1d-clones" / "gradebook.csv"
    if not path.is_file():
        return [f"no {path}: the clones were not graded"]
    rows = {row["student"]: row["status"] for row in csv.DictReader(path.read_text().splitlines())}
    wanted = sorted(roster_identity.github_usernames(Path(work) / ROSTER_FILE).values())
    problems = [] if sorted(rows) == wanted else [f"{path.name} of the clones names {sorted(rows)}, not {wanted}"]
    return problems + [f"{path.name} of the clones: {student}: {status}" for student, status in rows.items()
                       if "variant mismatch" in status]


def verify(chapter, sections, work, repo):
    """What is wrong with the variant flow after the page's commands ran (an empty list: nothing)."""
    work, problems = Path(work), []
    usernames = roster_identity.github_usernames(work / ROSTER_FILE)
    secret = variants.secret_from_env_or_file(repo)
    for user, student in usernames.items():
        remote = work / "remotes" / f"conv1d-{user}.git"
        for s in sections:
            if not chapter.questions(s.id):
                continue
            rel = f"exercises/{s.folder}/answers.toml"
            pushed = work / "pushed" / user / rel
            pushed.parent.mkdir(parents=True, exist_ok=True)
            try:
                pushed.write_text(_git("--git-dir", str(remote), "show", f"main:{rel}"))
                found = answers.file_student(pushed, rel)
            except (subprocess.CalledProcessError, answers.AnswersError) as e:
                problems.append(f"{remote.name}: {rel}: {e}")
                continue
            if found != student:
                problems.append(f"{remote.name}: {rel} pushed holds the variant of {found!r}, not {student!r}")
                continue
            # Exactly that student's file under the course's secret (the fingerprint and every number).
            if pushed.read_text() != answers.answers_template(chapter, s.id, student=student, secret=secret):
                problems.append(f"{remote.name}: {rel} pushed is not {student}'s variant under the course secret")
    zipped = Path(repo) / "build" / "gradescope-autograder.zip"
    with zipfile.ZipFile(zipped) as z:
        if "halo/roster.csv" not in z.namelist():
            return problems + [f"{zipped.name} carries no halo/roster.csv"]
    subprocess.run(["rm", "-rf", str(work / "zip")], check=True)
    export_autograder.extract(zipped, work / "zip")
    meta = work / "zip" / "submission_metadata.json"
    meta.write_text(json.dumps({"users": [{"email": "olivia@uni.edu", "name": "Olivia Ortiz", "sid": ""}]}))
    # The zip's own submitter.py, as run_autograder runs it.
    who = subprocess.run([sys.executable, str(work / "zip/halo/tools/halo/course/autograder/submitter.py"),
                          str(meta), str(work / "zip/halo/roster.csv")], capture_output=True, text=True)
    if who.stdout.strip() != "olivia":
        problems.append(f"the zip's submitter.py grades olivia@uni.edu as {who.stdout.strip()!r} "
                        f"(not the roster's 'olivia'): {who.stderr.strip()}")
    return problems
