"""`extern "C"` kernels.

nvcc accepts `extern "C" __global__ void kernel(...)`, and some courses write kernels that way so
that a C host program or a driver-API loader can find them by name. The grader's tests declare each
kernel as C++ and reach it by its C++ symbol, and the validator refuses any definition with a C name
(a C name can replace a library or runtime function). So the compile reads such a file with the
`extern "C"` taken out before its kernels: a kernel's linkage changes nothing in what it computes or
loads. Spaces replace the removed text, so every line and column stays where the student wrote it.

Only kernels lose their C linkage. An `extern "C" { ... }` block is opened only when everything it
declares is a `__global__` function; one that also declares a helper or a variable is left as it is,
and the validator names that helper or variable as a definition with a C name.
"""
import re

from .source_text import code_only

_LINKAGE = r'\bextern\s*"C"\s*'
_BEFORE_KERNEL = re.compile(_LINKAGE + r'(?=[^;{}]*\b__global__\b)')


def _blank(text, start, end):
    return text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]


def _matching_brace(code, open_at):
    depth = 0
    for k in range(open_at, len(code)):
        if code[k] == "{":
            depth += 1
        elif code[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    return None


def _only_kernels(body):
    """Whether every declaration at the top of an `extern "C"` block's body is a __global__ function."""
    top, depth = [], 0
    for ch in body:  # the body without the insides of nested braces (function bodies)
        if ch == "{":
            depth += 1
            if depth == 1:
                top.append(";")  # a function body ends its declaration
        elif ch == "}":
            depth -= 1
        elif depth == 0:
            top.append(ch)
    heads = [h.strip() for h in "".join(top).split(";") if h.strip()]
    return bool(heads) and all("__global__" in h and "(" in h for h in heads)


def rewritten(text):
    """The file's text with `extern "C"` taken out before its kernels; None when it has none."""
    code = code_only(text, keep=('"C"',))
    spans = [(m.start(), m.end()) for m in _BEFORE_KERNEL.finditer(code)]
    for m in re.finditer(_LINKAGE + r"\{", code):
        close = _matching_brace(code, m.end() - 1)
        if close is not None and _only_kernels(code[m.end():close]):
            spans += [(m.start(), m.end()), (close, close + 1)]
    if not spans:
        return None
    for start, end in spans:
        text = _blank(text, start, end)
    return text
