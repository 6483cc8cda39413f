"""The fixed list of a section's tests, read from its test sources — never from running a
program built with a student's code (a submission could answer with invented names).

Test cases are `TEST_CASE("name")` lines. Some are compiled for one backend only, inside
`#if defined(HALO_BACKEND_CPU)` / `#if defined(HALO_BACKEND_CUDA)` blocks (with `#else` and
`#endif`); those are the only conditions a test may sit under. Any other `#if` around a
TEST_CASE is an error, so the list can never silently disagree with the compiled program (the
check suite also compares it with each judge's own list).
"""
import os
import re
from pathlib import Path

_CASE = re.compile(r'^\s*TEST_CASE\(\s*"((?:[^"\\]|\\.)*)"\s*\)')
_IF = re.compile(r"^\s*#\s*(if|ifdef|ifndef)\b(.*)$")
_ELSE = re.compile(r"^\s*#\s*(else|elif)\b(.*)$")
_ENDIF = re.compile(r"^\s*#\s*endif\b")
_BACKEND = re.compile(r"^\s*defined\s*\(\s*HALO_BACKEND_(CPU|CUDA)\s*\)\s*(//.*)?$")


class TestListError(ValueError):
    pass


def test_names(path, backend):
    """The names of the TEST_CASEs `path` compiles for `backend` ("cpu" or "cuda"), in order.
    Read once a process while the file stays as it was (its size, time and inode): a grade asks
    for each section's list three or four times, and every grade of a class once a student."""
    st = os.stat(path)
    key = (os.path.abspath(path), backend, st.st_size, st.st_mtime_ns, st.st_ino)
    if key not in _READ:
        _READ[key] = _test_names(path, backend)
    return list(_READ[key])


_READ = {}


def _test_names(path, backend):
    backend = backend.upper()
    stack = []  # per open #if: True/False when it is a backend condition, None otherwise
    names = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if m := _IF.match(line):
            cond = _BACKEND.match(m.group(2)) if m.group(1) == "if" else None
            stack.append((cond.group(1) == backend) if cond else None)
        elif m := _ELSE.match(line):
            if not stack:
                raise TestListError(f"{path}:{number}: #{m.group(1)} without #if")
            if m.group(1) == "elif":
                stack[-1] = None
            elif stack[-1] is not None:
                stack[-1] = not stack[-1]
        elif _ENDIF.match(line):
            if not stack:
                raise TestListError(f"{path}:{number}: #endif without #if")
            stack.pop()
        elif m := _CASE.match(line):
            if None in stack:
                raise TestListError(f"{path}:{number}: a TEST_CASE under a condition other than "
                                    "defined(HALO_BACKEND_CPU) or defined(HALO_BACKEND_CUDA)")
            if all(stack):
                names.append(m.group(1).encode().decode("unicode_escape"))
        elif "TEST_CASE(" in line and not line.lstrip().startswith("//"):
            raise TestListError(f"{path}:{number}: a TEST_CASE the list cannot read: write it as TEST_CASE(\"name\") on one line")
    return names


def section_sources(root, folder):
    """A section's test sources (grader/sections/<folder>/*.cpp), in the order CMake's file(GLOB)
    gives them: the order its tests are registered in."""
    return sorted((Path(root) / "grader" / "sections" / folder).glob("*.cpp"), key=str)


def listing_lines(root, sections, backends):
    """`test|SECTION|BACKEND|NAME` for every test of every kernel section, for CMake: the whole
    chapter's lists from one Python process at configure time, not one process a section."""
    for s in sections:
        sources = section_sources(root, s.folder) if s.kernels else []
        for backend in backends:
            for source in sources:
                for name in test_names(source, backend):
                    yield f"test|{s.id}|{backend}|{name}"


def run(sources, backend):
    """`./workbook internal list-tests`: one name per line, for CMake."""
    for source in sources:
        for name in test_names(source, backend):
            print(name)
    return 0


def compare_with_program(program, names):
    """`./workbook internal compare-test-list`: the names CMake registered (read from the sources)
    must be exactly the test cases the judge program holds. The judge holds no student code, so
    asking it for its list runs nothing of a submission."""
    import subprocess
    out = subprocess.run([program, "--list-test-cases"], capture_output=True, text=True, timeout=60)
    held = [line for line in out.stdout.splitlines()
            if line.strip() and not line.startswith("[doctest]") and not line.startswith("====")]
    missing, extra = sorted(set(held) - set(names)), sorted(set(names) - set(held))
    for name in missing:
        print(f"the judge has a test the list lacks (it would never run): {name}")
    for name in extra:
        print(f"the list has a test the judge lacks: {name}")
    if out.returncode != 0 or missing or extra:
        return 1
    print(f"{len(names)} tests: the list and the judge agree")
    return 0
