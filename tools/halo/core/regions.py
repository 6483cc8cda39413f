"""Turns a solution file into its stub: each `// BEGIN SOLUTION ... // END SOLUTION` region
is replaced by the preceding `// BEGIN PROMPT ... // END PROMPT` region with one level of `//`
taken off its lines (or by a default TODO when there is no prompt)."""
import re

MARKER = re.compile(r"^(\s*)//\s*(BEGIN|END)\s+(SOLUTION|PROMPT)\s*$")
# Anything that looks like a marker but is not one exactly (case, spelling) is an error, so a
# misspelt pair can never let solution code through into a stub.
NEAR_MARKER = re.compile(r"^\s*//\s*(begin|end)\s+(solution|prompt)", re.IGNORECASE)
DEFAULT_PROMPT = 'HALO_TODO("write this part");'


class RegionError(Exception):
    """A marker problem, reported as `file:line: what`."""


def _uncomment(line, path, lineno):
    m = re.match(r"^(\s*)// ?(.*)$", line)
    if not m:
        raise RegionError(f"{path}:{lineno}: a line inside a PROMPT region must start with //")
    return (m.group(1) + m.group(2)).rstrip()


def make_stub(text, path="<text>"):
    """The stub for a solution file's text. Raises RegionError on nested, unclosed or stray markers."""
    out = []
    prompt = None            # lines of the prompt waiting for its SOLUTION region
    state = "code"           # code | prompt | solution
    opened_at = 0
    for lineno, line in enumerate(text.splitlines(keepends=True), start=1):
        m = MARKER.match(line.rstrip("\r\n"))
        if not m and NEAR_MARKER.match(line):
            raise RegionError(f"{path}:{lineno}: malformed marker {line.strip()!r}; write // BEGIN SOLUTION, "
                              "// END SOLUTION, // BEGIN PROMPT or // END PROMPT exactly")
        if not m:
            if state == "prompt":
                prompt.append(_uncomment(line.rstrip("\n"), path, lineno) + "\n")
            elif state == "code":
                if prompt is not None:
                    raise RegionError(f"{path}:{opened_at}: a PROMPT region must be followed directly by a SOLUTION region")
                out.append(line)
            continue
        indent, edge, kind = m.groups()
        if edge == "BEGIN":
            if state != "code":
                raise RegionError(f"{path}:{lineno}: BEGIN {kind} inside the {state.upper()} region opened on line {opened_at}; regions do not nest")
            if kind == "SOLUTION":
                out.extend(prompt if prompt is not None else [indent + DEFAULT_PROMPT + "\n"])
                prompt = None
            else:
                if prompt is not None:
                    raise RegionError(f"{path}:{lineno}: two PROMPT regions in a row")
                prompt = []
            state, opened_at = kind.lower(), lineno
        else:
            if state != kind.lower():
                raise RegionError(f"{path}:{lineno}: END {kind} without a matching BEGIN {kind}")
            state = "code"
            if kind == "PROMPT":
                opened_at = lineno
    if state != "code":
        raise RegionError(f"{path}:{opened_at}: {state.upper()} region is never closed")
    if prompt is not None:
        raise RegionError(f"{path}:{opened_at}: a PROMPT region must be followed directly by a SOLUTION region")
    return "".join(out)


def solution_regions(text):
    """The text of every SOLUTION region, for checks that no solution leaks into a stub."""
    regions, current = [], None
    for line in text.splitlines():
        m = MARKER.match(line)
        if m and m.group(3) == "SOLUTION":
            if m.group(2) == "BEGIN":
                current = []
            elif current is not None:
                regions.append("\n".join(current))
                current = None
        elif current is not None:
            current.append(line)
    return regions
