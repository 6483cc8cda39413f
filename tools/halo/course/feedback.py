"""A student's feedback file from their grade results: verdicts and points per section, the first
message of every distinct failure (grouped as the terminal groups them), the load report, the
answers, and which files were graded. Written as Markdown and as HTML from one list of blocks,
so the two never say different things. No dependency: the HTML is escaped by hand."""
from __future__ import annotations

import html
import re

from ..core import results as halo_results
from ..core import statuses
from ..core.failure_groups import group
from . import adjusted_scores

MESSAGE_LINES = 12   # lines of one failure message kept in the feedback
LOAD_ROWS = 12       # rows of one load report kept
# A path into the instructor's class folder (absolute, or relative as a message may print it):
# the student's own files are exercises/ in their tree; anything else is the grader's own.
_THEIR_FILES = re.compile(r"[^\s:'\"(\[]*work/students/[^/\s]+/exercises/")
_SECTION_LINE = re.compile(r"\s*(\d+\.\d+-[\w-]+): ")   # "  7.5-cached-1d: nothing submitted ..."
_GRADERS_FILES = re.compile(r"[^\s:'\"(\[]*work/(?:students/[^/\s]+/grade|harness|stubs)/")


def blocks(student, assignment, res, scores, notes="", extras=None):
    """[(kind, content)]: kind is h1, h2, p, pre or table (content: (header, rows)); `extras`
    (adjusted_scores.Extras): the late penalty and adjustments, in the score and their own part."""
    total = float(adjusted_scores.total(scores, extras))  # the gradebook's total, from the same sum
    worth = sum(w for _, w in scores.values())
    out = [("h1", f"{assignment.title}: feedback for {student}"),
           ("p", f"Score: {total:g} of {worth:g} points. Random inputs of this run: HALO_SEED={res.get('seed')} "
                 "./workbook grade replays them.")]
    if extras and (extras.days_late or extras.adjustments):
        out += [("h2", "Late work and adjustments"), ("pre", "\n".join(extras.feedback_lines()))]
    rows = []
    for s in assignment.sections:
        sec = res.get("sections", {}).get(s.id)
        got, w = scores.get(s.id, (0, 0))
        rows.append((s.id, s.title, f"{got:g}/{w:g}", verdict(sec), statuses.section_status(res, s)))
    out.append(("table", (("section", "title", "points", "verdict", "status"), rows)))
    for s in assignment.sections:
        sec = res.get("sections", {}).get(s.id)
        if sec is None:
            continue
        out.append(("h2", f"{s.id} {s.title}"))
        out += _section_blocks(s.id, sec, res.get("tests", []))
    notes = _assignment_notes(notes, assignment)
    if notes:
        out += [("h2", "Files graded"), ("pre", notes)]
    graded = str(res.get("exercises") or "").rstrip("/")
    # Paths as the student's own tree has them: exercises/..., never the grading machine's folders.
    return [(kind, _relative(content, graded)) for kind, content in out]


def _assignment_notes(notes, assignment):
    """The note of which files were graded (intake.take_submission), less its heading and the
    lines of sections the assignment does not grade: a 2-section assignment says nothing of 7.5."""
    folders = {s.folder for s in assignment.sections}
    kept = []
    for line in notes.strip().splitlines():
        section = _SECTION_LINE.match(line)
        if line.strip() == "Files graded:" or (section and section.group(1) not in folders):
            continue
        kept.append(line.strip())
    return "\n".join(kept)


def _localised(text, graded):
    if graded:
        text = text.replace(graded + "/", "exercises/")
    return _GRADERS_FILES.sub("(grader)/", _THEIR_FILES.sub("exercises/", text))


def _relative(content, graded):
    if isinstance(content, str):
        return _localised(content, graded)
    header, rows = content
    return header, [tuple(_localised(str(c), graded) for c in row) for row in rows]


def verdict(sec):
    if sec is None:
        return "not graded"
    if sec.get("build") == "failed":
        return "does not compile"
    if halo_results.section_passed(sec):
        return "passes"
    t, a = sec["tests"], sec["answers"]
    parts = [f"tests {t['passed']}/{t['total']}"] if sec.get("has_kernels", True) else []
    return ", ".join(parts + [f"answers {a['right']}/{a['asked']}"])


def _section_blocks(sid, sec, tests):
    out = []
    if sec.get("build") == "failed":
        out.append(("p", "The kernel file does not compile, so none of its tests ran:"))
        out.append(("pre", "\n".join(halo_results.compiler_errors(sec.get("build_output", ""))[:30])))
        return out
    failed = [t for t in tests if t.get("section") == sid and t.get("status") == "failed"]
    code = [t for t in failed if t.get("kind") != "answers"]
    for g in group([(t["name"], t.get("message", "")) for t in code]):
        more = f" (and {len(g.names) - 1} more failing the same way)" if len(g.names) > 1 else ""
        out.append(("p", f"FAILED {g.names[0]}{more}"))
        out.append(("pre", "\n".join(g.message.splitlines()[:MESSAGE_LINES])))
    for text in sec.get("advice", []):
        out.append(("p", f"Advice (not a failure): {text}"))
    for rec in sec.get("loads", []):
        rows = [(r["array"], r["scope"], f"{r['measured']:,}",
                 ("<= " if r.get("bound") == "at_most" else "") + f"{r['expected']:,}",
                 "ok" if r["ok"] else "MISMATCH") for r in rec.get("rows", [])]
        if rows:
            out.append(("p", f"Loads, {rec.get('launch', '')}:"))
            out.append(("table", (("array", "where", "measured", "expected", ""), rows[:LOAD_ROWS])))
    answers = [t for t in tests if t.get("section") == sid and t.get("kind") == "answers"
               and not t["name"].endswith("the file is well-formed")]
    if answers:
        rows = [(halo_results.parse_name(t["name"])["what"], "right" if t["status"] == "passed" else
                 (t.get("message") or "not right").splitlines()[-1]) for t in answers]
        out.append(("p", f"Answers: {sec['answers']['right']} of {sec['answers']['asked']} right."))
        out.append(("table", (("question", "result"), rows)))
    if not out:
        out.append(("p", "Every test passes."))
    return out


def markdown(bs):
    lines = []
    for kind, content in bs:
        if kind == "h1":
            lines += [f"# {content}", ""]
        elif kind == "h2":
            lines += [f"## {content}", ""]
        elif kind == "p":
            lines += [content, ""]
        elif kind == "pre":
            lines += ["```", content.replace("```", "'''"), "```", ""]
        elif kind == "table":
            header, rows = content
            lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            lines += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows]
            lines.append("")
    return "\n".join(lines)


def to_html(bs, title):
    e = html.escape
    body = []
    for kind, content in bs:
        if kind in ("h1", "h2", "p"):
            body.append(f"<{kind}>{e(content)}</{kind}>")
        elif kind == "pre":
            body.append(f"<pre>{e(content)}</pre>")
        elif kind == "table":
            header, rows = content
            body.append("<table><tr>" + "".join(f"<th>{e(h)}</th>" for h in header) + "</tr>"
                        + "".join("<tr>" + "".join(f"<td>{e(str(c))}</td>" for c in row) + "</tr>" for row in rows)
                        + "</table>")
    # Long lines (a hint, a path, a compiler error) wrap inside the page rather than run off it.
    style = ("body{font-family:sans-serif;max-width:60em;margin:2em auto;overflow-wrap:anywhere}"
             "pre{background:#f4f4f4;padding:.6em;white-space:pre-wrap;overflow-wrap:anywhere}"
             "table{border-collapse:collapse;max-width:100%}td,th{border:1px solid #ccc;padding:.2em .5em;"
             "overflow-wrap:anywhere}")
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{e(title)}</title><style>{style}</style>"
            f"</head><body>\n" + "\n".join(body) + "\n</body></html>\n")
