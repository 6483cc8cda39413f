"""The results of a grade run: read from CTest's JUnit file and the load reports the test
binaries wrote, saved as results.json (what later reporters build on) and printed as a table."""
import datetime
import json
import os
import re
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

from . import own_names, untouched
from .failure_groups import failure_message, group  # noqa: F401  (failure_message: part of this module's API)

NAME = re.compile(r"^(?:(?P<tree>[a-z ]+): )?(?P<section>\d+\.\d+) (?P<slug>\S+) / (?P<kind>[a-z-]+) / (?P<what>.*)$")


def parse_name(name):
    m = NAME.match(name)
    return m.groupdict() if m else {"tree": None, "section": None, "slug": None, "kind": None, "what": name}


def write_junit(tests, out):
    """One JUnit file of the whole grade run (kernel tests, answers, results that never arrived),
    for CI systems and LMSs; each failure's message is its text."""
    suite = ET.Element("testsuite", name="halo", tests=str(len(tests)),
                       failures=str(sum(t["status"] == "failed" for t in tests)),
                       skipped=str(sum(t["status"] == "skipped" for t in tests)))
    for t in tests:
        case = ET.SubElement(suite, "testcase", name=t["name"], classname=t["section"] or "halo",
                             time=f"{t['seconds']:.3f}")
        if t["status"] == "failed":
            first = (t["message"].splitlines() or ["failed"])[0]
            ET.SubElement(case, "failure", message=first).text = t["message"]
            ET.SubElement(case, "system-out").text = t["message"]
        elif t["status"] == "skipped":
            ET.SubElement(case, "skipped")
    write_atomically(out, ET.tostring(suite, encoding="UTF-8", xml_declaration=True))


def write_atomically(path, data):
    """Writes `data` (bytes or text) to `path` through a temporary file and os.replace: a reader
    (an LMS, Gradescope, the next step of a grade) sees the old file or the whole new one,
    never half of one, even when the grade is killed while writing."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        os.chmod(tmp, 0o644)  # mkstemp's 0600 would hide results from a grader reading as another user
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)


def discard(*paths):
    """Removes the outputs of an earlier grade as a new one starts: a grade that then stops
    for any reason leaves no results at all, never the last submission's."""
    for p in paths:
        Path(p).unlink(missing_ok=True)


def _colour(text, code, stream=None):
    """ANSI colour on a terminal (unless NO_COLOR is set), the plain text elsewhere."""
    stream = stream or sys.stdout
    if not stream.isatty() or os.environ.get("NO_COLOR"):
        return text
    return f"\033[{code}m{text}\033[0m"


def read_junit(path):
    tests = []
    if not Path(path).exists():
        return tests
    for case in ET.parse(path).getroot().iter("testcase"):
        name = case.get("name", "")
        status = "passed"
        if case.find("failure") is not None or case.find("error") is not None:
            status = "failed"
        elif case.find("skipped") is not None or case.get("status") in ("notrun", "disabled"):
            status = "skipped"
        out = case.findtext("system-out") or ""
        info = parse_name(name)
        tests.append({
            "name": name, "section": info["section"], "kind": info["kind"], "status": status,
            "message": failure_message(out) if status == "failed" else "",
            "seconds": float(case.get("time", 0) or 0),
        })
    return tests


def _records(report_dir, kind):
    """The records the tests wrote under report_dir/kind, in an order fixed by what they say: each
    file is named after the process that wrote it (grader/testing/load_report.cpp), and which test
    got the lower process id changes from run to run, so the file names' order would too."""
    records = []
    for path in Path(report_dir, kind).glob("*.json"):
        try:
            rec = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(rec, dict):
            records.append(rec)
    return sorted(records, key=lambda rec: json.dumps(rec, sort_keys=True))


def read_loads(report_dir):
    """{section: [record, ...]}, each section's in the order of their launches' words."""
    loads = {}
    for rec in sorted(_records(report_dir, "loads"), key=lambda rec: str(rec.get("launch"))):
        if isinstance(rec.get("section"), str):
            loads.setdefault(rec["section"], []).append(rec)
    return loads


def _advice_records(report_dir):
    for rec in _records(report_dir, "advice"):
        if isinstance(rec.get("section"), str) and isinstance(rec.get("text"), str):
            yield rec


def read_advice(report_dir):
    """{section: [text, ...]} of what the tests advised (grader/testing/advice.hpp), each once."""
    advice = {}
    for rec in _advice_records(report_dir):
        texts = advice.setdefault(rec["section"], [])
        if rec["text"] not in texts:
            texts.append(rec["text"])
    return advice


def mark_advised(tests, report_dir):
    """Adds "advice" (its text) to each test that advised: a right kernel doing more work than the
    book's, which a manifest may score as partial credit (extra_loads = "partial")."""
    by_test = {}
    for rec in _advice_records(report_dir):
        if isinstance(rec.get("test"), str) and rec["test"]:
            by_test.setdefault(rec["test"], rec["text"])
    for t in tests:
        what = re.sub(r"^[a-z ]+: ", "", t.get("name", ""))  # CTest's tree prefix ("gpu: ") aside
        if what in by_test:
            t["advice"] = by_test[what]
    return tests


def missing_results(expected, tests):
    """A failed entry for every expected test that has no result: a test whose result never
    arrived fails, it is never left out of the count."""
    have = {t["name"] for t in tests}
    out = []
    for name in expected:
        if name in have:
            continue
        info = parse_name(name)
        out.append({"name": name, "section": info["section"], "kind": info["kind"], "status": "failed",
                    "message": "no result arrived for this test (it was not run, or its run was stopped before "
                               "it reported)", "seconds": 0.0})
    return out


def not_compiled(names):
    """A failed entry, not run, for each test of a section whose kernel file does not compile."""
    out = []
    for name in names:
        info = parse_name(name)
        out.append({"name": name, "section": info["section"], "kind": info["kind"], "status": "failed",
                    "message": "not run: the section's kernel file does not compile (the build output says why)",
                    "seconds": 0.0})
    return out


def _own_name_advice(chapter, section, exercises):
    """What to know when a kernel file declares one of its section's book names for itself."""
    out = []
    for kernel in getattr(section, "kernels", None) or []:
        path = Path(exercises) / section.folder / kernel
        if path.is_file():
            out += own_names.note_for_section(path.read_text(errors="replace"), chapter.defines, section.id)
    return out


def collect(chapter, sections, tests, loads, build_failures, seed, exercises, isolation=None, advice=None):
    summary = {}
    for s in sections:
        mine = [t for t in tests if t["section"] == s.id]
        code = [t for t in mine if t["kind"] not in ("answers",)]
        ans = [t for t in mine if t["kind"] == "answers" and not t["name"].endswith("the file is well-formed")]
        summary[s.id] = {
            "title": s.title,
            "has_kernels": bool(getattr(s, "kernels", True)),  # 7.1 is questions only
            "build": "failed" if s.id in build_failures else "ok",
            "build_output": build_failures.get(s.id, ""),
            "tests": {"passed": sum(t["status"] == "passed" for t in code),
                      "total": sum(t["status"] != "skipped" for t in code),
                      "not_run": sum(t["status"] == "skipped" for t in code)},
            # "elsewhere": answered, but checked only by the course's autograder (a summative release).
            "answers": {"right": sum(t["status"] == "passed" for t in ans), "asked": len(chapter.questions(s.id)),
                        "elsewhere": sum(t["status"] == "skipped" for t in ans)},
            "loads": loads.get(s.id, []),
            "advice": (advice or {}).get(s.id, []) + _own_name_advice(chapter, s, exercises),
        }
    return {
        "version": 1,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "seed": seed,
        "exercises": str(exercises),
        "isolation": isolation or {"mode": "unknown", "note": ""},
        "tests": tests,
        "sections": summary,
    }


def assemble(chapter, sections, tests, expected, report_dir, failures, seed, exercises, isolation, student):
    """A grade run's results from its test records (kernel tests and answers): an expected test
    with no record fails, advice is attached, and the reports of `report_dir` are read. The one
    way results are made, whether by `grade` (CTest) or `grade-class` (its own runner)."""
    tests = tests + missing_results(expected, tests)
    mark_advised(tests, report_dir)
    res = collect(chapter, sections, tests, read_loads(report_dir), failures, seed, exercises, isolation,
                  read_advice(report_dir))
    res["student"] = student
    return res


def section_passed(s):
    ran = s["tests"]["total"] > 0 if s.get("has_kernels", True) else s["answers"]["asked"] > 0
    return ran and s["build"] == "ok" and s["tests"]["passed"] == s["tests"]["total"] and \
        s["answers"]["right"] + answers_elsewhere(s) == s["answers"]["asked"]


def answers_elsewhere(s):
    """Answers of a section that only the course's autograder can check (results of older runs lack the key)."""
    return s["answers"].get("elsewhere", 0)


def answers_cell(s):
    """The answers column: right of asked, and a '+N*' for answers sent on to the autograder."""
    more = f"+{answers_elsewhere(s)}*" if answers_elsewhere(s) else ""
    return f"{s['answers']['right']}{more}/{s['answers']['asked']}"


ELSEWHERE_NOTE = ("* answered, checked by your course's autograder (this release holds no answer key): "
                  "not counted as right here")


def passed(results):
    return all(t["status"] != "failed" for t in results["tests"]) and \
        all(section_passed(s) for s in results["sections"].values())


def _grouped(n):
    return f"{n:,}"


def loads_cell(section):
    rows = [r for rec in section["loads"] for r in rec["rows"]]
    if not rows:
        return "-"
    bad = sum(not r["ok"] for r in rows)
    return f"{len(rows) - bad}/{len(rows)} match" if bad else f"all {len(rows)} match"


def print_summary(results):
    secs = results["sections"]
    not_run = []
    print()
    w = max([len(s["title"]) for s in secs.values()] + [5])  # whole titles: a cut one reads as a typo
    print(f"{'section':<8} {'title':<{w}}  {'tests':>8}  {'loads vs formulas':<18} {'answers':>8}  verdict")
    for sid, s in secs.items():
        tests = "no build" if s["build"] == "failed" else f"{s['tests']['passed']}/{s['tests']['total']}"
        if not s.get("has_kernels", True):
            tests = "-"  # questions only
        if s["tests"].get("not_run"):
            not_run.append(f"{sid}: {s['tests']['not_run']} tests not run (no GPU here)")
        ok = section_passed(s)
        answers = answers_cell(s)
        print(f"{sid:<8} {s['title']:<{w}}  {tests:>8}  {loads_cell(s):<18} {answers:>8}  "
              f"{_colour('PASS', '32;1') if ok else _colour('not yet', '33')}")
    for line in not_run:
        print(line)
    if any(answers_elsewhere(s) for s in secs.values()):
        print(ELSEWHERE_NOTE)
    for sid, s in secs.items():
        for text in s.get("advice", []):
            print(f"advice ({sid}, not a failure): {text}")
    print_load_reports(secs)


# clang's note under an error in a macro, then the macro's line: one of the grader's [defines],
# which chapter_defines.hpp writes as `#define TILE_SIZE 256  // [section 7.4]` (own_names.HEADER_DEFINE reads it).
_GRADER_MACRO_NOTE = re.compile(r"note: expanded from macro '(\w+)'")


def grader_macro_note(name, value, section):
    """What a student needs to hear when their own declaration of a book name meets the grader's
    macro of that name: the error under their line says only `expected unqualified-id`."""
    return (f"{name} is the grader's macro, defined for every kernel file (#define {name} {value}, from section "
            f"{section}): your line reads with {value} in its place. Section {section}'s tests take {name} to be "
            f"{value}: there, use it as it is; elsewhere, name your constant differently, or step around the macro "
            f"with #pragma push_macro(\"{name}\"), #undef {name} ... #pragma pop_macro(\"{name}\")")


def compiler_errors(output):
    """Each `file:line:col: error:` line with the source line and caret clang prints after it,
    and a line of our own after an error on a name the grader defines as a macro; the whole
    output when there is none (a link error, say)."""
    lines = output.splitlines()
    picked, explained = [], set()
    for k, line in enumerate(lines):
        if " error: " in line or line.startswith("error:"):
            picked += lines[k:k + 3] if k + 2 < len(lines) and "^" in lines[k + 2] else [line]
            for j in range(k + 1, min(len(lines), k + 12)):
                if " error: " in lines[j]:
                    break
                note = _GRADER_MACRO_NOTE.search(lines[j])
                define = own_names.HEADER_DEFINE.match(lines[j + 1]) if note and j + 1 < len(lines) else None
                if define and define.group(1) == note.group(1) and note.group(1) not in explained:
                    explained.add(note.group(1))
                    picked.append("note: " + grader_macro_note(*define.groups()))
    return picked or lines[-30:]


def print_load_reports(sections):
    """Each load report of the sections ({id: section of results}): measured against expected."""
    for sid, s in sections.items():
        for rec in s["loads"]:
            print(f"\n{sid} load report, {rec['launch']}:")
            print(f"  {'array':<6} {'where':<28} {'measured':>14} {'expected':>16}")
            for r in rec["rows"]:
                exp = ("<= " if r["bound"] == "at_most" else "") + _grouped(r["expected"])
                print(f"  {r['array']:<6} {r['scope']:<28} {_grouped(r['measured']):>14} {exp:>16}  "
                      f"{'ok' if r['ok'] else 'MISMATCH'}")


def print_unmeasured(results):
    """One line per section whose right ratio answers could not be compared with the student's
    own kernels in this run: passed tests print nothing else, and this is worth knowing."""
    from .answers import UNMEASURED
    for sid in results["sections"]:
        found = [t for t in results["tests"] if t["section"] == sid and t["kind"] == "answers"
                 and t["status"] == "passed" and UNMEASURED in (t.get("message") or "")]
        if found:
            how = found[0]["message"].split(UNMEASURED, 1)[1].lstrip(": ")
            print(f"note ({sid}): {len(found)} answer{'s' if len(found) > 1 else ''} match the formula but "
                  f"{'were' if len(found) > 1 else 'was'} {UNMEASURED}: {how}")


def print_failures(results, shown=None):
    """Per section: the compile errors, or every distinct failure, grouped by cause (one entry and
    a count for tests that failed the same way) and most telling first (failure_groups.py); what
    is untouched (a stub, no answer yet) in one line of its own (untouched.py)."""
    for sid, s in results["sections"].items():
        if s["build"] == "failed":
            print(f"\n{sid}: the exercise does not compile:\n")
            print("\n".join("    " + line for line in compiler_errors(s["build_output"])[:30]))
            continue
        mine = [t for t in results["tests"] if t["section"] == sid]
        failed = [t for t in mine if t["status"] == "failed"]
        code = [t for t in failed if t["kind"] != "answers"]
        stubs = [t for t in code if untouched.is_stub(t["message"])]
        answers = [t for t in failed if t["kind"] == "answers"]
        unanswered, said = [], {}
        for t in answers:
            lines = t["message"].splitlines()
            if lines and lines[0].endswith(": not answered"):
                unanswered.append(t)
            else:  # wrong or invalid: the line says where and what (a file that does not parse: once)
                said.setdefault(lines[1] if len(lines) > 1 else " ".join(lines), []).append(t["name"])
        slug = next((parse_name(t["name"])["slug"] for t in mine), "")
        asked = s.get("answers", {}).get("asked")
        line = untouched.section_line(sid, slug, [t["message"] for t in stubs], unanswered, asked,
                                      untouched.unanswered_file(unanswered[0]["message"]) if unanswered else None)
        if line:
            print(line)
        _print_groups([t for t in code if t not in stubs], shown)
        for detail, names in said.items():
            more = f" (and {len(names) - 1} more answers tests: the same cause)" if len(names) > 1 else ""
            print(f"FAILED {names[0]}{more}: {detail}")
        if unanswered and len(unanswered) != asked:
            print(f"not answered yet ({sid}): {', '.join(t['message'].split(':')[0] for t in unanswered)}")


def _print_groups(code, shown=None):
    """Each group of failures; the message of the one that holds `shown` (a test whose message
    was shown as it failed, first_failure.py) is not printed twice."""
    for k, g in enumerate(group([(t["name"], t["message"]) for t in code])):
        more = f" (and {len(g.names) - 1} more test{'s' if len(g.names) > 2 else ''} failing the same way)" \
            if len(g.names) > 1 else ""
        print(f"\n{_colour('FAILED', '31;1')} {g.names[0]}{more}")
        if shown in g.names:
            print(f"    (the message above, under {shown})")
        else:
            print("\n".join("    " + line for line in g.message.splitlines()[:25 if k == 0 else 12]))
        for name in g.names[1:6]:
            print(f"    also: {name}")
        if len(g.names) > 6:
            print(f"    ... and {len(g.names) - 6} more")


def save(results, path):
    write_atomically(path, json.dumps(results, indent=2) + "\n")
