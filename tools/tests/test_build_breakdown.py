"""`./workbook bench --loop`'s breakdown of a fresh clone's first grade: Ninja's log read into the
grader's parts, and grade's own phase lines. Nothing here times anything."""
import tempfile
import unittest
from pathlib import Path

from halo.bench import bench_loop, build_breakdown

# A .ninja_log as Ninja 1.11 writes it: start and end in ms, mtime, output, command hash; a
# command with two outputs is logged twice with the same times.
LOG = """# ninja log v5
0\t240\t0\tgenerated/halo/chapter_data.hpp\tabc
0\t240\t0\tgenerated/halo/chapter_defines.hpp\tabc
10\t6010\t0\tgrader/CMakeFiles/halo_cpu_runtime.dir/Unity/unity_0_cxx.cxx.o\tdef
20\t1020\t0\tgrader/CMakeFiles/halo_judge_headers.dir/cmake_pch.hxx.pch\t111
1020\t1520\t0\tgrader/CMakeFiles/halo_worker_entry_headers.dir/cmake_pch.hxx.pch\t112
1520\t2520\t0\tgrader/CMakeFiles/halo_testing_judge_cold.dir/Unity/unity_0_cxx.cxx.o\t113
6020\t7520\t0\tgrader/CMakeFiles/judge_7_2.dir/sections/7.2-basic-1d/test_basic_1d.cpp.o\t123
6030\t8030\t0\tgrader/CMakeFiles/test_7_2_kernels.dir/kernel_wrappers/test_7_2_kernels_convolution_1d_basic_cu.cpp.o\t456
8040\t8640\t0\tgrader/CMakeFiles/halo_worker_entries_7_2.dir/remote/worker_entries.cpp.o\t789
8650\t8800\t0\tgrader/judge_7_2\t222
8650\t8750\t0\tgrader/test_7_2_worker\t333
8760\t8800\t0\tgrader/libhalo_cpu_runtime.a\t444
0\t10\t0\tCMakeFiles/cmake.verify_globs\t555
"""


class Breakdown(unittest.TestCase):
    def read(self):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / ".ninja_log"
            path.write_text(LOG)
            return build_breakdown.read_log(path)

    def test_a_command_with_two_outputs_counts_once(self):
        steps = self.read()
        self.assertEqual(len(steps), 12)
        self.assertEqual(sum(1 for _, _, out in steps if "generated/" in out), 1)

    def test_each_step_lands_in_its_part(self):
        b = build_breakdown.breakdown(self.read())
        parts = {name: (round(seconds, 2), count) for name, seconds, count in b["parts"]}
        self.assertEqual(parts["the generated chapter headers"], (0.24, 1))
        self.assertEqual(parts["the runtime and test-support libraries"], (7.0, 2))  # a library's cold half too
        self.assertEqual(parts["the precompiled headers (the judges', the worker entry tables')"], (1.5, 2))
        self.assertEqual(parts["the judges (each section's tests)"], (1.5, 1))
        self.assertEqual(parts["the kernel files (validated, compiled in the sandbox)"], (2.0, 1))
        self.assertEqual(parts["the worker entry tables"], (0.6, 1))
        self.assertEqual(parts["links and archives"], (0.29, 3))
        self.assertEqual(parts["other steps"], (0.01, 1))
        self.assertAlmostEqual(b["wall"], 8.8)
        self.assertAlmostEqual(b["total"], sum(s for s, _ in parts.values()))

    def test_the_page_shows_phases_and_parts(self):
        data = {"phases": [("the configure", 3.25), ("the build", 58.0)],
                "build": build_breakdown.breakdown(self.read())}
        text = "\n".join(build_breakdown.markdown(data))
        self.assertIn("| the configure | 3.2 s |", text)
        self.assertIn("| the build | 58.0 s |", text)
        self.assertIn("The build: 8.8 s of wall time", text)
        self.assertRegex(text, r"\| the runtime and test-support libraries \| 2 \| 7\.0 s \| \d+ % \|")
        self.assertNotIn("built once per commit", text)

    def test_the_page_tells_what_a_reused_grader_would_leave(self):
        data = {"phases": [], "build": build_breakdown.breakdown(self.read()),
                "student_part": {"seconds": 24.5, "phases": [("the build", 6.0), ("the kernel tests", 17.0)]}}
        text = "\n".join(build_breakdown.markdown(data))
        self.assertIn("then `./workbook grade` again took 24.5 s; the build 6 s; the kernel tests 17 s", text)


class Phases(unittest.TestCase):
    def test_grade_s_own_done_lines_give_the_build_and_the_tests(self):
        said = ("building 7 sections...\nbuilding 7 sections: done in 58 s\n"
                "running the tests (HALO_SEED=1 replays these inputs)...\nrunning the kernels tests...\n"
                "running the kernels tests: 126 of 126 run, done in 19 s\nchecking the answers: done in 0 s\n")
        self.assertEqual(bench_loop.phases_from_output(said), [("the build", 58.0), ("the kernel tests", 19.0)])

    def test_a_grade_that_never_got_there_gives_no_phase(self):
        self.assertEqual(bench_loop.phases_from_output("halo: CMake could not configure the build\n"), [])


if __name__ == "__main__":
    unittest.main()
