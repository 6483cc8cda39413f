"""Shared test helpers: the repository root and throwaway chapters."""
import atexit
import shutil
import tempfile
import textwrap
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


def make_chapter(*sections: str) -> Path:
    """A temporary repo root with one section per questions.toml text (folders s1, s2, ...)."""
    root = Path(tempfile.mkdtemp(prefix="halo-test-"))
    atexit.register(shutil.rmtree, root, True)
    manifest = []
    for k, text in enumerate(sections, 1):
        manifest.append(f'[[sections]]\nid = "{k}.0"\nslug = "s{k}"\ntitle = "Section {k}"\n'
                        f'folder = "s{k}"\nkernels = []\n')
        (root / "chapters" / f"s{k}").mkdir(parents=True)
        (root / "chapters" / f"s{k}" / "questions.toml").write_text(textwrap.dedent(text))
    (root / "chapters" / "manifest.toml").write_text("\n".join(manifest))
    return root
