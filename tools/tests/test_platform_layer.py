"""The grader's Linux- and ELF-specific code lives behind the platform layer (grader/platform/,
docs/platforms.md): no C++ file outside it includes a Linux or ELF header or uses a Linux-only
mechanism, so a port to another system adds files there and changes no caller."""
import re
import unittest
from pathlib import Path

GRADER = Path(__file__).resolve().parents[2] / "grader"

# Each: a pattern and the mechanism it stands for (the platform layer's name for it).
LINUX_ONLY = [
    (r"#\s*include\s*<(elf|link|ucontext|sched)\.h>", "ELF, loader, signal-context and affinity headers"),
    (r"#\s*include\s*<sys/(prctl|syscall|ucontext|sysmacros)\.h>", "Linux system headers"),
    (r"\bdl_iterate_phdr\b|\bPT_TLS\b|\bElf64_", "the ELF image (platform::executable_symbols, thread_tls_block)"),
    (r"\b__(start|stop)_halo_", "linker-made section bounds (platform::constant_section, callback_code_section)"),
    (r"\baddr2line\b", "the symbolizer (platform::code_line)"),
    (r"\bREG_[A-Z]+\b|\buc_mcontext\b", "the fault address (platform::interrupted_pc)"),
    (r"\bprctl\s*\(|\bmemfd_create\b|\bbwrap\b|\bclone3?\s*\(", "the worker's start and sandbox (worker_process.hpp)"),
    (r"\bsched_getaffinity\b|/sys/fs/cgroup", "the CPUs this process may use (platform::usable_cpus)"),
    (r"\"/proc/", "/proc, Linux's process file system"),
    (r"\bsection\s*\(\s*\"", "a section attribute spelled for one object format (halo/platform/sections.hpp)"),
]

# Folders of C++ that is not the grader's own code, or that tests the Linux layer from outside.
NOT_CALLERS = {
    "platform": "the platform layer itself",
    "include/halo/platform": "the platform layer's part that kernel files see (section names)",
    "redteam": "hostile submissions: code written to attack the grader, as a student might",
    "remote/tests": "the sandbox's test and its deliberately hostile fake worker, which forks, reads /proc "
                    "and runs addr2line as a student's code might; the test counts processes in /proc",
}
SOURCE_SUFFIXES = {".cpp", ".hpp", ".h", ".cu", ".cuh", ".cc"}


def callers():
    for path in sorted(GRADER.rglob("*")):
        relative = path.relative_to(GRADER).as_posix()
        if path.suffix in SOURCE_SUFFIXES and not any(relative.startswith(d + "/") for d in NOT_CALLERS):
            yield path, relative


def offences(text):
    """(line number, mechanism, line) for each use of a Linux-only mechanism in `text`."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for pattern, mechanism in LINUX_ONLY:
            if re.search(pattern, line):
                found.append((number, mechanism, line.strip()))
    return found


class PlatformLayerTest(unittest.TestCase):
    def test_no_caller_uses_linux_or_elf_directly(self):
        found = [f"grader/{relative}:{n}: {mechanism}: {line}"
                 for path, relative in callers() for n, mechanism, line in offences(path.read_text(errors="replace"))]
        self.assertEqual(found, [], "Linux- or ELF-specific code outside grader/platform/; move it behind "
                                    "grader/platform/platform.hpp:\n" + "\n".join(found))

    def test_the_scan_sees_the_callers(self):
        # A scan that read no file, or missed the runtime, would pass whatever the code did.
        seen = {relative for _, relative in callers()}
        for caller in ("cpu/scheduler.cpp", "cpu/faults.cpp", "cpu/source_lines.cpp", "remote/judge_client.cpp"):
            self.assertIn(caller, seen)

    def test_each_pattern_catches_what_it_names(self):
        samples = ["#include <elf.h>", "#include <sys/prctl.h>", "dl_iterate_phdr(cb, &q);",
                   "extern char __start_halo_constant[];", 'popen("addr2line -e x")', "gregs[REG_RIP]",
                   "prctl(PR_SET_PDEATHSIG, SIGKILL);", "sched_getaffinity(0, n, &m);", 'open("/proc/self/exe")',
                   '__attribute__((section("halo_constant")))']
        for sample in samples:
            self.assertTrue(offences(sample), sample)

    def test_the_layer_holds_the_linux_implementation(self):
        linux = GRADER / "platform" / "linux"
        text = "\n".join(p.read_text() for p in linux.glob("*.cpp"))
        for needed in ("dl_iterate_phdr", "__start_halo_constant", "addr2line", "REG_RIP", "sched_getaffinity",
                       "prctl"):
            self.assertIn(needed, text)


if __name__ == "__main__":
    unittest.main()
