"""The red-team runner's private /tmp, /var/tmp and /dev/shm (issue 36, item 5): what a grade
leaves there is found exactly, and what another program writes to the machine's own folders at
the same time is not taken for it (a container build writing to /var/tmp made two red-team tests
fail). Needs root and mount namespaces, as the runner's private mode does; fails without them."""
import argparse
import os
import shutil
import subprocess
import tempfile
import unittest
import uuid
from pathlib import Path

from halo.dev import redteam


class PrivateFolders(unittest.TestCase):
    def setUp(self):
        self.work = Path(tempfile.mkdtemp(prefix="halo-redteam-test-", dir="/tmp"))
        self.addCleanup(shutil.rmtree, self.work, True)
        args = argparse.Namespace(seed="1", tmp="private", checkout=None)
        self.runner = redteam.Runner(Path("."), self.work, args)

    def test_a_grade_s_files_are_found_and_another_program_s_are_not(self):
        self.assertTrue(self.runner.private_tmp, "root and unshare are needed for the private folders")
        name = f"halo-test-{uuid.uuid4().hex}"
        other = Path("/var/tmp") / f"{name}-another-program"
        other.write_text("written by something else on the machine")  # as a container tool would
        self.addCleanup(other.unlink)
        script = f"touch /tmp/{name} /var/tmp/{name} /dev/shm/{name}"
        subprocess.run(self.runner._wrap(["/bin/sh", "-c", script], None), check=True)
        for top in ("/tmp", "/var/tmp", "/dev/shm"):
            self.assertFalse((Path(top) / name).exists(), f"the grade wrote to the machine's {top}")
        self.assertEqual(self.runner.take_private_leftovers(),
                         [f"left {top}/{name} behind" for top in ("/tmp", "/var/tmp", "/dev/shm")])
        self.assertEqual(self.runner.take_private_leftovers(), [], "the private folders are emptied")


if __name__ == "__main__":
    unittest.main()
