"""The project test's reading of compile commands (halo.dev.grader_flags): debug info in the kernel
files, none in the grader's own code of a grade build, the check build's own programs not judged."""
import json
import tempfile
import unittest
from pathlib import Path

from halo.dev import grader_flags

KERNEL = ("clang++ -O2 -g -DNDEBUG -O1 -g -gdwarf-4 -fsanitize-coverage=func,trace-loads,trace-stores "
          "-o grader/CMakeFiles/test_7_2_kernels.dir/kernel_wrappers/k.cpp.o -c k.cpp")
JUDGE = "clang++ -O2 -g -DNDEBUG -O0 -Wall -g0 -o grader/CMakeFiles/judge_7_2.dir/sections/t.cpp.o -c t.cpp"
JUDGE_WITH_DEBUG = "clang++ -O2 -g -DNDEBUG -O0 -Wall -o grader/CMakeFiles/judge_7_2.dir/sections/t.cpp.o -c t.cpp"
CHECK_ONLY = "clang++ -O2 -g -o grader/remote/tests/CMakeFiles/fake_worker.dir/__/frame.cpp.o -c frame.cpp"
# The GPU backend, which a check build has where nvcc is installed and a grade builds only with --gpu.
GPU_JUDGE = ("/usr/local/cuda/bin/nvcc -O2 -g -o grader/CMakeFiles/test_7_2_solutions_gpu.dir/gpu_kernels/"
             "test_7_2_solutions_gpu/k.cu.o -c k.cu")
GPU_TOOL = "clang++ -O2 -g -o grader/CMakeFiles/halo_loadcount.dir/cuda/loadcount/tool.cpp.o -c tool.cpp"


def entries(*commands):
    return [{"directory": "/b", "command": c,
             "file": "/src/grader/cuda/loadcount/tool.cpp" if "loadcount" in c else "/src/x.cpp"} for c in commands]


class GraderFlags(unittest.TestCase):
    def test_the_last_switch_decides(self):
        self.assertFalse(grader_flags.has_debug_info(["-g", "-g0"]))
        self.assertTrue(grader_flags.has_debug_info(["-g0", "-gdwarf-4"]))
        self.assertFalse(grader_flags.has_debug_info(["-O2"]))

    def test_a_grade_build_as_it_should_be_passes(self):
        self.assertEqual(grader_flags.problems(entries(KERNEL, JUDGE, CHECK_ONLY)), [])

    def test_the_gpu_backend_is_not_looked_at(self):
        self.assertEqual(grader_flags.problems(entries(KERNEL, JUDGE, GPU_JUDGE, GPU_TOOL)), [])
        # ... while the same objects' flags, were they the CPU backend's, would be named
        self.assertEqual(len(grader_flags.problems(entries(GPU_JUDGE.replace("/usr/local/cuda/bin/nvcc", "clang++")))), 1)

    def test_a_judge_with_debug_info_is_named(self):
        found = grader_flags.problems(entries(KERNEL, JUDGE_WITH_DEBUG))
        self.assertEqual(len(found), 1)
        self.assertIn("judge_7_2", found[0])

    def test_a_kernel_without_debug_info_is_named(self):
        found = grader_flags.problems(entries(KERNEL.replace(" -g ", " ").replace("-gdwarf-4", "-g0")))
        self.assertEqual(len(found), 1)
        self.assertIn("a kernel file without debug info", found[0])

    def test_exit_status(self):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "compile_commands.json"
            path.write_text(json.dumps(entries(KERNEL, JUDGE)))
            self.assertEqual(grader_flags.main([str(path)]), 0)
            path.write_text(json.dumps(entries(KERNEL, JUDGE_WITH_DEBUG)))
            self.assertEqual(grader_flags.main([str(path)]), 1)
            path.write_text(json.dumps(entries(CHECK_ONLY)))  # nothing of a grade build: no pass
            self.assertEqual(grader_flags.main([str(path)]), 1)
            self.assertEqual(grader_flags.main([str(Path(folder) / "missing.json")]), 2)


if __name__ == "__main__":
    unittest.main()
