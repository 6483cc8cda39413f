"""`extern __shared__` for the CPU backend.

CUDA's dynamic shared memory is one block-wide buffer whose size the launch gives; every
`extern __shared__ T name[];` of a kernel file names that same buffer. The CPU dialect cannot
express it with a macro (`__shared__` cannot see the `extern` before it), so the compiler
launcher (compile_sandboxed.py) compiles such a file through clang's virtual file system: the
file keeps its path, lines and messages, and each declaration reads, on its own line,

    HALO_EXTERN_SHARED(T, name);

which the dialect turns into a declaration of the runtime's buffer (grader/cpu/shared_shadow.cpp
checks every access against the launch's size and names it by `name`).
"""
import re

# extern __shared__ [alignment] TYPE NAME[];  (the alignment is the buffer's: 128 bytes)
_ALIGNMENT = r"(?:(?:__align__|alignas)\s*\(\s*\d+\s*\)\s*|__attribute__\s*\(\(\s*(?:__)?aligned(?:__)?\s*\(\s*\d+\s*\)\s*\)\)\s*)"
DECLARATION = re.compile(
    r"\bextern\s+__shared__\s+" + _ALIGNMENT + r"*"
    r"(?P<type>[A-Za-z_][\w:]*(?:\s+[A-Za-z_][\w:]*)*?)\s+" + _ALIGNMENT + r"*"
    r"(?P<name>[A-Za-z_]\w*)\s*\[\s*\]\s*;")


def rewritten(text):
    """The file's text with each declaration replaced, line for line; None when it has none."""
    if not DECLARATION.search(text):
        return None

    def replace(m):
        # Keep the declaration's line breaks, so that every later line keeps its number.
        return f"HALO_EXTERN_SHARED({m.group('type')}, {m.group('name')});" + "\n" * m.group(0).count("\n")
    return DECLARATION.sub(replace, text)
