"""What the check's tests need beyond the build: the handouts' renderers (PDF included), the docs
site's builder and a headless browser for its test. `./workbook check` installs them in a process
of their own while it configures and builds (pip and apt mostly wait on the network), and reads
the outcome before CTest starts.

    python -m halo.dev.test_tools      (from tools/; exit status 0 when everything is there)"""
import subprocess
import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parents[2]


def ensure() -> bool:
    """Installs what is missing, with the installers' own messages; False when something could
    not be had (a message above says what)."""
    from ..site import docs_site
    from ..course import handout
    from ..core import pydeps
    if not handout.ensure_dependencies(pdf=True) or not docs_site.ensure_dependencies():
        print("halo check: the handout or docs-site tools could not be installed (message above)", file=sys.stderr)
        return False
    pydeps.ensure_apt(["chromium"], "a headless browser for the docs site's test")  # its test says when missing
    return True


class Background:
    """`ensure()` in a child process started now; `finish()` prints what it said, in one piece
    (not woven into the build's lines), and returns whether it succeeded."""

    def __init__(self, command=None):
        # From the repository's root, as the check runs: the installers name their folders from there.
        command = command or [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
                              "from halo.dev import test_tools; sys.exit(0 if test_tools.ensure() else 1)", str(TOOLS)]
        self.proc = subprocess.Popen(command, cwd=TOOLS.parent,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def finish(self) -> bool:
        out, _ = self.proc.communicate()
        sys.stdout.write(out)
        sys.stdout.flush()
        return self.proc.returncode == 0

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.communicate()


if __name__ == "__main__":
    sys.exit(0 if ensure() else 1)
