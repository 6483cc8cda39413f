"""What a student release holds: the repository's committed files less the instructor's, with
chapters/, exercises/ and grader/sections/ cut down to the sections handed out.

Left out, besides what export_autograder.EXCLUDED leaves out of the Gradescope zip (solutions/,
known-wrong kernels, the tools' tests, the errata, ...): RELEASE_EXCLUDED; the exercises, lessons
and tests of the sections not handed out; given headers no stub handed out includes.

chapters/ keeps every section's questions.toml that still has something a released file uses:
the manifest lists the sections not handed out as `formulas_only` (chapter_data), and their
questions.toml keeps its defines, examples and measurements and the formulas something uses, without
their questions. A formula is kept when the grader's or the tools' code names it, a released lesson
cites it ({{ formula.X }}), an answer kept in the release calls it, or a kept formula calls it;
the rest serves only questions that are not there. In a summative release (assignment.release)
the released questions lose their `answer`, except those whose value a released lesson prints
({{ key.Q }}): the lesson gives those away anyway.
"""
import copy
import json
import re

from ...core import expressions as ex
from ...core.lesson import PLACEHOLDER
from ...core.tomlcompat import TOMLDecodeError, loads_toml
from ..export_autograder import excluded
from . import readme as release_readme, toml_cuts as release_toml
from ...core.assignment import RELEASE_FILE, to_toml
from ...core import untouched_stubs
from .leaks import GIVEN

RELEASE_EXCLUDED = {
    ".ci/": "the project's own CI (`./workbook check`), for the course's repository",
    ".gitignore": "a student's .gitignore is written instead",
    "README.md": "the student's README, naming the assignment, is written instead",
    "exercises/.generated.json": "what `./workbook sync` wrote last; sync is for instructors",
    "docs/results/": "measured runs that quote answers a summative release withholds (7.2's load counts); "
                     "a lesson citing them renders lesson.RESULTS_WITHHELD instead",
    "docs/instructor.md": "the instructor's guide: keys, variants, the course secret's handling",
}
# What every release must hold as HEAD has it: the Dev Container, which "Open in Codespaces" and
# "Reopen in Container" build, so that a student on a Mac or Windows has a way to grade.
REQUIRED = (".devcontainer/devcontainer.json", ".devcontainer/Containerfile")
CODE = ("grader/", "tools/")  # code that may name a formula: C++ judges, Python figures
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
GIVEN_INCLUDE = re.compile(r"halo/given/([A-Za-z0-9_]+\.cuh)")


class ReleaseError(Exception):
    """Why a release cannot be written; str() is for the user."""


def _text(data):
    return data.decode("utf-8", errors="replace")


def _in(rel, entries):
    return any(rel == e or (e.endswith("/") and rel.startswith(e)) for e in entries)


def carried(rel, chosen, folders, given_used):
    """Whether HEAD's file `rel` goes into the release as it is (questions.toml files are then cut)."""
    if excluded(rel) or _in(rel, RELEASE_EXCLUDED):
        return False
    parts = rel.split("/")
    if parts[0] == "exercises":
        return len(parts) > 2 and parts[1] in chosen
    if parts[:2] == ["grader", "sections"] and len(parts) > 3:
        return parts[2] in chosen
    if rel.startswith(GIVEN):
        return parts[-1] in given_used
    if parts[0] == "chapters" and len(parts) > 2 and parts[1] in folders and parts[1] not in chosen:
        return parts[2] == "questions.toml"
    return True


def _lesson_names(head, section, kind):
    """The names a section's lesson cites as {{ kind.NAME... }} (kind: formula, key)."""
    data = head.get(f"chapters/{section.folder}/lesson.md")
    if data is None:
        return set()
    names = set()
    for m in PLACEHOLDER.finditer(_text(data)):
        parts = m.group("path").split(".")
        if parts[0] == kind and len(parts) > 1:
            names.add(parts[1])
    return names


def withheld_answers(head, chapter, assignment):
    """({section id: [question ids]} whose answers a summative release leaves out, {section id:
    [question ids]} whose answers it keeps because the section's lesson prints them)."""
    if assignment.release != "summative":
        return {}, {}
    out, kept = {}, {}
    for s in assignment.sections:
        quoted = _lesson_names(head, s, "key")
        for q in chapter.questions(s.id):
            (kept if q.id in quoted else out).setdefault(s.id, []).append(q.id)
    return out, kept


def needed_formulas(tree, head, chapter, assignment, withheld):
    """The formulas a release keeps (see the module's doc), closed over calls."""
    tokens = set()
    for rel, data in tree.items():
        if rel.startswith(CODE) and b"\0" not in data:
            tokens |= set(IDENTIFIER.findall(_text(data)))
    wanted = {f for f in chapter.formulas if f in tokens}
    for s in assignment.sections:
        wanted |= _lesson_names(head, s, "formula") & set(chapter.formulas)
        for q in chapter.questions(s.id):
            if q.id not in withheld.get(s.id, ()):
                wanted |= ex.calls_used(q.answer_expr) & set(chapter.formulas)
    done, todo = set(), list(wanted)
    while todo:
        name = todo.pop()
        if name in done:
            continue
        done.add(name)
        f = chapter.formulas[name]
        for expr in [f.expr] + [e for _, e in f.lets]:
            todo += sorted(ex.calls_used(expr) & set(chapter.formulas))
    return done


def _cut_questions(rel, data, section, handed_out, keep_formulas, withheld_ids):
    """questions.toml cut for the release: (text, or None when nothing is left in it, formulas dropped)."""
    text = _text(data)
    try:
        before = loads_toml(text)
    except TOMLDecodeError as e:
        raise ReleaseError(f"{rel}: {e}") from None
    after = copy.deepcopy(before)
    dropped = sorted(f for f in before.get("formulas", {}) if f not in keep_formulas)
    try:
        text = release_toml.without_tables(text, {f"formulas.{f}" for f in dropped})
        for f in dropped:
            del after["formulas"][f]
        if "formulas" in after and not after["formulas"]:
            del after["formulas"]
        if not handed_out:
            text = release_toml.without_arrays(text, "questions")
            after.pop("questions", None)
        elif withheld_ids:
            questions = before.get("questions", [])
            text = release_toml.without_key(text, "questions", "answer",
                                            lambda k: k < len(questions) and questions[k].get("id") in withheld_ids)
            for q in after.get("questions", []):
                if q.get("id") in withheld_ids:
                    q.pop("answer", None)
        check = loads_toml(text)
    except (release_toml.TomlCutError, TOMLDecodeError) as e:
        raise ReleaseError(f"{rel}: cannot cut it for a release: {e}") from None
    if check != after:
        raise ReleaseError(f"{rel}: cannot cut it for a release: its layout is not one the cuts understand "
                           "(each [formulas.X] and [[questions]] table on lines of its own, each answer on one line)")
    if not after:
        return None, dropped
    text = re.sub(r"\n{3,}", "\n\n", text).rstrip("\n") + "\n"  # the blank lines the cuts left, one each
    if not handed_out:
        head = (f"# Section {section.id} is not handed out in this release: only what the sections handed out "
                "use of it\n# (defines, examples, measurements, formulas) is here.\n")
    elif withheld_ids:
        head = ("# A summative release: the answers of these questions are checked by your course's autograder, "
                "not here.\n")
    else:
        head = ""
    return head + text, dropped


def _toml_string(text):
    return json.dumps(str(text), ensure_ascii=False)


def _cut_manifest(data, chapter, assignment, kept_folders, withheld):
    """manifest.toml of the release: the comments at its top, the sections handed out as written
    (answers_withheld = true added where answers are withheld), and a formulas_only entry for each
    other section whose questions.toml the release keeps."""
    text = _text(data)
    chosen = set(assignment.ids)
    parts = release_toml.blocks(text)
    before = loads_toml(text)
    entries = before.get("sections", [])
    out, expected, k = [parts[0]], [], -1
    for b in parts[1:]:
        if not (b.array and b.name == "sections"):
            raise ReleaseError("chapters/manifest.toml: a table other than [[sections]]: cannot cut it for a release")
        k += 1
        entry = entries[k]
        if entry["id"] in chosen:
            if entry["id"] in withheld:
                end = b.content_end()
                b = release_toml.Block(b.name, True, b.lines[:end] + ["answers_withheld = true\n"] + b.lines[end:])
                entry = {**entry, "answers_withheld": True}
            out.append(b)
            expected.append(entry)
        elif entry["folder"] in kept_folders:
            s = chapter.section(entry["id"])
            lines = ["[[sections]]\n", "# Not handed out in this release: read for its questions.toml's formulas "
                     "and data, which the sections handed out use.\n"]
            lines += [f"{key} = {_toml_string(getattr(s, key))}\n" for key in ("id", "slug", "title", "folder")]
            lines += ["formulas_only = true\n", "\n"]
            out.append(release_toml.Block("sections", True, lines))
            expected.append({"id": s.id, "slug": s.slug, "title": s.title, "folder": s.folder, "formulas_only": True})
    new = release_toml.text_of(out)
    if loads_toml(new) != {**before, "sections": expected}:
        raise ReleaseError("chapters/manifest.toml: cannot cut it for a release: its layout is not one the cuts "
                           "understand (each [[sections]] table on lines of its own)")
    return new


def build(files, chapter, assignment, commit, created):
    """The release as {path: (executable, bytes)}, and a summary {withheld, dropped_formulas}.
    `files`: HEAD's files as export_autograder.committed_files gives them; `chapter`: HEAD's
    chapter (every section); `assignment`: what is handed out."""
    head = {name: data for name, _mode, _mtime, data in files}
    modes = {name: mode for name, mode, _mtime, _data in files}
    chosen = {s.folder for s in assignment.sections}
    folders = {s.folder for s in chapter.sections}
    given_used = set()
    for rel, data in head.items():
        parts = rel.split("/")
        if parts[0] == "exercises" and len(parts) > 2 and parts[1] in chosen:
            given_used |= set(GIVEN_INCLUDE.findall(_text(data)))
    tree = {rel: data for rel, data in head.items() if carried(rel, chosen, folders, given_used)}
    missing = [rel for rel in REQUIRED if rel not in tree]
    if missing:
        raise ReleaseError(f"the commit has no {', '.join(missing)}: a release without its Dev Container leaves "
                           "students on a Mac, on Windows or in Codespaces no way to grade")
    withheld, quoted = withheld_answers(head, chapter, assignment)
    keep = needed_formulas(tree, head, chapter, assignment, withheld)
    dropped, kept_folders = [], set()
    for s in chapter.sections:
        rel = f"chapters/{s.folder}/questions.toml"
        if rel not in tree:
            continue
        text, gone = _cut_questions(rel, tree[rel], s, s.folder in chosen, keep, set(withheld.get(s.id, ())))
        dropped += gone
        if text is None:
            del tree[rel]
        else:
            tree[rel] = text.encode()
            kept_folders.add(s.folder)
    tree["chapters/manifest.toml"] = _cut_manifest(head["chapters/manifest.toml"], chapter, assignment,
                                                   kept_folders, withheld).encode()
    tree["README.md"] = release_readme.readme(assignment, {sid: len(ids) for sid, ids in withheld.items()}).encode()
    tree[".gitignore"] = release_readme.GITIGNORE.encode()
    tree[untouched_stubs.HANDED_OUT] = untouched_stubs.record_of(
        {rel: data for rel, data in tree.items() if rel.startswith("exercises/")})
    tree[release_readme.MARKER] = release_readme.marker(assignment, commit, created).encode()
    tree[RELEASE_FILE] = to_toml(assignment).encode()
    out = {rel: (bool(modes.get(rel, 0) & 0o111), data) for rel, data in tree.items()}
    return out, {"withheld": withheld, "quoted": quoted, "dropped_formulas": sorted(dropped)}
