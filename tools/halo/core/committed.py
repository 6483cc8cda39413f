"""The last commit's files, for what must not depend on a working tree's edits: ./workbook check
builds the committed stubs (never a student's exercises/), `sync --check --committed` compares
the committed stubs with what the committed solutions generate, and grade-class lays each
submission over the committed stubs."""
import io
import subprocess
import tarfile
from pathlib import Path


class CommittedError(Exception):
    """No last commit to read (not a git checkout, or git missing); str() says so."""


def files(root, *paths):
    """{path: bytes} of HEAD's regular files (under `paths`, when given)."""
    try:
        p = subprocess.run(["git", "-C", str(root), "archive", "--format=tar", "HEAD", "--", *paths],
                           capture_output=True)
    except FileNotFoundError:
        raise CommittedError("git is not installed") from None
    if p.returncode != 0:
        raise CommittedError(f"{root}: no last commit to read ({p.stderr.decode(errors='replace').strip()})")
    with tarfile.open(fileobj=io.BytesIO(p.stdout)) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


def write(root, folder, out):
    """HEAD's `folder` (e.g. "exercises") written into `out` (out/<path below folder>); a file
    that has not changed keeps its time, so a build of it stays warm. Returns `out`."""
    out = Path(out)
    found = files(root, folder)
    if not found:
        raise CommittedError(f"no {folder}/ in the last commit of {root}")
    for name, data in found.items():
        path = out / Path(name).relative_to(folder)
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
    return out
