"""halo.core.cpus: the CPUs this process may use, from a real affinity mask (taskset) and from fake
cgroup folders (grader/platform/tests/cgroup_cases.txt, the cases the C++ runtime's rule is tested
on too) and Slurm variables given by path and mapping, never the host's count."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from halo.core import build, cpus

TOOLS = Path(__file__).resolve().parents[1]


# The cases of the cgroup rule, shared with the C++ runtime's test (the file's header says the format).
CASES = Path(__file__).resolve().parents[2] / "grader" / "platform" / "tests" / "cgroup_cases.txt"


def read_cases():
    """(CPUs wanted or None, what it shows, /proc/self/cgroup text, {relative path: content})."""
    cases = []
    for line in CASES.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        wanted, what, proc, files = (field.strip() for field in line.split("|"))
        cases.append((None if wanted == "none" else int(wanted), what,
                      "".join(p.strip() + "\n" for p in proc.split(";")),
                      dict(f.strip().split("=", 1) for f in files.split(";"))))
    return cases


def fake_tree(folder, proc, files):
    """A cgroup tree under `folder` and the /proc/self/cgroup text that points into it."""
    (folder / "self-cgroup").write_text(proc)
    for relative, content in files.items():
        path = folder / "fs" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content + "\n")
    return folder / "fs", folder / "self-cgroup"


class CgroupQuotaTest(unittest.TestCase):
    def test_every_case(self):
        cases = read_cases()
        self.assertGreaterEqual(len(cases), 6, f"{CASES} lost its cases")
        for wanted, what, proc, files in cases:
            with self.subTest(what), tempfile.TemporaryDirectory(prefix="halo-cgroup-") as folder:
                root, proc_file = fake_tree(Path(folder), proc, files)
                self.assertEqual(cpus.cgroup_cpus(root, proc_file), wanted)

    def test_quota_lowers_the_usable_count(self):
        with tempfile.TemporaryDirectory(prefix="halo-cgroup-") as folder:
            root, proc_file = fake_tree(Path(folder), "0::/\n", {"cpu.max": "100000 100000"})
            self.assertEqual(cpus.usable_cpus(root, proc_file, environ={}), 1)


class SlurmTest(unittest.TestCase):
    def test_cpus_per_task_lowers_the_count(self):
        self.assertEqual(cpus.usable_cpus("/nonexistent", "/nonexistent", {"SLURM_CPUS_PER_TASK": "1"}), 1)

    def test_nonsense_is_ignored(self):
        self.assertIsNone(cpus.slurm_cpus({"SLURM_CPUS_PER_TASK": "lots"}))
        self.assertIsNone(cpus.slurm_cpus({"SLURM_CPUS_PER_TASK": "0"}))


class AffinityTest(unittest.TestCase):
    """Run under a real affinity mask of one CPU: the helper and the build's job count say 1."""

    def test_taskset_one_cpu(self):
        taskset = shutil.which("taskset")
        self.assertIsNotNone(taskset, "taskset (util-linux) is needed for this test")
        code = ("from halo.core import build, cpus; "
                "print(cpus.usable_cpus(cgroup_root='/nonexistent', environ={}), build.jobs())")
        env = dict(os.environ, PYTHONPATH=str(TOOLS))
        out = subprocess.run([taskset, "-c", "0", sys.executable, "-c", code], env=env,
                             capture_output=True, text=True, check=True).stdout.split()
        self.assertEqual(out, ["1", "1"])

    def test_never_more_than_the_affinity_mask(self):
        self.assertLessEqual(int(build.jobs()), len(os.sched_getaffinity(0)))


if __name__ == "__main__":
    unittest.main()
