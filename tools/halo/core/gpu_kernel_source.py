"""What nvcc compiles for one kernel file of the CUDA backend (a build step of
grader/cmake/HaloSections.cmake, halo_cuda_binary):

    python3 gpu_kernel_source.py --dialect CUDA_DIALECT_HPP --defines CHAPTER_DEFINES_HPP KERNEL OUT

OUT includes the CUDA dialect, leaves out the grader's macro of each book name the file declares
itself (own_names.py), includes the chapter's #defines, then holds the file's text after a `#line`
directive, so that nvcc's messages name the student's file and lines. `extern "C"` before a
kernel is taken out, as on the CPU backend (extern_c.py): the tests reach kernels by their C++
symbol. OUT is rewritten only when its text changes, so that an unchanged file is not rebuilt.
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from halo.core import extern_c, own_names  # noqa: E402  (needs the path above)


def _quoted(path):
    return '"' + str(path).replace("\\", "\\\\").replace('"', '\\"') + '"'


def source(kernel: Path, dialect: Path, defines: Path) -> str:
    text = kernel.read_text(errors="replace")
    own = own_names.declared(text, own_names.header_defines(defines.read_text(errors="replace")))
    lines = [f"// Generated from {kernel} for nvcc (tools/halo/core/gpu_kernel_source.py); do not edit.",
             f"#include {_quoted(dialect)}"]
    lines += [f"#define {own_names.FLAG_PREFIX}{name} 1" for name in sorted(own)]
    lines += [f"#include {_quoted(defines)}", f"#line 1 {_quoted(kernel)}"]
    return "\n".join(lines) + "\n" + (extern_c.rewritten(text) or text)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dialect", required=True, type=Path)
    p.add_argument("--defines", required=True, type=Path)
    p.add_argument("kernel", type=Path)
    p.add_argument("out", type=Path)
    a = p.parse_args(argv)
    text = source(a.kernel.resolve(), a.dialect.resolve(), a.defines.resolve())
    if not a.out.exists() or a.out.read_text(errors="replace") != text:
        a.out.parent.mkdir(parents=True, exist_ok=True)
        a.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
