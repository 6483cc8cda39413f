"""`./workbook check --arch arm64`: it builds the programs its tests run and no others, selects
the tests that run a program of the target, and fails (never skips) when the target's programs
cannot be built or started here."""
import io
import unittest
import unittest.mock
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from halo.dev import arch_check, cross_arch

TARGETS = {"judge_7_2", "judge_7_4", "judge_7_5", "test_7_2_solutions_worker", "test_7_2_wrong_x_worker",
           "test_7_4_learner_y_worker", "test_7_5_stubs_worker", "test_cpu_runtime", "halo_cpu_runtime",
           "test_7_2_solutions_kernels", "fake_worker", "all"}


class Selection(unittest.TestCase):
    def test_named_sections_build_their_judges_and_workers_only(self):
        self.assertEqual(arch_check.targets_for(TARGETS, ["7.2", "7.4"]),
                         ["judge_7_2", "judge_7_4", "test_7_2_solutions_worker", "test_7_2_wrong_x_worker",
                          "test_7_4_learner_y_worker"])

    def test_the_full_run_adds_every_section_and_the_runtime_tests(self):
        picked = arch_check.targets_for(TARGETS, None)
        self.assertIn("judge_7_5", picked)
        self.assertIn("test_cpu_runtime", picked)
        self.assertIn("fake_worker", picked)
        self.assertNotIn("halo_cpu_runtime", picked)

    def test_ctest_selects_the_sections_and_leaves_out_what_runs_no_target_program(self):
        sel = arch_check.ctest_selection(["7.2", "7.4"])
        self.assertEqual(sel[:2], ["-L", r"^(7\.2|7\.4)$"])
        self.assertRegex("answers", sel[3])
        self.assertRegex("gpu", sel[3])
        self.assertNotRegex("wrong-kernels", sel[3])


class NoQemu(unittest.TestCase):
    def test_a_target_that_cannot_start_fails_the_check(self):
        tc = unittest.mock.Mock(cxx="clang++")
        with unittest.mock.patch("halo.core.toolchain.ensure", return_value=tc), \
                unittest.mock.patch.object(cross_arch, "ensure", return_value=None), \
                redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()) as err:
            code = arch_check.run(Path("/nonexistent"), "arm64", ["7.2"], "/tmp/halo-arch-test")
        self.assertEqual(code, 1)
        self.assertIn("FAILED before any test", err.getvalue())

    def test_a_program_that_cannot_execute_is_reported_not_skipped(self):
        failing = unittest.mock.Mock(returncode=0)
        with unittest.mock.patch("subprocess.run", side_effect=[failing, OSError(8, "Exec format error")]), \
                redirect_stderr(io.StringIO()) as err:
            machine = cross_arch.probe(cross_arch.ARCHES["arm64"], "clang++", "/tmp")
        self.assertIsNone(machine)
        self.assertIn("qemu-user through binfmt_misc is not working", err.getvalue())

    def test_elf_machine_reads_the_header(self):
        self.assertIsNone(cross_arch.elf_machine("/nonexistent"))
        self.assertIsNone(cross_arch.elf_machine(__file__))


if __name__ == "__main__":
    unittest.main()
