"""What a class got wrong, from the grade results of many submissions: the building blocks of the
class report that `./workbook grade-class` is to write (the course-pipeline issue).

- mistakes(): per section, which students made each mistake, by message key (message_keys.py),
  counting every distinct cause of a student's failures once (failure_groups.py: the grouping the
  terminal shows), and which tests failed most.
- identical_kernels(): groups of students whose kernel files are the same once comments,
  whitespace and the names they chose are set aside; a kernel equal to the stub or to the
  reference solution is set aside (kernel_digest()): many students hand those in unchanged
  without copying from one another.
- render(): all of it as Markdown, each key with its legend line (message_keys.LEGEND, the
  table docs/grader.md holds too) and the students who made it: the report is for staff only.
The histogram of mistakes is drawn by mistake_histogram.py."""
import hashlib
import re
from collections import Counter, defaultdict

from ..core.failure_groups import group
from ..core.message_keys import LEGEND

TIED_SHOWN = 10      # tests listed of one count in "Tests failed most"; the rest are counted
STUB, REFERENCE = "stub", "reference"  # kernel_digest()'s answer for a kernel that is no one's own

# Words kept as they are when kernels are compared: C++ keywords and types, the CUDA dialect and
# the chapter's given names. Every other identifier is a name the student chose.
_KEPT = set("""
alignas alignof auto bool break case char class const constexpr continue default delete do double else enum
extern false float for goto if inline int long namespace new nullptr operator private public return short signed
sizeof static static_cast struct switch template this true typedef typename union unsigned using void volatile
while size_t uint32_t uint64_t int64_t
__global__ __device__ __host__ __shared__ __constant__ __restrict__ __forceinline__ __launch_bounds__
__syncthreads threadIdx blockIdx blockDim gridDim warpSize x y z w dim3 float4 make_float4 __ldg min max fminf
fmaxf atomicAdd printf assert __shfl_sync __shfl_up_sync __shfl_down_sync __shfl_xor_sync __ballot_sync
N M P F N_ds Mask_Width Width width height pitch r TILE_SIZE MAX_MASK_WIDTH O_TILE_WIDTH IN_TILE_DIM
OUT_TILE_DIM TILE_DIM MAX_FILTER_RADIUS F_c
""".split())
_TOKEN = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|\S")


def empty():
    """One section's counts before any student: see mistakes()."""
    return {"keys": Counter(), "who": defaultdict(list), "tests": Counter(), "students": 0}


def mistakes(results_by_student):
    """{section: {"keys": Counter(key -> students), "who": {key: [student]}, "tests": Counter(test
    -> students), "students": n}} from {student: results.json contents}."""
    out = defaultdict(empty)
    for student in sorted(results_by_student):
        res = results_by_student[student]
        for sid in res.get("sections", {}):
            out[sid]["students"] += 1
            failed = [t for t in res.get("tests", []) if t.get("section") == sid and t.get("status") == "failed"
                      and t.get("kind") != "answers"]
            keys = {g.key for g in group([(t["name"], t.get("message", "")) for t in failed])}
            out[sid]["keys"].update(keys)
            for key in sorted(keys):
                out[sid]["who"][key].append(student)
            out[sid]["tests"].update({t["name"] for t in failed})
    return dict(out)


def add(total, one):
    """Adds one student's (or one shard's) mistakes() to the class's, in sorted order: mistakes()
    counts from sets, and the report lists ties in the order counted, so that a sharded collect
    and an unsharded run write the same report."""
    for sid, m in one.items():
        into = total.setdefault(sid, empty())
        for kind in ("keys", "tests"):
            for name in sorted(m[kind]):
                into[kind][name] += m[kind][name]
        for key in sorted(m["who"]):
            into["who"][key].extend(m["who"][key])
        into["students"] += m["students"]
    return total


def normalised(source):
    """The kernel file's tokens with comments and layout gone and chosen names numbered in order
    of first appearance: two files differing only in those normalise alike."""
    text = re.sub(r"/\*.*?\*/", " ", source, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    names = {}
    tokens = []
    for tok in _TOKEN.findall(text):
        if (tok[0].isalpha() or tok[0] == "_") and tok not in _KEPT:
            tok = names.setdefault(tok, f"v{len(names)}")
        tokens.append(tok)
    return " ".join(tokens)


def kernel_digest(text, stub="", reference=""):
    """A student's kernel text as identical_kernels() compares it: STUB or REFERENCE when it
    normalises like the stub or the reference solution (both given normalised), else a hash
    of its normalised form."""
    norm = normalised(text)
    if norm == stub:
        return STUB
    if reference and norm == reference:
        return REFERENCE
    return hashlib.sha256(norm.encode()).hexdigest()


def identical_kernels(kernels_by_student, stub="", reference=""):
    """(groups, same as the reference): groups are sorted lists of two students or more whose
    kernels normalise alike, from {student: kernel file text} (several files of one student:
    joined in a fixed order first); kernels like the stub or the reference are in no group."""
    by_digest = defaultdict(list)
    for student, text in kernels_by_student.items():
        by_digest[kernel_digest(text, normalised(stub) if stub else "",
                                normalised(reference) if reference else "")].append(student)
    return groups_of(by_digest)


def groups_of(by_digest):
    """identical_kernels()'s answer from {kernel_digest: [student]}."""
    groups = sorted(sorted(g) for d, g in by_digest.items() if len(g) > 1 and d not in (STUB, REFERENCE))
    return groups, sorted(by_digest.get(REFERENCE, []))


def ranked(tests, most):
    """[(students, [test names], how many more tied)] for "Tests failed most": whole counts, most
    first, until `most` tests are listed; a count is never cut short of its ties (only its list,
    past TIED_SHOWN, is counted rather than named)."""
    by_count = defaultdict(list)
    for name, n in tests.items():
        by_count[n].append(name)
    out, listed = [], 0
    for n in sorted(by_count, reverse=True):
        if listed >= most:
            break
        names = sorted(by_count[n])
        out.append((n, names[:TIED_SHOWN], len(names) - min(len(names), TIED_SHOWN)))
        listed += len(names)
    return out


def _students(n):
    return f"{n} student{'s' if n != 1 else ''}"


def render(sections, per_section, kernels_by_section, most=5, histogram=None):
    """The class report in Markdown: `sections` orders the ids, `per_section` is mistakes()'s
    result, `kernels_by_section` identical_kernels()'s (groups, same as the reference) per
    section; `histogram` names the picture of the mistakes, when one was written."""
    lines = ["# Class report", "", "For staff only: it names students.", ""]
    if histogram:
        lines += [f"![Students per mistake, by section]({histogram})", ""]
    for sid in sections:
        m = per_section.get(sid)
        if not m:
            continue
        lines += [f"## {sid} ({_students(m['students'])})", "",
                  "| mistake (message key) | students | what it is | who |", "|---|---|---|---|"]
        lines += [f"| `{key}` | {n} | {LEGEND.get(key, '')} | {', '.join(sorted(m['who'].get(key, [])))} |"
                  for key, n in sorted(m["keys"].items(), key=lambda kn: (-kn[1], kn[0]))] or ["| (none) | 0 | | |"]
        lines += ["", "Tests failed most:", ""]
        for n, names, more in ranked(m["tests"], most):
            tied = f", tied ({len(names) + more} tests)" if len(names) + more > 1 else ""
            lines.append(f"- by {_students(n)} each{tied}:" if tied else f"- by {_students(n)}:")
            lines += [f"  - {name}" for name in names]
            if more:
                lines.append(f"  - and {more} more tests failed by {_students(n)} each")
        if not m["tests"]:
            lines.append("- (none)")
        groups, reference = kernels_by_section.get(sid, ([], []))
        if groups:
            lines += ["", "Identical kernels (comments, layout and names aside; the stub and the reference "
                      "solution are no one's copy):", ""]
            lines += [f"- {', '.join(g)}" for g in groups]
        if reference:
            lines += ["", f"Kernels the same as the reference solution: {', '.join(reference)}"]
        lines.append("")
    return "\n".join(lines)
