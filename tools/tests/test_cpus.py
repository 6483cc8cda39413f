"""halo.core.cpus: the CPUs this process may use, from a real affinity mask (taskset) and from fake
cgroup folders and Slurm variables given by path and mapping, never the host's count."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from halo.core import build, cpus

TOOLS = Path(__file__).resolve().parents[1]


class FakeCgroup:
    """A cgroup tree under a temporary folder and the /proc/self/cgroup text that points into it."""

    def __init__(self, proc_lines):
        self.dir = Path(tempfile.mkdtemp(prefix="halo-cgroup-"))
        self.root = self.dir / "fs"
        self.proc = self.dir / "proc-self-cgroup"
        self.proc.write_text("".join(line + "\n" for line in proc_lines))

    def write(self, relative, text):
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    def cpus(self):
        return cpus.cgroup_cpus(self.root, self.proc)

    def close(self):
        shutil.rmtree(self.dir)


class CgroupQuotaTest(unittest.TestCase):
    def fake(self, proc_lines):
        cg = FakeCgroup(proc_lines)
        self.addCleanup(cg.close)
        return cg

    def test_v2_quota_of_the_own_folder_rounds_up(self):
        cg = self.fake(["0::/job/step"])
        cg.write("job/step/cpu.max", "150000 100000\n")
        self.assertEqual(cg.cpus(), 2)

    def test_v2_parent_quota_limits_a_child_without_one(self):
        cg = self.fake(["0::/slot/inner"])
        cg.write("slot/cpu.max", "300000 100000\n")
        cg.write("slot/inner/cpu.max", "max 100000\n")
        self.assertEqual(cg.cpus(), 3)

    def test_v2_in_a_container_whose_path_is_the_hosts(self):
        # Docker shows the host's path in /proc/self/cgroup and mounts the container's own cgroup
        # at the root: the quota is found by walking up to it.
        cg = self.fake(["0::/system.slice/docker-abc.scope"])
        cg.write("cpu.max", "200000 100000\n")
        self.assertEqual(cg.cpus(), 2)

    def test_v2_no_quota(self):
        cg = self.fake(["0::/"])
        cg.write("cpu.max", "max 100000\n")
        self.assertIsNone(cg.cpus())

    def test_v1_quota(self):
        cg = self.fake(["4:memory:/x", "2:cpu,cpuacct:/x"])
        cg.write("cpu,cpuacct/x/cpu.cfs_quota_us", "400000\n")
        cg.write("cpu,cpuacct/x/cpu.cfs_period_us", "100000\n")
        self.assertEqual(cg.cpus(), 4)

    def test_v1_unlimited(self):
        cg = self.fake(["1:cpu:/"])
        cg.write("cpu/cpu.cfs_quota_us", "-1\n")
        cg.write("cpu/cpu.cfs_period_us", "100000\n")
        self.assertIsNone(cg.cpus())

    def test_quota_lowers_the_usable_count(self):
        cg = self.fake(["0::/"])
        cg.write("cpu.max", "100000 100000\n")
        self.assertEqual(cpus.usable_cpus(cg.root, cg.proc, environ={}), 1)


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
