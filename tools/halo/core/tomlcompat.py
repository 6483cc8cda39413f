"""TOML reading on any Python the workbook supports.

Python 3.11 ships tomllib; older ones can use the `tomli` package, which has the same API.
The import is deferred to the first load so that tools which never read TOML still start.
"""
from __future__ import annotations

try:
    import tomllib as _toml
except ModuleNotFoundError:  # Python < 3.11
    from .site_packages import enable as _enable_site
    _enable_site()  # tomli lives in site-packages, which a -S start leaves out
    try:
        import tomli as _toml  # type: ignore[no-redef]
    except ModuleNotFoundError:
        _toml = None

if _toml is not None:
    TOMLDecodeError = _toml.TOMLDecodeError
else:
    class TOMLDecodeError(ValueError):  # type: ignore[no-redef]
        """Stands in for tomllib's error so that `except TOMLDecodeError` still works."""


class TomlUnavailableError(RuntimeError):
    """Neither tomllib nor tomli can be imported."""


_MISSING = ("reading TOML needs Python >= 3.11 (tomllib) or the tomli package: "
            "install Python >= 3.11, or `pip install tomli`, or the Debian package python3-tomli")


def _module():
    if _toml is None:
        raise TomlUnavailableError(_MISSING)
    return _toml


def load_toml(path) -> dict:
    """The TOML file at `path` as a dict; raises TOMLDecodeError when it is malformed."""
    toml = _module()  # first, so a missing module is reported even when the file is missing too
    with open(path, "rb") as f:
        return toml.load(f)


def loads_toml(text: str) -> dict:
    """TOML text as a dict; for callers that need the text too (e.g. for line numbers)."""
    return _module().loads(text)


__all__ = ["load_toml", "loads_toml", "TOMLDecodeError", "TomlUnavailableError"]
