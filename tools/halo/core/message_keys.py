"""Message keys: a short, stable name for each kind of thing the grader tells a student, read from
the text it prints. The learner corpus (grader/learners/) names the key its kernel's first
failure must have; a class report can count students per key.

A failure message's key is that of the first pattern below that matches any of its lines (the
lines a kernel printed aside), so the order is the order of precedence: a mistake in how the
kernel maps threads to data (which explains everything after it), then a memory error or race
(proved by the instrumentation), then a mistake named because the outputs equal what it
produces (a strong hint, but a coincidence is possible), then the bare symptoms."""
import functools
import re

# Mistakes in the mapping of threads to data, named by the section tests' hints.
MAPPING = [
    ("other-tile-design", r"hint: .*blocks of the output tile"),
    ("block-size-fixed", r"hint: .*index the tile with blockDim"),
    ("thread-index-mixup", r"hint: .*threadIdx\.z"),
    ("axes-swapped", r"hint: .*when x and y are swapped"),
    ("shared-index-shifted", r"hint: .*the index into N_ds is off by"),  # explains its reads past the tile
    ("pitch-ignored", r"hint: .*as if P were not pitched"),  # explains its writes to the padding
]

# Mistakes named by the outputs they produce (hint lines of compare.cpp, conv1d/2d.cpp, sections).
DIAGNOSES = [
    ("copy-size", r"hint: .*counts bytes"),
    ("transposed", r"hint: .*(?:transposed|rows and columns \(y and x\) are swapped)"),
    ("flipped-mask", r"hint: .*mask (?:reversed|rotated by 180|mirrored)"),
    ("radius-fixed", r"hint: .*(?:a radius of \d+ in place of|loops? (?:over the mask )?fixed to \d+)"),
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
    ("misaligned", r"misaligned address"),
    ("write-to-input", r"write to an input"),
    ("two-writers", r"shared-memory race: .*two threads store into one cell"),
    ("shared-race", r"shared-memory race"),
    ("block-race", r"race between blocks"),
    ("uninitialised-shared", r"read of uninitialised shared memory"),
    ("barrier-divergence", r"barrier divergence"),
    # judge_runs' wall-clock limit says "did not finish within N s"; "ran past N s and was stopped" is what
    # grade-class wrote before it ran tests through judge_runs, kept for the results it stored then
    # (a later grade-class run of the class reads them back).
    ("timeout", r"launch did not finish|did not reply within|did not finish within \d+ s|ran past \d+ s and was stopped"),
    ("work-limit", r"too many memory accesses in one thread"),
    ("crash", r"\bcrash\b|killed by signal"),
    ("launch-config", r"launch .* failed: cudaError|gave (?:grid|block) .*(?:block|expected)"),
    *DIAGNOSES,
    ("hint", r"^\s*hint: "),
    ("unwritten-outputs", r"elements? of \w+ (?:were|was) never written"),
    ("wrong-values", r"elements? of \w+ (?:are|is) wrong"),
    ("loads", r"MISMATCH|loaded \d+ elements of"),
]
# One line per key, saying what the mistake is: the class report's legend and the table in
# docs/grader.md ("Message keys") both come from here (a test holds the docs to it).
LEGEND = {
    "refused": "the kernel file uses something not allowed in a kernel file, so none of it ran",
    "not-compiled": "the kernel file does not compile",
    "stub": "the kernel is still the stub: nothing was written",
    "todo-left-in": "the kernel does its work, but the stub's HALO_TODO line is still in it",
    "assert": "a device-side assert in the kernel failed",
    "other-tile-design": "the kernel is written for the other tile design (blocks the size of the output tile)",
    "block-size-fixed": "the tile is indexed with a fixed size where blockDim is due",
    "thread-index-mixup": "the row is built from threadIdx.z (0 in a 2D block), so only each block's first row is written",
    "axes-swapped": "the row is built from the x indices and the column from the y ones (x and y swapped)",
    "shared-index-shifted": "the index into the shared tile is off by some cells (N_ds[n + tx + j] for N_ds[tx + j])",
    "pitch-ignored": "a pitched array is indexed as if it were not pitched",
    "out-of-bounds-shared": "a read or write outside a shared-memory array",
    "out-of-bounds-constant": "a read or write outside a constant-memory array",
    "mask-overrun": "a read past the end of the mask",
    "ghost-cell-loaded": "a ghost cell (outside the input) was read instead of taken as 0",
    "unguarded-store": "a thread with no output stores past the end of P: the store is not guarded",
    "out-of-bounds": "an access outside an array, of another kind than those above",
    "pitch-padding": "an access to the padding of a pitched row",
    "misaligned": "a float4 (16-byte) access at an address that is not a multiple of 16",
    "write-to-input": "the kernel writes to an input array",
    "two-writers": "two threads store into one shared-memory cell",
    "shared-race": "a race on shared memory (a read and a write of one cell with no barrier between)",
    "block-race": "a block reads a global element another block of the same launch writes (nothing orders blocks)",
    "uninitialised-shared": "shared memory is read before any thread wrote it",
    "barrier-divergence": "__syncthreads() is reached by some threads of a block and not others",
    "timeout": "a launch did not finish in time (an endless loop, say)",
    "work-limit": "one thread made far more memory accesses than the chapter's kernels need",
    "crash": "the test process crashed",
    "launch-config": "the launch failed or used another grid or block than the test gave",
    "copy-size": "a copy counts elements where cudaMemcpy counts bytes",
    "transposed": "the output is the right one transposed (rows and columns swapped)",
    "flipped-mask": "the mask is applied reversed (in 2D rotated by 180 degrees, or mirrored along one axis)",
    "radius-fixed": "the mask radius, or the length of the loop over the mask, is a fixed number in place of the one given",
    "shifted-output": "the outputs are right but shifted (the input tile or the first element is off by some)",
    "first-input-skipped": "the first input element is left out, as if it were a ghost cell",
    "clamped-edges": "the edges are clamped (replicated) where ghost cells are 0",
    "int-accumulator": "the sum is kept in an integer, so every output is a whole number",
    "halo-cells": "the left or right halo of a tile is loaded wrong",
    "missing-barrier": "no __syncthreads() between loading the tile and using it",
    "tile-stride": "output tiles are placed IN_TILE_DIM apart, not OUT_TILE_DIM",
    "partial-vector": "outputs near the last, partial vector of a row are wrong",
    "hint": "a mistake a test's hint names, of another kind than those above",
    "unwritten-outputs": "some outputs were never written",
    "wrong-values": "some outputs are wrong, with no more telling cause found",
    "loads": "the global loads of an array are not the counts the chapter derives",
    "other": "a failure none of the patterns above names",
}


@functools.lru_cache(maxsize=None)
def _compiled():
    """KEYS compiled when a message is first read: most processes that import this (every grade,
    every answers check) read none, and the forty patterns cost each of them about 5 ms."""
    return [(key, re.compile(pattern)) for key, pattern in KEYS]


def key_and_line(message):
    """The key of a failure message and the line that gave it; ("other", first line) when none."""
    lines = message.splitlines()
    printed = next((k for k, line in enumerate(lines) if line.startswith("the kernel printed ")), len(lines))
    for key, pattern in _compiled():
        for line in lines[:printed]:
            if pattern.search(line):
                return key, line
    return "other", lines[0] if lines else ""


def legend_table():
    """The Markdown table of every key and its line, in the order of precedence: docs/grader.md
    holds it verbatim (a test checks), so the docs and the class report never differ."""
    rows = [f"| `{key}` | {LEGEND[key]} |" for key, _ in KEYS] + [f"| `other` | {LEGEND['other']} |"]
    return "\n".join(["| key | the mistake |", "|---|---|", *rows])


def key_of(message):
    """The key of a failure message, or "other"."""
    return key_and_line(message)[0]

