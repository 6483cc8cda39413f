"""Known-wrong kernels: grader/wrong/<folder>.toml lists mutations of a section's reference
solution (one `replace`/`with` change, plus any `[[wrong.also]]` changes that belong to the
same mistake), with the output the grader must produce when it runs them. The chapter's known mistakes, read by
the course's tools (handouts, the generated class, the autograder's check) and the docs site as much
as by the project's own check: so they live in core/, which every room stands on."""
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from .tomlcompat import load_toml


class WrongKernelError(Exception):
    pass


# compute-sanitizer tools a wrong kernel can be marked for (gpu_sanitizer = "..."): memcheck
# finds out-of-bounds global accesses, racecheck shared-memory races.
GPU_SANITIZER_TOOLS = ("", "memcheck", "racecheck")


@dataclass
class WrongKernel:
    name: str
    file: str
    replace: str
    with_: str
    why: str
    expect: str
    more: list = None  # further (replace, with) pairs, from `[[wrong.also]]` tables
    env: dict = None   # environment for its test run, e.g. a short HALO_LAUNCH_TIMEOUT for a hang
    # The compute-sanitizer tool that must also catch it on a GPU ("memcheck" or "racecheck"), or "".
    gpu_sanitizer: str = ""

    def changes(self):
        return [(self.replace, self.with_)] + list(self.more or [])

    @property
    def slug(self):
        return re.sub(r"[^a-z0-9]+", "-", self.name.lower()).strip("-")


def load(root, section):
    path = Path(root) / "grader" / "wrong" / f"{section.folder}.toml"
    if not path.exists():
        return []
    data = load_toml(path)
    out = []
    for k, w in enumerate(data.get("wrong", []), start=1):
        missing = [f for f in ("name", "file", "replace", "with", "expect") if f not in w]
        if missing:
            raise WrongKernelError(f"{path}: entry {k} lacks {', '.join(missing)}")
        if re.search(r"[|;\n]", w["name"]) or not re.search(r"[A-Za-z0-9]", w["name"]):
            raise WrongKernelError(f"{path}: entry {k}: a name needs a letter or digit and may not contain | ; or a newline")
        if "\n" in w.get("why", ""):
            raise WrongKernelError(f"{path}: '{w['name']}': why must be one line (it becomes a comment)")
        try:
            re.compile(w["expect"])
        except re.error as e:
            raise WrongKernelError(f"{path}: '{w['name']}': expect is not a valid regular expression: {e}")
        also = w.get("also", [])
        if not all(isinstance(a, dict) and "replace" in a and "with" in a for a in also):
            raise WrongKernelError(f"{path}: '{w['name']}': each [[wrong.also]] needs replace and with")
        env = w.get("env", {})
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
            raise WrongKernelError(f"{path}: '{w['name']}': env values must be strings")
        gpu_sanitizer = w.get("gpu_sanitizer", "")
        if gpu_sanitizer not in GPU_SANITIZER_TOOLS:
            raise WrongKernelError(f"{path}: '{w['name']}': gpu_sanitizer must be one of "
                                   f"{', '.join(t for t in GPU_SANITIZER_TOOLS if t)} (or left out)")
        out.append(WrongKernel(w["name"], w["file"], w["replace"], w["with"], w.get("why", ""), w["expect"],
                               [(a["replace"], a["with"]) for a in also], env, gpu_sanitizer))
    slugs = [w.slug for w in out]
    if len(set(slugs)) != len(slugs):
        raise WrongKernelError(f"{path}: two entries have names that differ only in punctuation")
    return out


def _write_if_changed(path, text):
    # Unchanged files keep their timestamps, so a reconfigure does not rebuild every mutant.
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def apply_changes(text, changes, who, where):
    """`text` with each (old, new) change made; each old text must occur exactly once."""
    for old, new in changes:
        n = text.count(old)
        if n != 1:
            raise WrongKernelError(f"{who}: the text to replace occurs {n} times in {where} "
                                   f"(it must occur exactly once): {old!r}")
        text = text.replace(old, new)
    return text


def write_tree(root, section, wrong, out_dir):
    """Writes the section's solution files into out_dir with the one change applied."""
    solutions = Path(root) / "solutions" / section.folder
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    sources = {src.name: src.read_text() for src in solutions.iterdir() if src.is_file()}
    for stale in out_dir.iterdir():
        if stale.name not in sources:
            shutil.rmtree(stale) if stale.is_dir() else stale.unlink()
    if wrong.file not in sources:
        raise WrongKernelError(f"'{wrong.name}': solutions/{section.folder}/{wrong.file} does not exist")
    text = apply_changes(sources[wrong.file], wrong.changes(), f"'{wrong.name}'", f"solutions/{section.folder}/{wrong.file}")
    sources[wrong.file] = f"// Known-wrong kernel '{wrong.name}': {wrong.why}\n" + text
    for name, content in sources.items():
        _write_if_changed(out_dir / name, content)
