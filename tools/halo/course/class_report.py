"""What a class got wrong, from the grade results of many submissions: the building blocks of the
class report that `./workbook grade-class` is to write (the course-pipeline issue).

- mistakes(): per section, how many students made each mistake, by message key
  (message_keys.py), counting every distinct cause of a student's failures once
  (failure_groups.py: the grouping the terminal shows), and which tests failed most.
- identical_kernels(): groups of students whose kernel files are the same once comments,
  whitespace and the names they chose are set aside.
- render(): both as Markdown."""
import hashlib
import re
from collections import Counter, defaultdict

from ..core.failure_groups import group

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


def mistakes(results_by_student):
    """{section: {"keys": Counter(key -> students), "tests": Counter(test -> students),
    "students": n}} from {student: results.json contents}."""
    out = defaultdict(lambda: {"keys": Counter(), "tests": Counter(), "students": 0})
    for res in results_by_student.values():
        for sid in res.get("sections", {}):
            out[sid]["students"] += 1
            failed = [t for t in res.get("tests", []) if t.get("section") == sid and t.get("status") == "failed"
                      and t.get("kind") != "answers"]
            out[sid]["keys"].update({g.key for g in group([(t["name"], t.get("message", "")) for t in failed])})
            out[sid]["tests"].update({t["name"] for t in failed})
    return dict(out)


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


def identical_kernels(kernels_by_student):
    """Groups (sorted lists, two students or more) whose kernels normalise alike, from
    {student: kernel file text} (several files of one student: joined in a fixed order first)."""
    by_hash = defaultdict(list)
    for student, text in kernels_by_student.items():
        by_hash[hashlib.sha256(normalised(text).encode()).hexdigest()].append(student)
    return sorted(sorted(g) for g in by_hash.values() if len(g) > 1)


def render(sections, per_section, groups_by_section, most=5):
    """The class report in Markdown: `sections` orders the ids, `per_section` is mistakes()'s
    result, `groups_by_section` identical_kernels()'s per section."""
    lines = ["# Class report", ""]
    for sid in sections:
        m = per_section.get(sid)
        if not m:
            continue
        lines += [f"## {sid} ({m['students']} students)", "", "| mistake (message key) | students |", "|---|---|"]
        lines += [f"| {key} | {n} |" for key, n in m["keys"].most_common()] or ["| (none) | 0 |"]
        lines += ["", "Tests failed most:", ""]
        lines += [f"- {name}: {n}" for name, n in m["tests"].most_common(most)] or ["- (none)"]
        groups = groups_by_section.get(sid, [])
        if groups:
            lines += ["", "Identical kernels (comments, layout and names aside):", ""]
            lines += [f"- {', '.join(g)}" for g in groups]
        lines.append("")
    return "\n".join(lines)
