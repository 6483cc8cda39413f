"""Python packages and system libraries that only some commands need (the handouts: Jinja2,
Markdown, WeasyPrint and the Pango libraries WeasyPrint draws text with).

Python packages go into a folder of the checkout, build/.deps/python (`pip install --target`),
never into the user's Python: `./workbook` runs with whatever python3 is first on PATH (often
pyenv's or Homebrew's, which cannot see Debian's python3-* packages), and a project-local folder
works with all of them and is removed with the build folder. System libraries are installed
with apt-get the way toolchain.py installs compilers: as root or with password-less sudo, and
otherwise the one command to run is printed and nothing else happens."""
import importlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from . import site_packages, toolchain

ROOT = Path(__file__).resolve().parents[3]
TARGET = ROOT / "build" / ".deps" / "python"

# pip names whose module is called something else
_MODULES = {"pillow": "PIL", "pyyaml": "yaml", "beautifulsoup4": "bs4", "mkdocs-material": "material"}


def activate(target=TARGET):
    """Puts the project-local package folder first on sys.path (once), after the installation's
    own site directories, which a process started with -S lacks until now (site_packages.py)."""
    site_packages.enable()
    path = str(target)
    if path not in sys.path:
        sys.path.insert(0, path)


def _name(requirement):
    """'weasyprint>=61,<71' -> 'weasyprint'."""
    return re.split(r"[<>=!~;\[ ]", requirement.strip(), maxsplit=1)[0]


def _module(requirement):
    name = _name(requirement).lower()
    return _MODULES.get(name, name.replace("-", "_"))


def _importable(requirement):
    """None when the package imports; otherwise why not (a missing package, or one whose own
    system libraries are missing: WeasyPrint raises OSError when Pango cannot be loaded)."""
    try:
        importlib.import_module(_module(requirement))
        return None
    except ImportError as e:
        return f"not installed ({e})"
    except OSError as e:
        return f"installed, but a system library it needs is missing ({e})"


def ensure(packages, target=TARGET):
    """True when every package (a pip requirement such as 'markdown>=3.4,<4') imports, installing
    the missing ones into `target` with pip first. A package that already imports is used as it
    is, whatever its version. False, after a message naming the package, when one cannot be had."""
    activate(target)
    missing = [p for p in packages if _importable(p) is not None]
    broken = [p for p in missing if "system library" in (_importable(p) or "")]
    if broken:  # pip cannot fix a missing shared library
        for p in broken:
            print(f"halo: the Python package {_name(p)} is {_importable(p)}", file=sys.stderr)
        return False
    if not missing:
        return True
    names = " ".join(missing)
    shown = os.path.relpath(target, os.getcwd()) if str(target).startswith(os.getcwd()) else str(target)
    print(f"halo: installing {', '.join(_name(p) for p in missing)} (pip) into {shown} ...", flush=True)
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
           "--no-warn-script-location", "--target", str(target)] + missing
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, PIP_ROOT_USER_ACTION="ignore"))
        failed = p.returncode != 0
        detail = (p.stderr.strip().splitlines() or ["pip failed"])[-1]
    except OSError as e:
        failed, detail = True, str(e)
    if failed:
        print(f"halo: could not install {names} with pip: {detail}", file=sys.stderr)
        print(f"Install {'it' if len(missing) == 1 else 'them'} yourself with:\n\n"
              f"    {Path(sys.executable).name} -m pip install --target {shown} {' '.join(repr(m) for m in missing)}\n",
              file=sys.stderr)
        return False
    importlib.invalidate_caches()
    ok = True
    for p in missing:
        why = _importable(p)
        if why is not None:
            print(f"halo: {_name(p)} was installed into {shown} but does not import: {why}", file=sys.stderr)
            ok = False
    return ok


def _installed(package):
    """Whether dpkg has `package` installed; None when there is no dpkg (not Debian/Ubuntu)."""
    if not shutil.which("dpkg-query"):
        return None
    p = subprocess.run(["dpkg-query", "-W", "-f=${db:Status-Status}", package], capture_output=True, text=True)
    return p.returncode == 0 and p.stdout.strip() == "installed"


def ensure_apt(packages, why=""):
    """True when every Debian package is installed, installing the missing ones with apt-get
    when we may; otherwise False after printing the command to run. `why` says what they are
    for, in the messages."""
    states = {p: _installed(p) for p in packages}
    if all(s is None for s in states.values()):
        print(f"halo: not a Debian/Ubuntu system: make sure the equivalents of {' '.join(packages)} "
              f"are installed{' (' + why + ')' if why else ''} (macOS: brew install pango poppler)",
              file=sys.stderr)
        return False
    missing = [p for p, s in states.items() if not s]
    if not missing:
        return True
    what = f" ({why})" if why else ""
    prefix = toolchain.can_install()
    if prefix is None:
        print(f"halo: missing the system packages {' '.join(missing)}{what}. Install them with:\n\n"
              f"    sudo apt-get install -y {' '.join(missing)}\n", file=sys.stderr)
        return False
    print(f"halo: installing {' '.join(missing)}{what} with apt-get ...", flush=True)
    if not toolchain.apt_get_install(prefix, missing):
        return False
    still = [p for p in missing if not _installed(p)]
    if still:
        print(f"halo: still missing after apt-get: {' '.join(still)}", file=sys.stderr)
        return False
    return True
