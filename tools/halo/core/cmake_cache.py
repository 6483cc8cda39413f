"""Reading a CMake build folder's cache (CMakeCache.txt)."""
import re
from pathlib import Path


def cache_value(build_dir, name):
    """The value of the cache variable `name` in `build_dir`, or None (no cache, no such variable)."""
    cache = Path(build_dir) / "CMakeCache.txt"
    if not cache.exists():
        return None
    m = re.search(rf"^{re.escape(name)}:[A-Z]+=(.*)$", cache.read_text(errors="replace"), re.MULTILINE)
    return m.group(1) if m else None
