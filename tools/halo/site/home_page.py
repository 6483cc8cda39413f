"""The site's home page: docs/index.md with its markers filled in.

- `<!-- lessons -->` becomes the list of lessons, in the chapter's order;
- `<!-- README: HEADING -->` becomes the body of README.md's `## HEADING` section, so what the
  home page tells a newcomer to type is the README's text itself, never a second copy that could
  drift from it. A README without that section (a course's release writes its own README) gets
  a line that sends the reader to README.md instead: the site still builds, and the project's
  test, which compares the home page with this repository's README, fails if the heading moves."""
from __future__ import annotations

import re
from pathlib import Path

README = "README.md"
README_MARKER = re.compile(r"^<!-- README: (.+?) -->$")
MISSING = f"The commands to start with are in `{README}`, at the top of this repository."


def readme_section(readme_text: str, heading: str):
    """The body of `## heading` in the README (up to the next heading of level two or one), or None."""
    lines, start, fenced = readme_text.split("\n"), None, False
    for k, line in enumerate(lines):
        if line.startswith("```"):
            fenced = not fenced  # a '# comment' in a code block is no heading
        elif fenced:
            continue
        elif start is not None and re.match(r"#{1,2} ", line):
            return "\n".join(lines[start:k]).strip("\n")
        elif line.strip() == f"## {heading}":
            start = k + 1
    return None if start is None else "\n".join(lines[start:]).strip("\n")


def fill(index_text: str, root: Path, lesson_list: str, rewrite) -> str:
    """docs/index.md's text with its markers filled. `rewrite(text)` turns the README's links
    (relative to the repository root) into links of the site's home page."""
    readme_path = Path(root) / README
    out = []
    for line in index_text.split("\n"):
        marker = README_MARKER.match(line.strip())
        if marker:
            readme = readme_path.read_text(encoding="utf-8") if readme_path.exists() else ""
            body = readme_section(readme, marker.group(1).strip())
            out.append(rewrite(body) if body is not None else MISSING)
        elif line.strip() == "<!-- lessons -->":
            out.append(lesson_list)
        else:
            out.append(line)
    return "\n".join(out)
