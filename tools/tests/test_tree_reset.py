"""The red team's trees put back between grades (halo/dev/tree_reset.py): every kind of change a
grade can make is undone, what it did not touch is not copied again, and the result is the
pristine copy, entry for entry (contents, modes, owners, times)."""
import os
import shutil
import tempfile
import time
import unittest
from pathlib import Path

from halo.dev.tree_reset import TreeResets, listing


def described(top: Path) -> dict:
    """What must be the same as the pristine copy: kind, mode, owner, size, mtime, contents."""
    out = {}
    for rel, (ino, mode, uid, gid, size, mtime, ctime) in listing(top).items():
        path = top / rel
        content = os.readlink(path) if path.is_symlink() else (path.read_bytes() if path.is_file() else None)
        out[rel] = (mode, uid, gid, size, mtime, content)
    return out


class Reset(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="halo-tree-reset-"))
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.pristine = self.tmp / "p"
        (self.pristine / "build" / "lib").mkdir(parents=True)
        (self.pristine / "build" / "lib" / "libhalo.a").write_bytes(b"A" * 1000)
        (self.pristine / "build" / ".ninja_log").write_text("# ninja log v5\n")
        (self.pristine / "run").write_text("#!/bin/sh\n")
        (self.pristine / "run").chmod(0o755)
        (self.pristine / "link").symlink_to("run")
        old = time.time_ns() - 10**12
        for p in self.pristine.rglob("*"):
            os.utime(p, ns=(old, old), follow_symlinks=False)
        self.target = self.tmp / "t"
        self.resets = TreeResets()
        self.resets.copy(self.pristine, self.target)

    def check(self):
        self.resets.reset(self.pristine, self.target)
        self.assertEqual(described(self.target), described(self.pristine))

    def test_a_file_rewritten_in_place_with_its_size_and_time_kept(self):
        lib = self.target / "build" / "lib" / "libhalo.a"
        st = lib.stat()
        with open(lib, "r+b") as f:
            f.write(b"B")
        os.utime(lib, ns=(st.st_atime_ns, st.st_mtime_ns))  # only the change time tells
        self.check()

    def test_appended_removed_added_renamed_and_chmod(self):
        with open(self.target / "build" / ".ninja_log", "a") as f:
            f.write("1\t2\t3\tx\t4\n")
        (self.target / "run").unlink()
        (self.target / "build" / "new").mkdir()
        (self.target / "build" / "new" / "planted.so").write_text("x")
        (self.target / "build" / "lib" / "libhalo.a").rename(self.target / "build" / "lib" / "other.a")
        (self.target / "link").unlink()
        (self.target / "link").symlink_to("/etc/passwd")
        (self.target / "build").chmod(0o777)
        self.check()

    def test_a_folder_replaced_by_a_file_and_back(self):
        shutil.rmtree(self.target / "build" / "lib")
        (self.target / "build" / "lib").write_text("not a folder")
        self.check()
        (self.target / "run").unlink()
        (self.target / "run").mkdir()
        (self.target / "run" / "x").write_text("x")
        self.check()

    def test_what_was_not_touched_is_not_copied_again(self):
        lib = self.target / "build" / "lib" / "libhalo.a"
        inode = lib.stat().st_ino
        (self.target / "run").write_text("changed\n")
        self.check()
        self.assertEqual(lib.stat().st_ino, inode)

    def test_a_fifo_in_the_pristine_copy_falls_back_to_a_whole_copy(self):
        os.mkfifo(self.pristine / "fifo")
        self.resets.copy(self.pristine, self.target)
        (self.target / "fifo").unlink()
        self.check()

    def test_a_control_shows_the_change_is_there_before_the_reset(self):
        (self.target / "run").write_text("changed\n")
        self.assertNotEqual(described(self.target), described(self.pristine))


if __name__ == "__main__":
    unittest.main()
