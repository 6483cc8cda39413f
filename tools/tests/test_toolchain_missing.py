"""What `./workbook grade` says on a Debian machine that lacks part of the toolchain and cannot
install it (no root, no password-less sudo): the setup command first, since it also builds the
grader's libraries once for the machine (a clone's first grade then imports them,
docs/getting-started.md), and the bare apt-get line for those who want the packages alone."""
import contextlib
import io
import unittest
from unittest import mock

from halo.core import toolchain


def _message(missing):
    tc = toolchain.Toolchain(cxx="/usr/bin/clang++", missing=missing)
    err = io.StringIO()
    with mock.patch.object(toolchain, "inspect", return_value=tc), \
            mock.patch.object(toolchain, "can_install", return_value=None), \
            mock.patch.object(toolchain.shutil, "which", side_effect=lambda name: f"/usr/bin/{name}"), \
            contextlib.redirect_stderr(err), self_exit() as code:
        toolchain.ensure()
    return code[0], err.getvalue()


@contextlib.contextmanager
def self_exit():
    code = [None]
    try:
        yield code
    except SystemExit as e:
        code[0] = e.code


class MissingToolchain(unittest.TestCase):
    def test_setup_is_the_line_to_run_and_apt_get_the_alternative(self):
        code, text = _message([("Ninja", "ninja-build"), ("doctest", "doctest-dev")])
        self.assertEqual(code, 2)
        self.assertIn("halo: missing Ninja, doctest.", text)
        lines = [line.strip() for line in text.splitlines()]
        self.assertIn("sudo ./workbook setup", lines)
        self.assertIn("or the packages alone: sudo apt-get install -y doctest-dev ninja-build", lines)
        self.assertLess(lines.index("sudo ./workbook setup"), lines.index(
            "or the packages alone: sudo apt-get install -y doctest-dev ninja-build"))

    def test_nothing_missing_prints_nothing(self):  # the control: the message is the missing case's
        tc = toolchain.Toolchain(cxx="/usr/bin/clang++")
        err = io.StringIO()
        with mock.patch.object(toolchain, "inspect", return_value=tc), contextlib.redirect_stderr(err):
            self.assertIs(toolchain.ensure(), tc)
        self.assertEqual(err.getvalue(), "")


if __name__ == "__main__":
    unittest.main()
