"""The check installs its tests' tools beside the build (halo/dev/test_tools.py): their messages
come in one piece when the build is done, and a failure stops the check before CTest."""
import contextlib
import io
import sys
import unittest

from halo.dev import test_tools


class BackgroundInstall(unittest.TestCase):
    def finish(self, code):
        bg = test_tools.Background([sys.executable, "-c",
                                    f"import sys; print('halo: installing x (pip)'); print('oops', file=sys.stderr); sys.exit({code})"])
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            ok = bg.finish()
        return ok, out.getvalue()

    def test_messages_come_at_the_end_in_one_piece(self):
        ok, text = self.finish(0)
        self.assertTrue(ok)
        self.assertEqual(text, "halo: installing x (pip)\noops\n")

    def test_a_failed_install_is_reported(self):
        ok, text = self.finish(1)
        self.assertFalse(ok)
        self.assertIn("oops", text)

    def test_the_module_itself_runs(self):
        # The real command, on this machine (the tools are installed by the check that runs this).
        bg = test_tools.Background()
        with contextlib.redirect_stdout(io.StringIO()):
            self.assertTrue(bg.finish())

    def test_stop_ends_the_child(self):
        bg = test_tools.Background([sys.executable, "-c", "import time; time.sleep(60)"])
        bg.stop()
        self.assertIsNotNone(bg.proc.returncode)


if __name__ == "__main__":
    unittest.main()
