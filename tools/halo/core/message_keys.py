"""Message keys: a short, stable name for each kind of thing the grader tells a student, read from
the text it prints. The learner corpus (grader/learners/) names the key its kernel's first
failure must have; a class report can count students per key.

A failure message's key is that of the first pattern below that matches any of its lines (the
lines a kernel printed aside), so the order is the order of precedence: a mistake in how the
kernel maps threads to data (which explains everything after it), then a memory error or race
(proved by the instrumentation), then a mistake named because the outputs equal what it
produces (a strong hint, but a coincidence is possible), then the bare symptoms."""
import re

# Mistakes in the mapping of threads to data, named by the section tests' hints.
MAPPING = [
    ("other-tile-design", r"hint: .*blocks of the output tile"),
    ("block-size-fixed", r"hint: .*index the tile with blockDim"),
    ("thread-index-mixup", r"hint: .*threadIdx\.z"),
    ("pitch-ignored", r"hint: .*as if P were not pitched"),  # explains its writes to the padding
]

# Mistakes named by the outputs they produce (hint lines of compare.cpp, conv1d/2d.cpp, sections).
DIAGNOSES = [
    ("copy-size", r"hint: .*counts bytes"),
    ("transposed", r"hint: .*(?:transposed|rows and columns \(y and x\) are swapped)"),
    ("flipped-mask", r"hint: .*mask (?:reversed|rotated by 180)"),
    ("radius-fixed", r"hint: .*a radius of \d+ in place of"),
    ("shifted-output", r"hint: .*(?:first element over N\[i - n [-+]|input tile shifted|equals the right result for P\[)"),
    ("first-input-skipped", r"hint: .*left out, as if it were a ghost cell"),
    ("clamped-edges", r"hint: .*edges (?:clamped|replicated)"),
    ("int-accumulator", r"hint: .*whole number"),
    ("halo-cells", r"hint: .*(?:left halo|right halo|of an edge of its block's tile)"),
    ("missing-barrier", r"hint: .*(?:__syncthreads\(\) must separate|no thread waited for the tile|must wait at "
                        r"__syncthreads|came before any __syncthreads)"),
    ("tile-stride", r"hint: .*output tiles were placed IN_TILE_DIM apart"),
    ("partial-vector", r"hint: .*partial vector"),
]

KEYS = [
    ("refused", r"is not allowed in a kernel file"),
    ("not-compiled", r"does not compile|error: "),
    ("todo-left-in", r"HALO_TODO line is still there"),  # before "stub": its notes name the TODO too
    ("stub", r"still a stub|has not been written yet"),
    ("assert", r"device-side assertion failed"),
    *MAPPING,
    ("out-of-bounds-shared", r"out-of-bounds access: (?:read of|write to) \S+ in shared memory"),
    ("out-of-bounds-constant", r"out-of-bounds access: (?:read of|write to) \S+ in constant memory"),
    ("mask-overrun", r"out-of-bounds access: read of .*past the end of the mask"),
    ("ghost-cell-loaded", r"out-of-bounds access: read of .*a ghost cell"),
    ("unguarded-store", r"out-of-bounds access: write to .*no output"),
    ("out-of-bounds", r"out-of-bounds access"),
    ("pitch-padding", r"access to pitch padding"),
    ("write-to-input", r"write to an input"),
    ("two-writers", r"shared-memory race: .*two threads store into one cell"),
    ("shared-race", r"shared-memory race"),
    ("block-race", r"race between blocks"),
    ("uninitialised-shared", r"read of uninitialised shared memory"),
    ("barrier-divergence", r"barrier divergence"),
    ("timeout", r"launch did not finish|did not reply within|ran past \d+ s and was stopped"),
    ("work-limit", r"too many memory accesses in one thread"),
    ("crash", r"\bcrash\b|killed by signal"),
    ("launch-config", r"launch .* failed: cudaError|gave (?:grid|block) .*(?:block|expected)"),
    *DIAGNOSES,
    ("hint", r"^\s*hint: "),
    ("unwritten-outputs", r"elements? of \w+ (?:were|was) never written"),
    ("wrong-values", r"elements? of \w+ (?:are|is) wrong"),
    ("loads", r"MISMATCH|loaded \d+ elements of"),
]
_COMPILED = [(key, re.compile(pattern)) for key, pattern in KEYS]


def key_and_line(message):
    """The key of a failure message and the line that gave it; ("other", first line) when none."""
    lines = message.splitlines()
    printed = next((k for k, line in enumerate(lines) if line.startswith("the kernel printed ")), len(lines))
    for key, pattern in _COMPILED:
        for line in lines[:printed]:
            if pattern.search(line):
                return key, line
    return "other", lines[0] if lines else ""


def key_of(message):
    """The key of a failure message, or "other"."""
    return key_and_line(message)[0]

