"""A section's failing tests, grouped by cause and ordered most telling first: what the terminal
shows after a grade, and what the learner corpus checks ("the first entry shown").

Two failures have the same cause when their message keys (message_keys.py) agree and so do the
lines that gave the key, numbers aside ("3 of 25 elements of P are wrong" and "7 of 40 ..." are
one cause, seen at two sizes). Groups come in the order of message_keys.KEYS (a memory error
before the wrong values it explains, a named misconception before the bare wrong values), ties
in test order."""
import re
from dataclasses import dataclass, field

from . import message_keys

_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:e[-+]?\d+)?")


@dataclass
class Group:
    key: str
    message: str                                   # the first test's message, in full
    names: list = field(default_factory=list)      # the tests of this cause, in test order


def _cause(message):
    key, line = message_keys.key_and_line(message)
    line = _NUMBER.sub("#", line)
    return key, re.sub(r"# (\w+?)s\b", r"# \1", line).strip()  # "1 element" and "7 elements" alike


def group(failures):
    """failures: (test name, message) pairs in test order. Returns Groups, most telling first."""
    groups = {}
    for name, message in failures:
        cause = _cause(message)
        if cause not in groups:
            groups[cause] = Group(cause[0], message)
        groups[cause].names.append(name)
    rank = {key: k for k, (key, _) in enumerate(message_keys.KEYS)}
    order = sorted(groups, key=lambda c: rank.get(c[0], len(rank)))  # stable: ties keep test order
    return [groups[c] for c in order]


def failure_message(output):
    """The part of a test's output a student should read: doctest's error lines onwards, or
    the whole (short) output of the Python checks."""
    lines = output.rstrip().splitlines()
    for k, line in enumerate(lines):
        if "ERROR:" in line:
            body = []
            for rest in lines[k:]:
                if rest.startswith("====") or rest.startswith("[doctest]"):
                    break
                body.append(rest)
            text = "\n".join(body)
            return re.sub(r"^.*?:\d+: (FATAL )?ERROR: ", "", text, count=1).strip()
    return "\n".join(lines[-30:])


def doctest_failures(output):
    """(test case, message) for each failing test case in a doctest binary's whole output."""
    out = []
    chunks = re.split(r"^TEST CASE:\s+", output, flags=re.MULTILINE)[1:]
    for chunk in chunks:
        name, _, body = chunk.partition("\n")
        if "ERROR:" in body:
            out.append((name.strip(), failure_message(body)))
    return out
