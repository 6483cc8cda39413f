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
import json
import os
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


def overlay(kernel_files, folder):
    """For the kernel files that declare `extern __shared__`: their rewritten text and a clang
    VFS overlay mapping each original path onto it, both written into `folder`. Returns the
    overlay's path, or None when no file needs one."""
    roots = []
    for k, path in enumerate(kernel_files):
        with open(path, errors="replace") as f:
            text = rewritten(f.read())
        if text is None:
            continue
        copy = os.path.join(folder, f"kernel{k}_{os.path.basename(path)}")
        with open(copy, "w") as f:
            f.write(text)
        os.chmod(copy, 0o644)
        roots.append({"type": "file", "name": os.path.abspath(path), "external-contents": copy})
    if not roots:
        return None
    yaml = os.path.join(folder, "overlay.yaml")
    with open(yaml, "w") as f:  # JSON is YAML; 'use-external-names': false keeps the original paths
        json.dump({"version": 0, "use-external-names": False, "roots": roots}, f)
    os.chmod(yaml, 0o644)
    return yaml
