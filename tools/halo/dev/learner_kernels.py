"""The learner corpus: kernels written the way learners write them (grader/learners/<folder>/),
each with the verdict the grader must give. grader/learners/<folder>.toml lists them:

    [[learner]]
    name = "guard only on the store"        # unique in the section
    file = "convolution_1d_basic.cu"         # the kernel file it replaces in the section's tree
    source = "guard-only-on-the-store.cu"    # in grader/learners/<folder>/; or, for a file of
                                             # several kernels, replace = "..." and with = "..."
                                             # (one kernel changed in the reference file)
    style = "every thread computes; only the store is guarded"
    verdict = "pass"                         # or "fail"
    key = "wrong-values"                     # fail: the key of the first failure shown (message_keys.py)
    expect = "..."                           # optional: a regular expression the output must match

`./workbook check` builds each one in a copy of the solution tree and runs the section's tests:
a "pass" kernel must pass every test, a "fail" kernel must fail with its key first."""
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from ..core import message_keys
from ..core import wrong_kernels
from ..core.tomlcompat import load_toml


class LearnerKernelError(Exception):
    pass


@dataclass
class LearnerKernel:
    name: str
    file: str
    source: str
    style: str
    verdict: str
    key: str
    expect: str
    changes: list = None  # (old, new) edits of the reference file, when there is no source

    @property
    def slug(self):
        return re.sub(r"[^a-z0-9]+", "-", self.name.lower()).strip("-")


def load(root, section):
    path = Path(root) / "grader" / "learners" / f"{section.folder}.toml"
    if not path.exists():
        return []
    keys = {k for k, _ in message_keys.KEYS}
    out = []
    for k, e in enumerate(load_toml(path).get("learner", []), start=1):
        missing = [f for f in ("name", "file", "style", "verdict") if f not in e]
        if "source" not in e and not ("replace" in e and "with" in e):
            missing.append("source (or replace and with)")
        if missing:
            raise LearnerKernelError(f"{path}: entry {k} lacks {', '.join(missing)}")
        if re.search(r"[|;\n]", e["name"]):
            raise LearnerKernelError(f"{path}: '{e['name']}': a name may not contain | ; or a newline")
        if e["verdict"] not in ("pass", "fail"):
            raise LearnerKernelError(f"{path}: '{e['name']}': verdict is pass or fail")
        if e["verdict"] == "fail" and e.get("key") not in keys:
            raise LearnerKernelError(f"{path}: '{e['name']}': a failing kernel needs a key, one of {', '.join(sorted(keys))}")
        if "source" in e and not (path.parent / section.folder / e["source"]).is_file():
            raise LearnerKernelError(f"{path}: '{e['name']}': grader/learners/{section.folder}/{e['source']} does not exist")
        try:
            re.compile(e.get("expect", ""))
        except re.error as err:
            raise LearnerKernelError(f"{path}: '{e['name']}': expect is not a valid regular expression: {err}")
        changes = [(e["replace"], e["with"])] if "source" not in e else None
        out.append(LearnerKernel(e["name"], e["file"], e.get("source", ""), e["style"], e["verdict"], e.get("key", ""),
                                 e.get("expect", ""), changes))
    slugs = [x.slug for x in out]
    if len(set(slugs)) != len(slugs):
        raise LearnerKernelError(f"{path}: two entries have names that differ only in punctuation")
    return out


def write_tree(root, section, learner, out_dir):
    """The section's solution files in out_dir, with the learner's file in place of one of them."""
    solutions = Path(root) / "solutions" / section.folder
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    sources = {src.name: src.read_text() for src in solutions.iterdir() if src.is_file()}
    if learner.file not in sources:
        raise LearnerKernelError(f"'{learner.name}': solutions/{section.folder}/{learner.file} does not exist")
    if learner.changes:
        sources[learner.file] = wrong_kernels.apply_changes(sources[learner.file], learner.changes, f"'{learner.name}'",
                                                            f"solutions/{section.folder}/{learner.file}")
    else:
        sources[learner.file] = (Path(root) / "grader" / "learners" / section.folder / learner.source).read_text()
    for stale in out_dir.iterdir():
        if stale.name not in sources:
            shutil.rmtree(stale) if stale.is_dir() else stale.unlink()
    for name, content in sources.items():
        path = out_dir / name
        if not path.exists() or path.read_text() != content:  # unchanged files keep their timestamps
            path.write_text(content)


def check(entry, returncode, output):
    """Problems with a learner kernel's run (empty: the grader said what it must). A wrong
    kernel's key is that of the first entry the terminal shows (failure_groups.py)."""
    from ..core.failure_groups import doctest_failures, group
    from ..core.results import failure_message
    problems = []
    if entry.verdict == "pass":
        if returncode != 0:
            problems.append(f"a right kernel failed (exit {returncode}):\n{failure_message(output)}")
    else:
        groups = group(doctest_failures(output)) if returncode == 1 else []
        if returncode != 1 or not groups:
            problems.append(f"a wrong kernel did not fail cleanly (exit {returncode})")
        elif groups[0].key != entry.key:
            problems.append(f"the first entry shown has key {groups[0].key!r}, not {entry.key!r}:\n{groups[0].message}")
    if entry.expect and not re.search(entry.expect, output):
        problems.append(f"the output does not match /{entry.expect}/")
    return problems
