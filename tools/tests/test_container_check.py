"""The Dev Container's files agree with each other, with the Dev Container spec and with the
grade preset, and `check --container` judges what the grade prints as its docstring says. The
image itself is built and graded in by `./workbook check --container` (docs/results/container.md),
which needs root and podman; these tests need neither."""
import json
import re
import resource
import unittest

from halo.core import grader_cache, judge_cache
from halo.dev import container_base, container_check

from .helpers import REPO_ROOT

DEVCONTAINER = REPO_ROOT / ".devcontainer"
# Top-level properties of devcontainer.json that the Dev Container spec defines
# (containers.dev/implementors/json_reference) and that an image-based configuration may use.
SPEC_PROPERTIES = {"name", "build", "image", "forwardPorts", "portsAttributes", "containerEnv", "remoteEnv",
                   "remoteUser", "containerUser", "updateRemoteUserUID", "userEnvProbe", "overrideCommand",
                   "shutdownAction", "init", "privileged", "capAdd", "securityOpt", "mounts", "features",
                   "customizations", "runArgs", "workspaceMount", "workspaceFolder", "initializeCommand",
                   "onCreateCommand", "updateContentCommand", "postCreateCommand", "postStartCommand",
                   "postAttachCommand", "waitFor", "hostRequirements", "appPort"}
BUILD_PROPERTIES = {"dockerfile", "context", "args", "target", "cacheFrom", "options"}


class DevContainerFiles(unittest.TestCase):
    def setUp(self):
        self.config = json.loads((DEVCONTAINER / "devcontainer.json").read_text())
        self.containerfile = (DEVCONTAINER / "Containerfile").read_text()

    def arg_default(self, name):
        m = re.search(rf"^ARG {name}=(\S+)$", self.containerfile, re.M)
        self.assertIsNotNone(m, f"the Containerfile has no ARG {name} with a default")
        return m.group(1)

    def test_only_properties_of_the_spec(self):
        self.assertLessEqual(set(self.config), SPEC_PROPERTIES)
        self.assertLessEqual(set(self.config["build"]), BUILD_PROPERTIES)
        self.assertTrue((DEVCONTAINER / self.config["build"]["dockerfile"]).is_file())
        # The context is the repository (the image copies ./workbook and tools/), relative to the file.
        self.assertEqual((DEVCONTAINER / self.config["build"]["context"]).resolve(), REPO_ROOT.resolve())

    def test_the_build_context_holds_what_the_image_copies_and_nothing_else(self):
        lines = [line for line in (REPO_ROOT / ".dockerignore").read_text().splitlines()
                 if line and not line.startswith("#")]
        self.assertEqual(lines[0], "*")
        kept = {line[1:] for line in lines if line.startswith("!")}
        sources = [line.split()[1] for line in self.containerfile.splitlines() if line.startswith("COPY ")]
        # What the toolchain's layer copies is in the context; the grader's layer copies all of it.
        self.assertLessEqual(set(sources) - {"."}, kept)
        self.assertIn(".", sources)
        copied = kept
        # Everything the grader's libraries and judges are made of, which setup builds in the image
        # (core/grader_cache.py's and core/judge_cache.py's keys read these, and the chapters for
        # the generated headers).
        for needed in grader_cache.SOURCES + grader_cache.BUILD_FILES + judge_cache.SOURCES + ("chapters", "tools/halo"):
            self.assertTrue(any(needed == c or needed.startswith(c + "/") for c in copied), needed)

    def test_the_base_is_a_build_argument_whose_default_is_public_debian_12(self):
        self.assertEqual(self.arg_default("BASE"), "debian:12")
        self.assertEqual(self.config["build"]["args"]["BASE"], "debian:12")
        first = [line for line in self.containerfile.splitlines() if line.startswith("FROM ")]
        self.assertEqual(first, ["FROM ${BASE}"])

    def test_the_toolchain_comes_from_the_bootstrap_and_the_user_is_not_root(self):
        self.assertRegex(self.containerfile, r"(?m)^RUN python3 \S+/workbook setup")
        users = re.findall(r"(?m)^USER (\S+)$", self.containerfile)
        self.assertEqual(users, ["${USERNAME}"])
        self.assertEqual(self.arg_default("USERNAME"), self.config["remoteUser"])
        self.assertEqual(int(self.arg_default("USER_UID")), container_check.USER_UID)

    def test_the_editor_has_its_extensions_and_the_grade_builds_compile_commands(self):
        vscode = self.config["customizations"]["vscode"]
        self.assertEqual(set(vscode["extensions"]), {"ms-vscode.cpptools", "ms-vscode.cmake-tools"})
        presets = json.loads((REPO_ROOT / "CMakePresets.json").read_text())["configurePresets"]
        grade = next(p for p in presets if p["name"] == "grade")
        base = next(p for p in presets if p["name"] == grade["inherits"])
        self.assertEqual(base["cacheVariables"]["CMAKE_EXPORT_COMPILE_COMMANDS"], "ON")
        where = grade["binaryDir"].replace("${sourceDir}", "${workspaceFolder}") + "/compile_commands.json"
        self.assertEqual(vscode["settings"]["C_Cpp.default.compileCommands"], where)


class ContainerCheck(unittest.TestCase):
    def test_podman_is_never_asked_for_limits_above_the_callers(self):
        args = container_base.ulimits()
        limits = dict(a.split("=", 1) for a in args[1::2])
        for name, resource_id in (("nofile", resource.RLIMIT_NOFILE), ("nproc", resource.RLIMIT_NPROC)):
            soft, hard = (int(v) for v in limits[name].split(":"))
            own = resource.getrlimit(resource_id)[1]
            self.assertLessEqual(soft, hard)
            if own != resource.RLIM_INFINITY:
                self.assertLessEqual(hard, own, name)

    def test_the_image_is_built_from_the_local_base_for_the_platform_asked(self):
        cmd = container_check.build_command(REPO_ROOT, "arm64", "localhost/halo-base:bookworm-arm64", "t:arm64")
        self.assertIn("--pull=never", cmd)   # no registry is asked: the base is the one imported
        self.assertEqual(cmd[cmd.index("--platform") + 1], "linux/arm64")
        self.assertIn("BASE=localhost/halo-base:bookworm-arm64", cmd)
        self.assertIn(f"USER_UID={container_check.USER_UID}", cmd)

    def test_the_limits_only_note_must_be_said_exactly_once_without_bubblewrap(self):
        note = ("halo: note: your kernels run without the bubblewrap sandbox (bubblewrap cannot start here: "
                "x): resource limits only\n")
        self.assertEqual(container_check.sandbox_problems("g", "out\n" + note, "rlimits-only"), [])
        self.assertEqual(len(container_check.sandbox_problems("g", note * 2, "rlimits-only")), 1)
        self.assertEqual(len(container_check.sandbox_problems("g", "out\n", "rlimits-only")), 1)
        self.assertEqual(container_check.sandbox_problems("g", "out\n", "bubblewrap"), [])
        self.assertEqual(len(container_check.sandbox_problems("g", note, "bubblewrap")), 1)
        self.assertEqual(len(container_check.sandbox_problems("g", note, None)), 1)


if __name__ == "__main__":
    unittest.main()
