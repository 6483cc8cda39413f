"""The last check before a release is written: no line of a reference solution in any file.

The lines searched for are those of every BEGIN SOLUTION ... END SOLUTION region of solutions/
(regions.py), every section's, whether handed out or not. Some are not secrets and are left out
of the search, each for a reason:

- lines shorter than MIN_LENGTH once blanks are collapsed (a lone "}", "float sum = 0;"),
  and GENERIC ones, which are the CUDA dialect's own words and in the grader's runtime too:
  finding them proves nothing about a solution;
- lines a stub's prompt already gives every student (the 7.4 stub spells out its N_ds declaration).

A hit in given code (GIVEN: headers the stubs #include, such as 7.3's copy_mask_to_constant for the
7.4 and 7.5 stubs) is the workbook's design, not a leak of the release: it is reported, not refused.
"""
import re

from ...core.regions import solution_regions

MIN_LENGTH = 16
GENERIC = {"__syncthreads();", "return cudaSuccess;"}
GIVEN = "grader/include/halo/given/"


def normalise(line):
    return " ".join(line.split())


def _variants(line):
    """The line, and the line without its trailing // comment (a copy that drops the comment
    still copies the solution)."""
    return {normalise(line), normalise(re.sub(r"//.*$", "", line))}


def _text(data):
    return data.decode("utf-8", errors="replace") if b"\0" not in data else None


def secret_lines(files):
    """{normalised line: the solution file it comes from} from the repository's files
    ({path: bytes}): the lines of the SOLUTION regions worth searching for (see the module doc)."""
    stubs = "\n".join(normalise(line) for rel, data in files.items()
                      if rel.startswith("exercises/") and _text(data) is not None
                      for line in _text(data).splitlines())
    found = {}
    for rel, data in sorted(files.items()):
        if not rel.startswith("solutions/") or _text(data) is None:
            continue
        for region in solution_regions(_text(data)):
            for line in region.splitlines():
                for s in _variants(line):
                    if len(s) >= MIN_LENGTH and s not in GENERIC and s not in stubs:
                        found.setdefault(s, rel)
    return found


def find(tree, secrets):
    """[(path, line, solution file)] for every secret line found in the release ({path: bytes})."""
    hits = []
    for rel, data in sorted(tree.items()):
        text = _text(data)
        if text is None:
            continue
        flat = "\n".join(normalise(line) for line in text.splitlines())
        hits += [(rel, s, src) for s, src in sorted(secrets.items()) if s in flat]
    return hits
