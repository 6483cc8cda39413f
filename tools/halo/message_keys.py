"""Message keys: a short, stable name for each kind of thing the grader tells a student, read from
the text it prints. The learner corpus (grader/learners/) names the key its kernel's first
failure must have; a class report can count students per key.

A failure message's key is the key of the first of its lines that one of the patterns below
matches, patterns tried in this order (the precise before the general)."""
import re

KEYS = [
    ("refused", r"is not allowed in a kernel file"),
    ("not-compiled", r"does not compile|error: "),
    ("stub", r"still a stub|has not been written yet"),
    ("assert", r"device-side assertion failed"),
    ("out-of-bounds-shared", r"out-of-bounds access: (?:read of|write to) \S+ in shared memory"),
    ("out-of-bounds-constant", r"out-of-bounds access: (?:read of|write to) \S+ in constant memory"),
    ("mask-overrun", r"out-of-bounds access: read of .*past the end of the mask"),
    ("ghost-cell-loaded", r"out-of-bounds access: read of .*a ghost cell"),
    ("out-of-bounds", r"out-of-bounds access"),
    ("pitch-padding", r"access to pitch padding"),
    ("write-to-input", r"write to an input"),
    ("two-writers", r"shared-memory race: .*two threads store into one cell"),
    ("shared-race", r"shared-memory race"),
    ("uninitialised-shared", r"read of uninitialised shared memory"),
    ("barrier-divergence", r"barrier divergence"),
    ("timeout", r"launch did not finish|did not reply within"),
    ("crash", r"\bcrash\b|killed by signal"),
    ("launch-config", r"launch .* failed: cudaError|gave grid .* block"),
    ("hint", r"^\s*hint: "),
    ("unwritten-outputs", r"elements? of \w+ (?:were|was) never written"),
    ("wrong-values", r"elements? of \w+ (?:are|is) wrong"),
    ("loads", r"MISMATCH|loaded \d+ elements of"),
]
_COMPILED = [(key, re.compile(pattern)) for key, pattern in KEYS]


def key_of(message):
    """The key of a failure message, or "other"."""
    for line in message.splitlines():
        for key, pattern in _COMPILED:
            if pattern.search(line):
                return key
    return "other"

