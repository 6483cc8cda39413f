"""The red team's runner counts a process the grade left running, never one already in the
kernel's exit path (a sandbox's bwrap tearing down its namespaces on a loaded machine): that one
has let go of its memory and runs no code again."""
import os
import subprocess
import sys
import time
import unittest

from halo.dev import redteam


class Exiting(unittest.TestCase):
    def test_a_running_process_is_not_exiting(self):
        proc = subprocess.Popen(["sleep", "30"])
        self.addCleanup(proc.wait)
        self.addCleanup(proc.kill)
        self.assertFalse(redteam._exiting(proc.pid))
        self.assertFalse(redteam._exiting(os.getpid()))

    def test_a_zombie_and_a_gone_process_are(self):
        proc = subprocess.Popen([sys.executable, "-c", "pass"])
        deadline = time.monotonic() + 60
        while redteam._processes().get(proc.pid) and redteam._processes()[proc.pid].state != "Z" \
                and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertTrue(redteam._exiting(proc.pid))  # exited, not reaped yet: no memory
        proc.wait()
        self.assertTrue(redteam._exiting(proc.pid))  # gone


if __name__ == "__main__":
    unittest.main()
