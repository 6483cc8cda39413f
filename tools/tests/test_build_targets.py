"""build.build_targets tells which targets failed from one Ninja run: a one-section grade with a
compile error compiles the broken file once, not once more on its own; when several targets fail,
each is built again on its own, so that each failure keeps its own compiler output. A real CMake
and Ninja build of two small programs, with a compiler launcher that counts the compiles."""
import os
import shutil
import subprocess
import tempfile
import textwrap
import unittest
from pathlib import Path
from types import SimpleNamespace

from halo.core import build

CMAKE = shutil.which("cmake")
NINJA = shutil.which("ninja")

PROJECT = """
cmake_minimum_required(VERSION 3.20)
project(two LANGUAGES CXX)
add_library(shared_part OBJECT shared.cpp)
add_executable(alpha alpha.cpp $<TARGET_OBJECTS:shared_part>)
add_executable(beta beta.cpp)
"""
GOOD = "int main() { return 0; }\n"
SHARED = "int shared_value() { return 1; }\n"


@unittest.skipUnless(CMAKE and NINJA, "needs cmake and ninja")
class BuildTargets(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp(prefix="halo-build-targets-"))
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.src, self.build = self.dir / "src", self.dir / "build"
        self.src.mkdir()
        self.log = self.dir / "compiles.log"
        launcher = self.dir / "count.sh"
        # The launcher logs the source file each compile names (the argument after -c).
        launcher.write_text(textwrap.dedent(f"""\
            #!/bin/sh
            prev=""
            for a in "$@"; do [ "$prev" = "-c" ] && echo "$(basename "$a")" >> {self.log}; prev="$a"; done
            exec "$@"
            """))
        launcher.chmod(0o755)
        (self.src / "CMakeLists.txt").write_text(PROJECT)
        for name, text in (("alpha.cpp", GOOD), ("beta.cpp", GOOD), ("shared.cpp", SHARED)):
            (self.src / name).write_text(text)
        subprocess.run([CMAKE, "-S", str(self.src), "-B", str(self.build), "-G", "Ninja",
                        f"-DCMAKE_CXX_COMPILER_LAUNCHER={launcher}"], check=True, capture_output=True)
        self.tc = SimpleNamespace(cmake=CMAKE)
        self.assertEqual(build.build_targets(self.tc, self.build, ["alpha", "beta"]), {})
        self.log.unlink()

    def compiles(self):
        return self.log.read_text().split() if self.log.exists() else []

    def test_one_broken_target_is_compiled_once(self):
        (self.src / "beta.cpp").write_text("int main() { return undeclared_beta; }\n")
        failed = build.build_targets(self.tc, self.build, ["alpha", "beta"])
        self.assertEqual(list(failed), ["beta"])
        self.assertIn("undeclared_beta", failed["beta"])
        self.assertEqual(self.compiles(), ["beta.cpp"])

    def test_a_broken_object_library_names_the_program_made_of_it(self):
        (self.src / "shared.cpp").write_text("int shared_value() { return undeclared_shared; }\n")
        failed = build.build_targets(self.tc, self.build, ["alpha", "beta"])
        self.assertEqual(list(failed), ["alpha"])
        self.assertIn("undeclared_shared", failed["alpha"])
        self.assertEqual(self.compiles(), ["shared.cpp"])

    def test_a_failed_link_names_its_program(self):
        (self.src / "beta.cpp").write_text("int missing_beta();\nint main() { return missing_beta(); }\n")
        failed = build.build_targets(self.tc, self.build, ["alpha", "beta"])
        self.assertEqual(list(failed), ["beta"])
        self.assertIn("missing_beta", failed["beta"])

    def test_two_broken_targets_each_keep_their_own_output(self):
        (self.src / "alpha.cpp").write_text("int main() { return undeclared_alpha; }\n")
        (self.src / "beta.cpp").write_text("int main() { return undeclared_beta; }\n")
        failed = build.build_targets(self.tc, self.build, ["alpha", "beta"])
        self.assertEqual(sorted(failed), ["alpha", "beta"])
        self.assertIn("undeclared_alpha", failed["alpha"])
        self.assertNotIn("undeclared_beta", failed["alpha"])
        self.assertIn("undeclared_beta", failed["beta"])
        self.assertNotIn("undeclared_alpha", failed["beta"])

    def test_output_that_names_no_target_is_not_guessed(self):
        """The control: without a FAILED line that a target is made of, every target is built on
        its own again, as before."""
        self.assertIsNone(build.failed_targets(self.build, ["alpha", "beta"], "ninja: error: loading 'build.ninja'\n"))
        self.assertIsNone(build.failed_targets(self.build, ["alpha"], "FAILED: CMakeFiles/beta.dir/beta.cpp.o \n"))


if __name__ == "__main__":
    unittest.main()
