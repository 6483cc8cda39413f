"""The GPU step of a class (course/class_gpu.py) without a GPU: which students it takes, how
--collect merges its results into the gradebook (confirmed: unchanged; a disagreement: flagged,
the CPU's points kept), that without a GPU it grades nothing and fails, and the Slurm GPU array
between the shards and the collect step (against a stand-in sbatch)."""
import io
import json
import subprocess
import unittest
from pathlib import Path
from unittest import mock

from halo.core.chapter_data import load_chapter
from halo.core.workbook_argv import workbook_argv
from halo.bench import bench_class_gpu, bench_gpu
from halo.course import class_gpu, class_slurm

from .helpers import REPO_ROOT, scratch_dir
from .test_class_shards import CollectsStored, fake_sbatch
from .test_grade_class import _results


def _gpu_results(failed=0, total=3):
    return {"tests": [{"name": f"gpu: 7.2 basic-1d / correct / t{k}", "status": "failed" if k < failed else "passed"}
                      for k in range(total)]}


def _stored_class(gpu):
    """OUT with alice passed on the CPU and, as `gpu` says, a GPU step: None (none ran),
    a results dict, or "error" (the step's own failure)."""
    out = scratch_dir()
    home = out / "work" / "students" / "alice"
    home.mkdir(parents=True)
    (home / "results.json").write_text(json.dumps(_results(15)))
    (home / "submission.txt").write_text("graded: 7.2-basic-1d/kernel.cu\n")
    (home / "fingerprint").write_text("cpu-1\n")
    if gpu is not None:
        (home / "gpu").mkdir()
        if gpu == "error":
            (home / "gpu" / "error.txt").write_text("RuntimeError: out of GPU memory\n")
        else:
            (home / "gpu" / "results.json").write_text(json.dumps(gpu))
        (home / "gpu" / "fingerprint").write_text("cpu-1\n")
    return out, home


class Merge(CollectsStored, unittest.TestCase):
    def _row(self, out):
        return self._collect(out, ["alice"])[1]["alice"]

    def test_no_gpu_step_and_a_confirming_one_leave_the_row_as_the_cpu_wrote_it(self):
        cpu_only = self._row(_stored_class(None)[0])
        self.assertEqual(cpu_only[-1], "graded")
        self.assertEqual(self._row(_stored_class(_gpu_results())[0]), cpu_only)

    def test_a_gpu_failure_is_flagged_and_the_points_kept(self):
        cpu_only = self._row(_stored_class(None)[0])
        row = self._row(_stored_class(_gpu_results(failed=2))[0])
        self.assertEqual(row[1:-1], cpu_only[1:-1])
        self.assertEqual(row[-1], "graded; GPU disagrees: 7.2 basic-1d / correct / t0 failed on the GPU and 1 more")

    def test_a_gpu_step_that_ran_no_gpu_test_or_failed_itself_is_flagged(self):
        self.assertEqual(self._row(_stored_class({"tests": [{"name": "7.2 basic-1d / correct / t0",
                                                           "status": "passed"}]})[0])[-1],
                         "graded; GPU disagrees: no GPU test ran")
        self.assertEqual(self._row(_stored_class("error")[0])[-1],
                         "graded; GPU step failed: RuntimeError: out of GPU memory")

    def test_a_gpu_step_of_an_earlier_cpu_grade_is_not_merged(self):
        out, home = _stored_class(_gpu_results(failed=1))
        (home / "fingerprint").write_text("cpu-2\n")  # regraded on the CPU since
        self.assertEqual(self._row(out)[-1], "graded")

    def test_only_a_finished_passed_cpu_grade_goes_to_the_gpu(self):
        out, home = _stored_class(None)
        self.assertEqual(class_gpu.passed_on_cpu(home), "cpu-1")
        (home / "results.json").write_text(json.dumps(_results(14)))
        self.assertIsNone(class_gpu.passed_on_cpu(home))
        (home / "results.json").write_text(json.dumps(_results(15)))
        (home / "fingerprint").unlink()  # stopped half-way
        self.assertIsNone(class_gpu.passed_on_cpu(home))


class GradeStudent(unittest.TestCase):
    """_grade_student with `./workbook grade --gpu` stood in for: what it writes, from what grade wrote."""

    def setUp(self):
        self.out, self.home = _stored_class(None)
        self.build = self.out / "work" / "gpu-build" / "all"

    def _grade(self, writes, status=0):
        def fake(cmd, cwd=None, **kw):
            self.assertEqual(cmd[:5], workbook_argv(REPO_ROOT, "grade", "--gpu"))
            self.assertEqual(Path(cmd[cmd.index("--exercises") + 1]), self.home / "exercises")
            self.assertEqual(cmd[cmd.index("--student") + 1], "alice")
            if isinstance(writes, Exception):
                raise writes
            build_dir = Path(cmd[cmd.index("--build-dir") + 1])
            build_dir.mkdir(parents=True, exist_ok=True)
            if writes is not None:
                (build_dir / "results.json").write_text(json.dumps(writes))
            return subprocess.CompletedProcess(cmd, status)
        with mock.patch("halo.course.class_gpu.subprocess.run", side_effect=fake) as grade:
            line = class_gpu._grade_student(REPO_ROOT, None, None, "alice", self.home, self.build)
        return line, grade.call_count

    def test_the_verdict_is_the_results_not_the_exit_status(self):
        line, calls = self._grade(_gpu_results(), status=1)
        self.assertEqual((line, calls), ("alice: passed on the CPU", 1))
        self.assertEqual(self._grade(_gpu_results(failed=1)), ("alice: resumed (already graded on the GPU)", 0))

    def test_no_results_or_the_graders_failure_is_kept_as_the_students_gpu_error(self):
        line, _ = self._grade(None, status=0)
        self.assertEqual(line, "alice: passed on the CPU; GPU step failed: the GPU grade wrote no results "
                               "(exit status 0)")
        (self.home / "gpu" / "fingerprint").unlink()
        line, _ = self._grade(OSError("disk full"))
        self.assertEqual(line, "alice: passed on the CPU; GPU step failed: OSError: disk full")

    def test_a_student_who_failed_on_the_cpu_is_not_graded_on_the_gpu(self):
        (self.home / "results.json").write_text(json.dumps(_results(3)))
        self.assertEqual(self._grade(_gpu_results()), ("alice: not passed on the CPU, not graded on the GPU", 0))


class WithoutAGpu(unittest.TestCase):
    def test_it_says_so_grades_nothing_and_fails(self):
        out = scratch_dir()
        err = io.StringIO()
        with mock.patch("halo.bench.bench_gpu.has_cuda_device", return_value=False), \
                mock.patch("halo.course.class_gpu.subprocess.run") as grade, mock.patch("sys.stderr", err):
            status = class_gpu.run(REPO_ROOT, load_chapter(REPO_ROOT), str(out / "subs"), out)
        self.assertEqual(status, 2)
        grade.assert_not_called()
        self.assertIn("needs an NVIDIA GPU", err.getvalue())
        self.assertIn("nothing was graded on the GPU", err.getvalue())


class BenchGpuStep(unittest.TestCase):
    """bench --class's GPU step (bench_class_gpu.py) with grade_on_gpu stood in for."""

    def _measure(self, gpu, results=None, side_effect=None):
        work = scratch_dir()
        grade = mock.Mock(return_value=(results, None), side_effect=side_effect)
        with mock.patch.object(class_gpu, "missing_gpu", return_value=None if gpu else "no GPU here"), \
                mock.patch.object(class_gpu, "grade_on_gpu", grade), \
                mock.patch.object(bench_gpu, "_smi_query", return_value="NVIDIA H100 80GB HBM3"):
            return bench_class_gpu.measure(REPO_ROOT, load_chapter(REPO_ROOT), work), grade

    def test_without_a_gpu_it_says_the_gpu_step_was_not_measured(self):
        (lines, measured, ok), grade = self._measure(False)
        self.assertEqual((lines, measured, ok),
                         (["The GPU step (`grade-class --gpu`) was not measured: no GPU here."], False, True))
        grade.assert_not_called()

    def test_with_a_gpu_each_copy_of_the_reference_is_timed_in_one_build_folder(self):
        (lines, measured, ok), grade = self._measure(True, _gpu_results())
        self.assertEqual((measured, ok, grade.call_count), (True, True, bench_class_gpu.COPIES))
        self.assertEqual(len({c.args[5] for c in grade.call_args_list}), 1)
        self.assertRegex(lines[0], r"on NVIDIA H100 80GB HBM3: \d+ s for the first submission .* \d+ s for each after")
        (lines, measured, ok), _ = self._measure(True, _gpu_results(failed=1))
        self.assertFalse(ok)
        self.assertIn("Not confirmed on the GPU: reference-1: GPU disagrees", lines[1])

    def test_no_two_copies_are_the_same_submission(self):
        # The grade builds again only the files that changed: identical copies would time a warm
        # grade that compiles nothing, which no real student's grade is.
        kernels = []

        def grade(root, chapter, assignment, student, exercises, build):
            kernels.append({p.relative_to(exercises): p.read_bytes() for p in exercises.rglob("*.cu")})
            return _gpu_results(), None
        self._measure(True, side_effect=grade)
        self.assertEqual(len(kernels), bench_class_gpu.COPIES)
        self.assertIn(Path("7.2-basic-1d/convolution_1d_basic.cu"), kernels[0])
        for name in kernels[0]:
            self.assertEqual(len({copy[name] for copy in kernels}), bench_class_gpu.COPIES, name)


class GpuArray(unittest.TestCase):
    def setUp(self):
        self.dir = scratch_dir()

    def test_no_gpu_array_unless_asked(self):
        s = class_slurm.settings(REPO_ROOT, None, {"shards": 4}, 20)
        names = [p.name for p in class_slurm.write(REPO_ROOT, self.dir / "out", ["subs"], "conv1d", s)]
        self.assertEqual(names, ["harness.sh", "shards.sh", "collect.sh"])

    def test_the_course_file_sizes_the_gpu_array_and_names_its_partition(self):
        course = self.dir / "course.toml"
        course.write_text('[slurm]\ngpu_tasks = 3\ngpu_partition = "gpu"\ngpu_time = "02:00:00"\n')
        s = class_slurm.settings(REPO_ROOT, course, {}, 20)
        self.assertEqual((s["gpu_tasks"], s["gpu_partition"], s["gpu_time"]), (3, "gpu", "02:00:00"))
        self.assertEqual(class_slurm.settings(REPO_ROOT, course, {"gpu_tasks": 50}, 20)["gpu_tasks"], 20)

    def test_a_gpu_array_after_the_shards_and_the_collect_after_it(self):
        s = class_slurm.settings(REPO_ROOT, None, {"shards": 4, "throttle": 2, "account": "cs101", "cpus": 3,
                                                   "partition": "cpu", "time": "1:00:00", "gpu_tasks": 2,
                                                   "gpu_partition": "a100"}, 20)
        paths = class_slurm.write(REPO_ROOT, self.dir / "out", ["subs", "--out", "o"], "conv1d", s)
        self.assertEqual([p.name for p in paths], ["harness.sh", "shards.sh", "gpu.sh", "collect.sh"])
        shards, gpu = paths[1].read_text(), paths[2].read_text()
        self.assertNotIn("gres", shards)
        for line in ("#SBATCH --gres=gpu:1", "#SBATCH --array=1-2", "#SBATCH --partition=a100",
                     "#SBATCH --account=cs101", "#SBATCH --time=1:00:00", "#SBATCH --cpus-per-task=3"):
            self.assertIn(line + "\n", gpu)
        self.assertNotIn("--partition=cpu", gpu)
        self.assertIn('grade-class subs --out o --gpu --shard "$SLURM_ARRAY_TASK_ID/2"', gpu)
        self.assertEqual(class_slurm.submit(paths, fake_sbatch(self.dir)), ["101", "102", "103", "104"])
        calls = (self.dir / "calls").read_text().splitlines()
        self.assertIn("--dependency=afterok:102", calls[2])
        self.assertTrue(calls[2].endswith("gpu.sh"))
        self.assertIn("--dependency=afterok:103", calls[3])
        self.assertTrue(calls[3].endswith("collect.sh"))


if __name__ == "__main__":
    unittest.main()
