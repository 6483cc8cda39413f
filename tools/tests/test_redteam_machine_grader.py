"""The red team's attack on the machine's copy of the grader's libraries and judges (grader/redteam/
tamper-machine-grader) is no dud: its payload, built as a plain program (the grader's validator
refuses the file before any of it runs) and run as an unprivileged user, poisons a copy that user
may write (the control) and leaves alone one that only root can change, which is the only kind a
grade imports (core/grader_cache.py)."""
import os
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

from halo.core import grader_cache
from halo.core import sandbox
from halo.dev import tree_reset

ATTACK = Path(__file__).resolve().parents[2] / "grader/redteam/tamper-machine-grader/7.2-basic-1d/convolution_1d_basic.cu"


def _copy(folder: Path, dir_mode: int, file_mode: int) -> Path:
    entry = folder / "grader" / "0123456789abcdef0123456789abcdef"
    entry.mkdir(parents=True)
    for name in grader_cache.LIBRARIES:
        (entry / f"lib{name}.a").write_bytes(b"!<arch>\n")
        (entry / f"lib{name}.a").chmod(file_mode)
    judges = folder / "grader" / "judges-0123456789abcdef0123456789abcdef" / "7_2"  # core/judge_cache.py
    (judges / "judge").mkdir(parents=True)
    for obj in (judges / "judge" / "test_basic_1d.cpp.o", judges / "worker_entries.o"):
        obj.write_bytes(b"\x7fELF")
        obj.chmod(file_mode)
    for p in (folder, folder / "grader", entry, judges.parent, judges, judges / "judge"):
        p.chmod(dir_mode)
    return folder / "grader"


@unittest.skipUnless(os.geteuid() == 0, "only root can make a folder that another user cannot write")
class Payload(unittest.TestCase):
    def test_it_poisons_what_it_may_write_and_nothing_only_root_can_change(self):
        tmp = Path(tempfile.mkdtemp(prefix="halo-machine-attack-"))
        self.addCleanup(shutil.rmtree, tmp, True)
        tmp.chmod(0o755)
        main = tmp / "main.cpp"
        main.write_text("int main() { return 0; }\n")
        exe = tmp / "payload"
        subprocess.run([shutil.which("clang++") or "clang++", "-std=c++20", "-w", "-D__global__=",
                        "-DHALO_TODO(what)=((void)0)", "-x", "c++", str(ATTACK), "-x", "none", str(main), "-o",
                        str(exe)], check=True)
        exe.chmod(0o755)
        guarded = _copy(tmp / "root-only", 0o755, 0o644)
        open_ = _copy(tmp / "open", 0o777, 0o666)
        self.assertTrue(all(grader_cache.only_root_can_change(e) for e in guarded.iterdir()))
        before = tree_reset.listing(guarded)
        env = {"PATH": "/usr/bin:/bin", grader_cache.MACHINE_ENV: str(guarded), grader_cache.ENV: str(open_)}
        subprocess.run([str(exe)], env=env, preexec_fn=sandbox._drop_privileges, check=True, cwd="/")
        self.assertEqual(tree_reset.listing(guarded), before, "the copy only root can change")
        poisoned = open_ / "0123456789abcdef0123456789abcdef" / f"lib{grader_cache.LIBRARIES[0]}.a"
        self.assertIn(b"poisoned", poisoned.read_bytes(), "the control: a copy its user may write")
        judge = open_ / "judges-0123456789abcdef0123456789abcdef" / "7_2" / "judge" / "test_basic_1d.cpp.o"
        self.assertIn(b"poisoned", judge.read_bytes(), "the control: a judge's object its user may write")
        self.assertTrue((open_ / ("0" * 32)).is_dir(), "the control: an entry planted")


if __name__ == "__main__":
    unittest.main()
