"""Debug info where a grade build needs it and nowhere else, read from a build folder's
compile_commands.json (a project test in check mode; issue 36 item 4).

A student's first grade compiles all of the grader's own code, and debug info was a fifth of that
time: its libraries, judges, precompiled headers and worker entry tables compile with -g0 (unless
HALO_DEBUG_GRADER asks for it). The kernel files always keep theirs: diagnostics name the
student's lines from it. The check build's own test programs (grader/*/tests, grader/bench) are
no part of a grade build and are not looked at, nor is the GPU backend (what nvcc compiles, and the
Compute Sanitizer tool of grader/cuda/): a grade builds it only with --gpu, on a machine with a GPU,
where the first grade's time is not this one.

    python3 -m halo.dev.grader_flags BUILD/compile_commands.json
"""
import json
import re
import shlex
import sys
from pathlib import Path

# An object of a target that a grade build has: grader/CMakeFiles/<target>.dir/...
GRADE_OBJECT = re.compile(r"(^|/)grader/CMakeFiles/(?P<target>[^/]+)\.dir/")
KERNEL_MARK = "-fsanitize-coverage="  # HALO_KERNEL_FLAGS instrument kernel files, and only them
DEBUG_ON = re.compile(r"-g(|[123]|dwarf(-\d)?|line-tables-only|line-directives-only)")


def has_debug_info(args):
    """Whether clang makes debug info with these arguments: the last -g-kind switch wins."""
    on = False
    for a in args:
        if a == "-g0":
            on = False
        elif DEBUG_ON.fullmatch(a):
            on = True
    return on


def args_of(entry):
    return shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])


def output_of(args):
    return args[args.index("-o") + 1] if "-o" in args[:-1] else ""


def gpu_backend(entry, args):
    """Whether this compile is the GPU backend's (nvcc's, or a source of grader/cuda/)."""
    return Path(args[0]).name == "nvcc" or "/grader/cuda/" in entry.get("file", "")


def graded_object(entry):
    """The grade build's target this compile makes an object of (a match), else None."""
    args = args_of(entry)
    if not args or gpu_backend(entry, args):
        return None
    return GRADE_OBJECT.search(output_of(args))


def problems(entries):
    """['<object>: <what is wrong>'] for the grade build's objects of these compile commands."""
    found = []
    for entry in entries:
        args = args_of(entry)
        out = output_of(args)
        m = graded_object(entry)
        if not m:
            continue
        kernel = any(a.startswith(KERNEL_MARK) for a in args)
        debug = has_debug_info(args)
        if kernel and not debug:
            found.append(f"{out}: a kernel file without debug info (diagnostics name its lines from it)")
        elif not kernel and debug:
            found.append(f"{out}: the grader's own code ({m.group('target')}) with debug info; -g0 is "
                         "${HALO_GRADER_DEBUG} in its options (grader/CMakeLists.txt)")
    return found


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python3 -m halo.dev.grader_flags BUILD/compile_commands.json", file=sys.stderr)
        return 2
    path = Path(argv[0])
    try:
        entries = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        print(f"halo: cannot read {path}: {e}", file=sys.stderr)
        return 2
    looked = sum(1 for e in entries if graded_object(e))
    if looked == 0:
        print(f"halo: {path} has no object of a grade build's targets (grader/CMakeFiles/...)", file=sys.stderr)
        return 1
    found = problems(entries)
    for line in found:
        print(line)
    print(f"{looked} compiles of a grade build's targets looked at; {len(found)} with debug info where it "
          "does not belong or without it where it does")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
