"""The check build's record of the kernel files its compile launcher validated.

`./workbook check` builds every reference solution, stub, known-wrong and learner kernel through
compile_sandboxed.py, which validates each file's IR, holding the validator's reading against
LLVM's (ir_agreement.py), before the object is made; a finding or a difference stops the build.
The check's build passes `--validated-record DIR` and the launcher writes one file per kernel
file that passed (holding its path, for a reader), named by the SHA-256 of its bytes and of the
validator's code. The IR corpus test
(tests/test_ir_agreement.py) asks this record, in the check, rather than compiling and reading the
same files again (about two thirds of its work); run on its own, it compiles every file.

Only the project's own build writes it: a grade's build never passes the option, and nothing of a
grade reads it.
"""
from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

ENV = "HALO_VALIDATED_KERNELS"  # the record's folder, which the check gives the IR corpus test
OPTION = "--validated-record"


@functools.lru_cache(maxsize=None)
def _code() -> bytes:
    """The validator's own code, as it is now: every module of halo/core. A record made by other
    code (a kept build folder, the validator changed since) is not this code's word."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.digest()


def key(data: bytes) -> str:
    return hashlib.sha256(_code() + data).hexdigest()


def write(folder: str, kernel_files) -> None:
    """Records that each of `kernel_files` passed validation (both readers agreed, no finding)."""
    os.makedirs(folder, exist_ok=True)
    for kernel in kernel_files:
        name = os.path.join(folder, key(Path(kernel).read_bytes()))
        part = f"{name}.{os.getpid()}.part"
        with open(part, "w") as f:
            f.write(f"{kernel}\n")  # which file, for a reader; the name is what counts
        os.replace(part, name)


def validated(folder, path: Path) -> bool:
    """Whether the build recorded a file with `path`'s exact bytes as validated."""
    return bool(folder) and os.path.isfile(os.path.join(folder, key(Path(path).read_bytes())))
