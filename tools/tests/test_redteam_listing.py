"""The red-team runner's listing of a tree (redteam._listing), taken around every grade to find
what the grade added, changed or removed: folders, files and links (never followed), the
skipped relative paths and the ignored absolute globs left out, and a change of content seen,
even one that puts the file's size and mtime back."""
import os
import shutil
import tempfile
import time
import unittest
from pathlib import Path

from halo.dev import redteam


class Listing(unittest.TestCase):
    def setUp(self):
        self.top = Path(tempfile.mkdtemp(prefix="halo-listing-"))
        self.addCleanup(shutil.rmtree, self.top, True)
        (self.top / "a" / "b").mkdir(parents=True)
        (self.top / "a" / "b" / "f.txt").write_text("one")
        (self.top / "build" / "x").mkdir(parents=True)
        (self.top / "build" / "x" / "obj").write_text("skipped")
        (self.top / "logs").mkdir()
        (self.top / "logs" / "run.log").write_text("ignored")
        outside = self.top / "a" / "b"
        os.symlink(outside, self.top / "dirlink")
        os.symlink("/etc/passwd", self.top / "filelink")

    def test_what_it_lists(self):
        got = redteam._listing(self.top, skip=("build",), ignore=[str(self.top / "logs" / "*")])
        self.assertEqual(sorted(got), ["a", "a/b", "a/b/f.txt", "dirlink", "filelink", "logs"])
        self.assertEqual(got["a"], ("dir", 0, 0))
        self.assertEqual(got["a/b/f.txt"][:2], ("file", 3))
        self.assertEqual(got["dirlink"][0], f"link:{self.top / 'a' / 'b'}")  # not followed
        self.assertEqual(got["filelink"][0], "link:/etc/passwd")

    def test_a_change_is_a_difference(self):
        before = redteam._listing(self.top)
        path = self.top / "a" / "b" / "f.txt"
        path.write_text("two!")
        (self.top / "new").write_text("")
        self.assertEqual(redteam._differences(before, redteam._listing(self.top), ""),
                         ["changed a/b/f.txt", "added new"])
        self.assertEqual(redteam._listing(self.top / "missing"), {})

    def test_a_rewrite_that_puts_size_and_mtime_back_is_seen_by_its_ctime(self):
        path = self.top / "a" / "b" / "f.txt"
        st = path.stat()
        before, before_plain = redteam._listing(self.top, ctime=True), redteam._listing(self.top)
        # Rewritten until the inode's change time moves (a file system's clock may tick in
        # milliseconds), with the same size and the mtime put back each time: never a wait of a
        # fixed length, which a busy machine could outrun.
        for _ in range(1000):
            path.write_text("two")
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
            if path.stat().st_ctime_ns != st.st_ctime_ns:
                break
            time.sleep(0.005)
        self.assertNotEqual(path.stat().st_ctime_ns, st.st_ctime_ns)
        self.assertEqual(redteam._differences(before, redteam._listing(self.top, ctime=True), ""),
                         ["changed a/b/f.txt"])
        # The control: size and mtime alone do not tell.
        self.assertEqual(redteam._differences(before_plain, redteam._listing(self.top), ""), [])


if __name__ == "__main__":
    unittest.main()
