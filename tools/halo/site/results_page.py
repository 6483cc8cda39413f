"""The site's one "Results" page: every measured result of docs/results/*.md reached from a single
index, grouped by what was measured, so the sidebar holds the course (lessons, guides, reference)
and not a list of runs.

A page's group comes from its file name (RESULT_GROUPS below): the pages are written by the
project's own commands (bench, check, grade-class ...), so their names are what is stable. A page
that fits no group is still listed, under OTHER, and the site's test fails until it is given one:
a student's `./workbook docs` never breaks over where a measurement is filed."""
from __future__ import annotations

import json
from fnmatch import fnmatch
from pathlib import Path

from ..core import expressions as ex
from . import figures

RESULTS = Path("docs") / "results"
BENCH_JSON = "gpu-bench-h100.json"
BANDWIDTH_SVG = "gpu-bandwidth-fractions.svg"

# (heading, what the group holds, file-name patterns). A page belongs to the group of the first
# pattern it matches, and is listed in the order of the patterns, then by name: what a reader
# wants first (the student's own wait, a GPU's whole suite) comes first.
RESULT_GROUPS = [
    ("The CPU backend",
     "What grading on your own CPU costs and how fast it answers, measured on the project's machines.",
     ("grade-loop-*", "first-grade-*", "grade-start-*", "diagnostics-cost*", "isolation-cost*", "trust-cost*", "cpu-*")),
    ("On a GPU",
     "The same tests and kernels on NVIDIA GPUs: the sections' tests, load counts beside the CPU "
     "backend's, and benchmarks against a copy of the same bytes.",
     ("gpu-all-sections-*", "gpu-load-agreement-*", "gpu-bench-*", "gpu-*", "*-gpu-*")),
    ("Course operations",
     "Grading a whole class, from its submissions to the gradebook, and the Gradescope autograder.",
     ("grade-class-times*", "grade-class-*", "gradescope-*")),
    ("Platforms",
     "Where else Halo runs, and how each place was tested.",
     ("arm64-*", "container*", "clang-*")),
    ("The project's own test suite",
     "How long `./workbook check` takes, per group of tests, and where its time goes.",
     ("check-*",)),
]
OTHER = ("Other measurements", "Pages not yet filed under a group above.")


def title(path: Path) -> str:
    """A page's first level-one heading, else its file name."""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return path.stem


def grouped(pages) -> list:
    """[(heading, description, [page paths])] of the groups that hold a page, in RESULT_GROUPS'
    order, OTHER last."""
    placed = {}
    for page in pages:
        rank = next(((g, k) for g, (_, _, patterns) in enumerate(RESULT_GROUPS)
                     for k, pattern in enumerate(patterns) if fnmatch(page.name, pattern)), (len(RESULT_GROUPS), 0))
        placed.setdefault(rank[0], []).append((rank[1], page.name, page))
    out = []
    for g, heading_and_text in enumerate([(h, d) for h, d, _ in RESULT_GROUPS] + [OTHER]):
        if g in placed:
            out.append((*heading_and_text, [p for _, _, p in sorted(placed[g], key=lambda x: x[:2])]))
    return out


def result_pages(root: Path) -> list:
    folder = Path(root) / RESULTS
    return sorted(p for p in folder.glob("*.md") if p.name != "index.md") if folder.is_dir() else []


def group_of(root: Path) -> dict:
    """{page file name: its group's heading}."""
    return {p.name: heading for heading, _, pages in grouped(result_pages(root)) for p in pages}


def bandwidth_figure(root: Path):
    """(svg, caption) of the GPU benchmark's fractions of copy bandwidth, or None."""
    path = Path(root) / RESULTS / BENCH_JSON
    if not path.exists():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    groups, values, masks = [], {}, set()
    for row in data.get("rows", []):
        if row.get("status") != "ok" or row.get("fraction_of_copy") is None:
            continue
        g = (f"{row['section']} " if row.get("section", "-") != "-" else "") + row["name"] + ("" if row.get("variant") == "reference" else f" ({row['variant']})")
        if g not in groups:
            groups.append(g)
        s = f"mask {row['mask']}"
        masks.add(row["mask"])
        values[(g, s)] = float(row["fraction_of_copy"])
    if not values:
        return None
    series = [f"mask {m}" for m in sorted(masks)]
    top = max(1.0, max(values.values()))
    svg = figures.horizontal_bars(f"Fraction of copy bandwidth, {data['device']['name']}", groups, series,
                                  values, "GB/s of the kernel / GB/s of a device-to-device copy", x_max=top)
    copy = data.get("copy", {})
    caption = (f"From `docs/results/{BENCH_JSON}` ({data.get('date', '')}): each kernel's GB/s divided by "
               f"a device-to-device copy of the same bytes ({ex.format_value(round(copy.get('gbps', 0)))} GB/s); "
               "1D kernels over 2^26 floats, 2D over 8192 x 8192, masks as listed (2D masks are square).")
    return svg, caption


def results_index(root: Path, figure_files: dict, figure_md) -> str:
    """The Results page (results/index.md of the site). `figure_files` collects name -> SVG text;
    `figure_md(name, alt, caption, depth)` writes a figure block the way the lessons do."""
    out = ["# Results", "",
           "What the project measured with its own commands; every table on these pages is generated "
           "from a run, never typed.", ""]
    groups = grouped(result_pages(root))
    if not groups:
        out += ["This copy of the workbook holds no measured results (a student release leaves "
                "`docs/results/` out); the course's repository has them.", ""]
    for heading, description, pages in groups:
        out += [f"## {heading}", "", description, ""]
        out += [f"- [{title(p)}]({p.name})" for p in pages]
        out.append("")
        bandwidth = bandwidth_figure(root) if any(p.stem == Path(BENCH_JSON).stem for p in pages) else None
        if bandwidth:
            svg, caption = bandwidth
            figure_files[BANDWIDTH_SVG] = svg
            out.append(figure_md(BANDWIDTH_SVG, "Fraction of copy bandwidth of every reference kernel", caption, 1))
    return "\n".join(out).rstrip("\n") + "\n"


def with_way_back(text: str, group: str) -> str:
    """A results page as the site shows it: a line under its title leads back to the Results page
    (the sidebar does not list it)."""
    lines = text.split("\n")
    at = next((k + 1 for k, line in enumerate(lines) if line.startswith("# ")), 0)
    return "\n".join(lines[:at] + ["", f"*[Results](index.md) › {group}*"] + lines[at:])
