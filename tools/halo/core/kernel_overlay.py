"""What the compiler reads in place of a kernel file: the file's text with the rewrites the CPU
backend needs (extern_shared.py: `extern __shared__` arrays; extern_c.py: `extern "C"` before
kernels), through clang's virtual file system, so that the file keeps its path, lines and columns
in every message."""
import json
import os

from . import extern_c, extern_shared

REWRITES = (extern_shared.rewritten, extern_c.rewritten)


def rewritten(text):
    """The text after every rewrite; None when none applies."""
    changed = None
    for rewrite in REWRITES:
        out = rewrite(changed if changed is not None else text)
        if out is not None:
            changed = out
    return changed


def overlay(kernel_files, folder):
    """For the kernel files that need a rewrite: their rewritten text and a clang VFS overlay
    mapping each original path onto it, both written into `folder`. Returns the overlay's path,
    or None when no file needs one."""
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
