"""grade-class past one machine, the parts that need no build: which students a shard takes,
the locks shards share, --collect from stored results (a student with none is named, never
scored 0), the Slurm scripts and their afterok chain (against a stand-in sbatch; the real
Slurm run is slurm_check.py, under ./workbook check), and the CPUs a job may use."""
import contextlib
import csv
import io
import json
import os
import shutil
import stat
import subprocess
import sys
import unittest
from pathlib import Path
from unittest import mock

from halo.core.chapter_data import load_chapter
from halo.core import assignment
from halo.course import class_k8s, class_shards, class_slurm, grade_class
from halo.course.class_submissions import Submission

from .helpers import REPO_ROOT, scratch_dir
from .test_grade_class import _results

CLASS = [f"s{k:02d}" for k in range(10)]


def _subs(names):
    return [Submission(n, Path("/nowhere") / n, n) for n in names]


class Shards(unittest.TestCase):
    def test_k_of_n_is_parsed_and_nonsense_refused(self):
        self.assertEqual(class_shards.parse("3/8"), (3, 8))
        for bad in ("0/2", "3/2", "x", "1/0", ""):
            with self.assertRaisesRegex(class_shards.ShardError, "K/N"):
                class_shards.parse(bad)

    def test_the_shards_split_the_whole_class_whatever_the_listing_order(self):
        parts = [class_shards.pick(_subs(CLASS), k, 3) for k in (1, 2, 3)]
        reversed_parts = [class_shards.pick(_subs(reversed(CLASS)), k, 3) for k in (1, 2, 3)]
        names = [[s.student for s in p] for p in parts]
        self.assertEqual(names, [[s.student for s in p] for p in reversed_parts])
        self.assertEqual(sorted(n for p in names for n in p), CLASS)
        self.assertEqual([len(p) for p in names], [4, 3, 3])

    def test_a_lock_held_by_one_process_makes_another_wait(self):
        path = scratch_dir() / "student.lock"
        probe = ("import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDWR)\n"
                 "try:\n    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB); print('free')\n"
                 "except BlockingIOError:\n    print('held')")
        with class_shards.locked(path):
            inside = subprocess.run([sys.executable, "-c", probe, str(path)], capture_output=True, text=True).stdout
        after = subprocess.run([sys.executable, "-c", probe, str(path)], capture_output=True, text=True).stdout
        self.assertEqual((inside.strip(), after.strip()), ("held", "free"))


class CollectsStored:
    """--collect of an assignment of 7.2 over stored results (test_class_gpu.py's merge too)."""

    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)
        cls.assignment = assignment.Assignment("a", "A", [cls.chapter.section("7.2")])

    def _collect(self, out, names):
        with mock.patch("sys.stderr"), mock.patch("sys.stdout"):
            status = grade_class._collect(REPO_ROOT, self.chapter, self.assignment, _subs(names), out / "work", out)
        return status, {r[0]: r for r in csv.reader((out / "gradebook.csv").read_text().splitlines())}


class Collect(CollectsStored, unittest.TestCase):

    def _class(self, graded):
        """OUT with stored results for the students in `graded` ({student: tests passed})."""
        out = scratch_dir()
        for student, passed in graded.items():
            home = out / "work" / "students" / student
            home.mkdir(parents=True)
            (home / "results.json").write_text(json.dumps(_results(passed)))
            (home / "submission.txt").write_text("graded: 7.2-basic-1d/kernel.cu\n")
            (home / grade_class.SECONDS).write_text("4.0\n")
            (home / "fingerprint").write_text("f\n")
        return out

    def test_every_student_stored_is_in_the_gradebook(self):
        out = self._class({"alice": 15, "bob": 14})
        status, rows = self._collect(out, ["alice", "bob"])
        self.assertEqual(status, 0)
        self.assertEqual((rows["alice"][-1], rows["bob"][-1]), ("graded", "graded"))
        self.assertGreater(float(rows["alice"][1]), float(rows["bob"][1]))

    def test_a_pool_of_workers_writes_what_one_process_writes(self):
        graded = {f"s{k:03d}": 10 + k % 6 for k in range(12)}
        outputs = []
        for serial_below in (10**6, 0):
            out = self._class(graded)
            with mock.patch.object(grade_class, "SERIAL_BELOW", serial_below), \
                    mock.patch.object(grade_class, "usable_cpus", return_value=2):
                self.assertEqual(self._collect(out, list(graded))[0], 0)
            outputs.append([(out / f).read_bytes() for f in ("gradebook.csv", "feedback/s007.html")]
                           + [(out / "class-report.md").read_text().split("## Time to grade")[0]])
        self.assertEqual(outputs[0], outputs[1])

    def test_a_student_of_a_shard_that_did_not_finish_is_named_not_scored_zero(self):
        out = self._class({"alice": 15, "carol": 15})
        class_shards.remember(out / "work", 2)
        status, rows = self._collect(out, ["alice", "bob", "carol"])
        self.assertEqual(status, 1)
        self.assertEqual(rows["bob"][1:-1], ["", ""])
        self.assertTrue(rows["bob"][-1].startswith("not graded: shard 2 of 2 did not finish"), rows["bob"])
        self.assertNotIn("bob", {p.stem for p in (out / "feedback").iterdir()})

    def test_a_graded_student_without_a_fingerprint_was_stopped_half_way(self):
        out = self._class({"alice": 15})
        (out / "work" / "students" / "alice" / "fingerprint").unlink()
        status, rows = self._collect(out, ["alice"])
        self.assertEqual((status, rows["alice"][-1][:10]), (1, "not graded"))

    def test_the_graders_own_failure_is_kept_for_the_collect(self):
        out = self._class({})
        home = out / "work" / "students" / "alice"
        home.mkdir(parents=True)
        (home / grade_class.ERROR).write_text("OSError: disk full\n")
        status, rows = self._collect(out, ["alice"])
        self.assertEqual((status, rows["alice"][-1]), (0, "error: OSError: disk full"))


def fake_sbatch(folder):
    """The environment of a stand-in sbatch on PATH that records its arguments in folder/calls
    and answers job IDs 101, 102, ... in turn."""
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "sbatch"
    fake.write_text(f'#!/bin/sh\necho "$@" >> {folder}/calls\nn=$(wc -l < {folder}/calls)\necho $((100+n))\n')
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    return dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}")


class SlurmScripts(unittest.TestCase):
    def setUp(self):
        self.dir = scratch_dir()
        self.course = self.dir / "course.toml"

    def test_settings_come_from_the_options_else_the_course_file(self):
        self.course.write_text('[slurm]\npartition = "cpu"\naccount = "cs101"\nshards = 8\nthrottle = 3\n')
        s = class_slurm.settings(REPO_ROOT, self.course, {"partition": "short"}, 100)
        self.assertEqual((s["partition"], s["account"], s["shards"], s["throttle"], s["cpus"]),
                         ("short", "cs101", 8, 3, 2))
        self.assertEqual(class_slurm.settings(REPO_ROOT, self.course, {"shards": 50}, 20)["shards"], 20)

    def test_a_wrong_setting_names_its_key(self):
        for text, says in (('[slurm]\npartiton = "cpu"\n', "unknown key.*partiton"),
                           ('[slurm]\ncpus = "four"\n', "cpus should be a whole number"),
                           ('[slurm]\naccount = "cs101\\n#SBATCH --uid=0"\n', "no spaces or line breaks")):
            self.course.write_text(text)
            with self.assertRaisesRegex(class_slurm.SlurmSetupError, says):
                class_slurm.settings(REPO_ROOT, self.course, {}, 10)

    def test_three_scripts_the_array_throttled_each_after_the_one_before(self):
        s = class_slurm.settings(REPO_ROOT, None, {"shards": 4, "throttle": 2, "account": "cs101", "cpus": 3}, 20)
        paths = class_slurm.write(REPO_ROOT, self.dir / "out", ["subs", "--out", "o"], "conv1d", s)
        harness, shards, collect = (p.read_text() for p in paths)
        self.assertIn("--harness", harness)
        self.assertIn("#SBATCH --array=1-4%2", shards)
        self.assertIn('--shard "$SLURM_ARRAY_TASK_ID/4"', shards)
        self.assertIn("#SBATCH --cpus-per-task=3", shards)
        self.assertIn("#SBATCH --account=cs101", collect)
        self.assertIn("--collect", collect)
        self.assertEqual(class_slurm.submit(paths, fake_sbatch(self.dir)), ["101", "102", "103"])
        calls = (self.dir / "calls").read_text().splitlines()
        self.assertNotIn("dependency", calls[0])
        self.assertIn("--dependency=afterok:101", calls[1])
        self.assertIn("--dependency=afterok:102", calls[2])


    def test_every_job_passes_the_roster_and_the_adjustments_on(self):
        subs = self.dir / "subs"
        for student in ("alice", "bob"):
            (subs / student / "7.2-basic-1d").mkdir(parents=True)
            shutil.copy(REPO_ROOT / "solutions" / "7.2-basic-1d" / "convolution_1d_basic.cu", subs / student / "7.2-basic-1d")
        roster, adjustments = self.dir / "roster.csv", self.dir / "adjustments.csv"
        files = [("--roster", str(roster)), ("--adjustments", str(adjustments))]
        with contextlib.redirect_stdout(io.StringIO()):
            status = class_slurm.run(REPO_ROOT, load_chapter(REPO_ROOT), str(subs), str(self.dir / "out"), None, None,
                                     {"shards": 2}, False, None, files=files)
        self.assertEqual(status, 0)
        for job in ("harness", "shards", "collect"):  # the shards name students by the roster, as collect does
            text = (self.dir / "out" / "slurm" / f"{job}.sh").read_text()
            self.assertIn(f"--roster {roster} --adjustments {adjustments}", text, job)


class KubernetesManifests(unittest.TestCase):
    def _jobs(self):
        return class_k8s.manifests("conv1d", ["/class/submissions", "--out", "/class/out"], 8, 3, 2, "img:1", "pvc")

    def test_the_shards_are_an_indexed_job_whose_index_is_the_shard(self):
        shards, collect = self._jobs()
        self.assertEqual((class_k8s.check(shards), class_k8s.check(collect)), ([], []))
        spec = shards["spec"]
        self.assertEqual((spec["completionMode"], spec["completions"], spec["parallelism"]), ("Indexed", 8, 3))
        command = spec["template"]["spec"]["containers"][0]["command"][-1]
        self.assertIn('--shard "$((JOB_COMPLETION_INDEX + 1))/8"', command)
        self.assertIn("--collect", collect["spec"]["template"]["spec"]["containers"][0]["command"][-1])

    def test_the_check_catches_what_the_api_server_would_refuse_or_drop(self):
        def broken(change):
            job = json.loads(json.dumps(self._jobs()[0]))
            change(job)
            return " ".join(class_k8s.check(job))
        pod = lambda j: j["spec"]["template"]["spec"]  # noqa: E731
        self.assertIn("needs spec.completions", broken(lambda j: j["spec"].pop("completions")))
        self.assertIn("completionMod", broken(lambda j: j["spec"].update(completionMod="Indexed")))
        self.assertIn("restartPolicy", broken(lambda j: pod(j).update(restartPolicy="Always")))
        self.assertIn("not among the pod's volumes", broken(lambda j: pod(j).update(volumes=[])))
        self.assertIn("DNS label", broken(lambda j: j["metadata"].update(name="Halo_Shards")))
        self.assertIn("parallelism", broken(lambda j: j["spec"].update(parallelism=-1)))


if __name__ == "__main__":
    unittest.main()
