"""`./workbook bench --cpu` and `--loop`: their pure logic (the simulator's size plan, the
comparison, JSON to Markdown, the loop's one-line edit). Nothing here times anything."""
import contextlib
import os
import io
import unittest
from unittest import mock

from halo.bench import bench_cpu, bench_loop, terminal_run
from halo import cli


def _halo_row(kernel, width, seconds, correct=True):
    return {"kernel": kernel, "width": width, "threads": width, "median_seconds": seconds, "correct": correct}


def _sim_row(kernel, target, width, seconds, correct=True):
    return {"kernel": kernel, "target_width": target, "width": width, "threads": width, "median_seconds": seconds,
            "correct": correct}


def sample_data(tiled_sim_seconds=20.0):
    halo = [_halo_row("basic", 2**16, 0.01), _halo_row("tiled", 2**16, 0.02), _halo_row("tiled", 2**20, 0.32)]
    one = [_halo_row("basic", 2**16, 0.02), _halo_row("tiled", 2**16, 0.04), _halo_row("tiled", 2**20, 0.64)]
    sim = [_sim_row("basic", 2**16, 2**16, 6.5536), _sim_row("tiled", 2**16, 2**15, tiled_sim_seconds),
           _sim_row("tiled", 2**20, 2**15, tiled_sim_seconds)]
    return {
        "date": "2025-01-02",
        "machine": {"cpu": "Test CPU @ 1 GHz", "cores": 2, "os": "Debian GNU/Linux 12 (Linux 6.1)",
                    "python": "3.11.7", "numba": "0.68.1", "numpy": "2.4.6", "compiler": "clang version 16"},
        "protocol": {"widths": [2**16, 2**20], "mask": 5, "block": 256, "halo_runs": 30, "sim_runs": 3,
                     "sim_budget_s": 60.0, "calibration_blocks": 8, "target_ratio": 1000.0},
        "halo": {"checks": True}, "comparison": bench_cpu.compare(halo, sim, one),
        "notes": ["a note"],
    }


class PlanSimWidth(unittest.TestCase):
    def test_a_width_that_fits_the_budget_runs_as_it_is(self):
        # 10,000 threads/s: 3 launches of 2^16 take 19.7 s < 60 s.
        self.assertEqual(bench_cpu.plan_sim_width(2**16, 10_000, 1.0), 2**16)

    def test_a_width_over_the_budget_shrinks_to_a_power_of_two_number_of_blocks(self):
        # 2,000 threads/s: 3 launches fit 40,000 threads = 156 blocks of 256 -> 128 blocks.
        self.assertEqual(bench_cpu.plan_sim_width(2**20, 2_000, 1.0), 128 * 256)
        self.assertLessEqual(bench_cpu.estimate_seconds(128 * 256, 2_000), 60.0)

    def test_the_rate_comes_from_threads_over_seconds(self):
        # 2048 threads in 0.5 s is 4096 threads/s: 60 s / 3 runs -> 81,920 threads = 320 blocks -> 256.
        self.assertEqual(bench_cpu.plan_sim_width(2**20, 2048, 0.5), 256 * 256)

    def test_never_below_the_minimum_nor_above_the_target(self):
        self.assertEqual(bench_cpu.plan_sim_width(2**20, 10, 1.0), bench_cpu.MIN_SIM_BLOCKS * 256)
        self.assertEqual(bench_cpu.plan_sim_width(512, 10, 1.0), 512)

    def test_a_budget_just_met_is_not_shrunk(self):
        self.assertEqual(bench_cpu.plan_sim_width(3000, 150, 1.0, budget_s=60.0, runs=3), 3000)
        self.assertLess(bench_cpu.plan_sim_width(3001 * 256, 150 * 256, 1.0, budget_s=60.0, runs=3), 3001 * 256)

    def test_a_broken_calibration_is_refused(self):
        with self.assertRaises(ValueError):
            bench_cpu.plan_sim_width(2**16, 2048, 0.0)


class Compare(unittest.TestCase):
    def test_the_ratio_is_per_thread_even_when_the_simulator_ran_a_smaller_width(self):
        rows = {(r["kernel"], r["width"]): r for r in sample_data()["comparison"]}
        tiled = rows[("tiled", 2**20)]
        self.assertAlmostEqual(tiled["halo_threads_per_s"], 2**20 / 0.32)
        self.assertAlmostEqual(tiled["sim_threads_per_s"], 2**15 / 20.0)
        self.assertAlmostEqual(tiled["ratio"], (2**20 / 0.32) / (2**15 / 20.0))
        self.assertAlmostEqual(tiled["ratio_one_core"], tiled["ratio"] / 2)
        self.assertEqual(tiled["sim_width"], 2**15)
        self.assertEqual(tiled["section"], "7.4")

    def test_a_missing_simulator_row_gives_no_ratio(self):
        rows = bench_cpu.compare([_halo_row("basic", 2**20, 0.1)], [])
        self.assertIsNone(rows[0]["ratio"])
        self.assertIsNone(rows[0]["sim_correct"])


class Verdict(unittest.TestCase):
    def test_met_when_every_tiled_ratio_reaches_the_target(self):
        self.assertIn(": met", bench_cpu.verdict(sample_data(tiled_sim_seconds=20.0)))  # 2,000x at both widths

    def test_not_met_below_the_target(self):
        text = bench_cpu.verdict(sample_data(tiled_sim_seconds=2.0))  # 200x
        self.assertIn("NOT met", text)
        self.assertIn("at least 200x", text)

    def test_a_wrong_output_is_never_met(self):
        data = sample_data()
        data["comparison"][1]["sim_correct"] = False
        self.assertIn("NOT met", bench_cpu.verdict(data))


class CoreNotes(unittest.TestCase):
    def test_a_note_only_where_one_core_beat_every_core(self):
        rows = bench_cpu.compare([_halo_row("basic", 2**16, 0.02), _halo_row("tiled", 2**16, 0.01)], [],
                                 [_halo_row("basic", 2**16, 0.01), _halo_row("tiled", 2**16, 0.02)])
        notes = bench_cpu.core_notes(rows)
        self.assertEqual(len(notes), 1)
        self.assertIn("7.2 basic at 2^16", notes[0])
        self.assertNotIn("7.4", notes[0])
        self.assertEqual(bench_cpu.core_notes(sample_data()["comparison"]), [])


class Markdown(unittest.TestCase):
    def test_the_page_has_the_machine_the_rows_and_the_verdict(self):
        text = bench_cpu.markdown(sample_data())
        for needle in ("Test CPU @ 1 GHz", "2 cores", "Numba 0.68.1", "Python 3.11.7", "checks: on",
                       "| 7.4 tiled | 2^20 | 3,276,800 | 1,638,400 | 2^15 | 1,638 | 2,000x | 1,000x | yes / yes / yes |",
                       "| 7.2 basic | 2^16 | 6,553,600 |", "- a note", "Generated by tools/halo/bench/bench_cpu.py"):
            self.assertIn(needle, text)

    def test_checks_off_is_shown(self):
        data = sample_data()
        data["halo"]["checks"] = False
        self.assertIn("checks: OFF", bench_cpu.markdown(data))

    def test_the_text_table_lists_every_row(self):
        text = bench_cpu.text_table(sample_data())
        self.assertEqual(sum(1 for line in text.splitlines() if line.startswith("7.") and "Halo is" not in line), 3)
        self.assertTrue(text.rstrip().endswith(": met."))


class Loop(unittest.TestCase):
    KERNEL = "    for (int j = 0; j < Mask_Width; ++j) {\n      Pvalue += N_ds[tx + j] * M[j];\n    }\n"

    def test_the_edit_goes_there_and_back(self):
        edited = bench_loop.swap_edit(self.KERNEL)
        self.assertIn("Pvalue += M[j] * N_ds[tx + j];", edited)
        self.assertNotEqual(edited, self.KERNEL)
        self.assertEqual(bench_loop.swap_edit(edited, forward=False), self.KERNEL)

    def test_the_edit_refuses_a_kernel_without_the_line(self):
        with self.assertRaises(ValueError):
            bench_loop.swap_edit("__global__ void k() {}\n")

    def test_the_page_compares_each_step_with_its_target(self):
        data = {"date": "2025-01-02", "commit": "0123456789abcdef",
                "machine": {"cpu": "Test CPU", "cores": 2, "os": "Debian"},
                "steps": {"edit": {"seconds": 4.0, "all": [4.5, 4.0, 3.0], "rc": 0},
                          "warm": {"seconds": 31.0, "all": [31.0], "rc": 0},
                          "fresh": {"seconds": 200.0, "all": [200.0], "rc": 1},
                          "hang": {"seconds": 6.0, "all": [6.0], "rc": 0}},
                "notes": ["noise"]}
        text = bench_loop.markdown(data)
        self.assertRegex(text, r"\(a\) one-line edit.*\| 4\.0 s \(median of 3: 4\.5, 4\.0, 3\.0 s\) \| 2 s \| over \|")
        self.assertRegex(text, r"\(b\) full .*\| 31\.0 s \| 30 s \| over \|")
        self.assertRegex(text, r"\(c\) first .*\| 200\.0 s; exit 1 \| 30 s \| over \|")
        self.assertRegex(text, r"\(d\) an endless loop .*\| 6\.0 s \| 10 s \| within \|")
        self.assertIn("`0123456789ab`", text)

    def test_the_steps_run_with_a_student_s_bytecode_cache_and_the_setting_comes_back(self):
        seen = {}

        def fake_run(root, output_dir, keep, busy, removed=()):
            seen["env"], seen["removed"] = os.environ.get("PYTHONDONTWRITEBYTECODE"), removed
            return 0

        with mock.patch.dict(os.environ, {"PYTHONDONTWRITEBYTECODE": "1"}), \
                mock.patch.object(bench_loop, "_run", fake_run):
            bench_loop.run("/nowhere")
            self.assertEqual(os.environ.get("PYTHONDONTWRITEBYTECODE"), "1")
        self.assertEqual(seen, {"env": None, "removed": ["PYTHONDONTWRITEBYTECODE"]})


class CommandLine(unittest.TestCase):
    def test_cpu_and_loop_are_flags_of_bench(self):
        args = cli._parser().parse_args(["bench", "--cpu"])
        self.assertTrue(args.cpu)
        self.assertFalse(args.loop)
        self.assertTrue(cli._parser().parse_args(["bench", "--loop"]).loop)

    def test_cpu_with_a_section_is_refused(self):
        from .helpers import REPO_ROOT
        with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit):
            cli.main(REPO_ROOT, ["bench", "--cpu", "7.4"])


class TerminalRun(unittest.TestCase):
    def test_the_marker_is_seen_before_the_exit_and_the_command_is_on_a_terminal(self):
        code = "import sys; print(sys.stdout.isatty()); print('FAILED x'); sys.exit(3)"
        seen, total, status, out = terminal_run.run(["python3", "-c", code], ".", "FAILED ")
        self.assertIsNotNone(seen)
        self.assertLessEqual(seen, total)
        self.assertEqual(status, 3)
        self.assertIn("True", out)  # grade shows its first failure early only on a terminal

    def test_a_marker_never_printed_is_none(self):
        seen, _total, status, _out = terminal_run.run(["python3", "-c", "print('ok')"], ".", "FAILED ")
        self.assertIsNone(seen)
        self.assertEqual(status, 0)

    def test_busy_processes_end_with_the_block(self):
        with terminal_run.Busy(2) as busy:
            self.assertEqual([p.poll() for p in busy.procs], [None, None])
        self.assertTrue(all(p.poll() is not None for p in busy.procs))

    def test_the_breaking_edit_is_one_line_of_the_reference(self):
        kernel = (bench_loop.Path(__file__).resolve().parents[2] / "solutions" / "7.4-tiled-1d" /
                  "convolution_1d_tiled.cu").read_text()
        broken = bench_loop.swap_edit(kernel, to=bench_loop.BREAK_TO)
        self.assertEqual(len(broken.splitlines()), len(kernel.splitlines()))
        self.assertIn(bench_loop.BREAK_TO, broken)


if __name__ == "__main__":
    unittest.main()
