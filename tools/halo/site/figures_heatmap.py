"""Heat maps of per-element load counts, as SVG text (no plotting library).

The counts come from docs/results/cpu-load-heatmaps.json, written by
`./workbook internal load-heatmaps` from the CPU backend's per-element counts of the reference
kernels: how many times each element of the input N was loaded from global memory.

    entries = heatmap_entries(REPO_ROOT / "docs/results/cpu-load-heatmaps.json")
    svg = heatmap_svg(entries[0])          # one self-contained SVG document

A 1D kernel is one row of cells, a 2D kernel a grid (row 0 at the top); each cell is coloured
on a light-to-dark blue scale (sequential, safe for the common colour-vision deficiencies, and
readable in grey) and shows its count. Thick lines mark where one block's tile meets the next.
"""
from __future__ import annotations

import json
from html import escape
from pathlib import Path

FONT = "font-family='DejaVu Sans, Verdana, Arial, sans-serif'"
# ColorBrewer's 9-class "Blues", light to dark: sequential and colour-blind safe.
BLUES = ["#f7fbff", "#deebf7", "#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c", "#08306b"]
ZERO = "#ffffff"     # never loaded
MARGIN = 16
LEGEND_SWATCH = 18
MAX_LEGEND_VALUES = 10

REQUIRED = ("section", "kernel", "width", "height", "mask", "block", "counts", "total", "formula_total")


class HeatmapError(ValueError):
    pass


def heatmap_entries(path) -> list[dict]:
    """The kernels of a load-heatmaps JSON file, each checked for the fields the figure needs."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise HeatmapError(f"{path}: {e}") from e
    entries = data.get("kernels") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise HeatmapError(f"{path}: no \"kernels\" list")
    for k, e in enumerate(entries):
        missing = [f for f in REQUIRED if f not in e]
        if missing:
            raise HeatmapError(f"{path}: kernel {k} lacks {', '.join(missing)}")
        if len(e["counts"]) != e["width"] * e["height"]:
            raise HeatmapError(f"{path}: {e['kernel']} has {len(e['counts'])} counts for "
                               f"{e['width']} x {e['height']} elements")
    return entries


def heatmap_slug(entry: dict) -> str:
    """A file name stem for the entry's figure, e.g. `load-heatmap-7.4-convolution_1D_tiled_kernel`."""
    return f"load-heatmap-{entry['section']}-{entry['kernel']}"


def _hex(c: str) -> tuple:
    return tuple(int(c[i:i + 2], 16) for i in (1, 3, 5))


def colour(count: int, top: int) -> str:
    """The cell colour of `count` on a scale whose darkest blue is `top` (the largest count)."""
    if count <= 0 or top <= 0:
        return ZERO
    t = min(1.0, count / top) * (len(BLUES) - 1)
    lo = int(t)
    if lo >= len(BLUES) - 1:
        return BLUES[-1]
    a, b, f = _hex(BLUES[lo]), _hex(BLUES[lo + 1]), t - lo
    return "#" + "".join(f"{round(x + (y - x) * f):02x}" for x, y in zip(a, b))


def _ink(fill: str) -> str:
    """Dark text on light cells, white on dark ones."""
    r, g, b = _hex(fill)
    return "#222222" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#ffffff"


def _text(x, y, text, anchor="start", size=12, fill="#222222", weight="normal", cls="") -> str:
    c = f" class='{cls}'" if cls else ""
    return (f"<text{c} x='{x:.1f}' y='{y:.1f}' text-anchor='{anchor}' font-size='{size:.1f}' "
            f"font-weight='{weight}' fill='{fill}'>{escape(str(text))}</text>")


def _legend_values(counts: list) -> list:
    values = sorted(set(counts))
    if len(values) <= MAX_LEGEND_VALUES:
        return values
    lo, hi = values[0], values[-1]
    return sorted({round(lo + (hi - lo) * k / (MAX_LEGEND_VALUES - 1)) for k in range(MAX_LEGEND_VALUES)})


def _tile(entry: dict) -> tuple:
    """Elements of N per block along x and y: where the blocks' tiles meet."""
    tile = entry.get("tile") or entry["block"]
    tx = int(tile[0])
    ty = int(tile[1]) if len(tile) > 1 and entry["height"] > 1 else entry["height"]
    return max(1, tx), max(1, ty)


def heatmap_svg(entry: dict) -> str:
    """One entry of heatmap_entries() as an SVG document: a row (1D) or grid (2D) of cells
    coloured by how many times each element of N was loaded, each with its count written in."""
    width, height = int(entry["width"]), int(entry["height"])
    counts = [int(c) for c in entry["counts"]]
    top = max(counts, default=0)
    two_d = height > 1
    cell = 22 if not two_d else max(12, min(20, 760 // max(width, 1)))
    tile_x, tile_y = _tile(entry)
    block = entry["block"]
    block_text = f"{block[0]} x {block[1]}" if two_d else f"{block[0]}"
    size_text = f"{width} x {height} image" if two_d else f"Width {width}"
    mask_text = f"{entry['mask']} x {entry['mask']} mask" if two_d else f"Mask_Width {entry['mask']}"

    title = f"{entry['section']} {entry['kernel']}: loads of each element of N"
    lines = [f"{size_text}, {mask_text}, blocks of {block_text} threads. "
             f"{entry['total']} loads in all; the chapter's formula gives {entry['formula_total']}."]
    if entry.get("formula"):
        lines.append(f"formula: {entry['formula']}")
    if entry.get("note"):
        lines.append(str(entry["note"]))

    top_y = MARGIN + 20 + 16 * len(lines) + (14 if not two_d else 16)
    grid_w, grid_h = width * cell, height * cell
    left = MARGIN + (34 if two_d else 0)
    body = [_text(MARGIN, MARGIN + 12, title, size=14, weight="bold")]
    for k, line in enumerate(lines):
        body.append(_text(MARGIN, MARGIN + 32 + 16 * k, line, size=11, fill="#444444"))

    # Block labels above the tiles (1D) or column/row indices (2D).
    if not two_d:
        for b in range(0, width, tile_x):
            body.append(_text(left + (b + min(tile_x, width - b) / 2) * cell, top_y - 4, f"block {b // tile_x}",
                              anchor="middle", size=10, fill="#555555"))
    else:
        step = 4 if width > 24 else 2
        for col in range(0, width, step):
            body.append(_text(left + (col + 0.5) * cell, top_y - 4, col, anchor="middle", size=9, fill="#555555"))
        for row in range(0, height, step):
            body.append(_text(left - 4, top_y + (row + 0.5) * cell + 3, row, anchor="end", size=9, fill="#555555"))

    digits = max(len(str(top)), 1)
    font = min(cell * 0.55, cell * 1.5 / digits)
    for row in range(height):
        for col in range(width):
            c = counts[row * width + col]
            fill = colour(c, top)
            x, y = left + col * cell, top_y + row * cell
            body.append(f"<rect class='cell' x='{x}' y='{y}' width='{cell}' height='{cell}' fill='{fill}' "
                        f"stroke='#bbbbbb' stroke-width='0.5'><title>N[{col if not two_d else f'{row}][{col}'}]: "
                        f"{c}</title></rect>")
            body.append(_text(x + cell / 2, y + cell / 2 + font * 0.36, c, anchor="middle", size=font, fill=_ink(fill),
                              cls="count"))
    # Tile boundaries and the frame.
    for b in range(tile_x, width, tile_x):
        x = left + b * cell
        body.append(f"<line x1='{x}' y1='{top_y}' x2='{x}' y2='{top_y + grid_h}' stroke='#222222' stroke-width='2'/>")
    if two_d:
        for b in range(tile_y, height, tile_y):
            y = top_y + b * cell
            body.append(f"<line x1='{left}' y1='{y}' x2='{left + grid_w}' y2='{y}' stroke='#222222' stroke-width='2'/>")
    body.append(f"<rect x='{left}' y='{top_y}' width='{grid_w}' height='{grid_h}' fill='none' stroke='#222222'/>")

    # Axis note and legend.
    y = top_y + grid_h + 16
    axis = ("N[0] at the left; thick lines: where one block's tile meets the next" if not two_d else
            "row 0 at the top, column 0 at the left; thick lines: where one block's output tile meets the next")
    body.append(_text(MARGIN, y, axis, size=10, fill="#555555"))
    y += 12
    body.append(_text(MARGIN, y + LEGEND_SWATCH - 5, "loads per element:", size=11))
    x = MARGIN + 112
    for v in _legend_values(counts):
        fill = colour(v, top)
        body.append(f"<rect class='swatch' x='{x}' y='{y}' width='{LEGEND_SWATCH}' height='{LEGEND_SWATCH}' "
                    f"fill='{fill}' stroke='#888888'/>")
        body.append(_text(x + LEGEND_SWATCH + 3, y + LEGEND_SWATCH - 5, v, size=11, cls="legend"))
        x += LEGEND_SWATCH + 10 + 7 * len(str(v))
    total_w = max(left + grid_w + MARGIN, x + MARGIN, MARGIN + 7 * max(len(title), *(len(s) for s in lines)) * 0.9)
    total_h = y + LEGEND_SWATCH + MARGIN
    total_w = int(total_w + 0.5)
    desc = (f"Heat map of global loads per element of N for {entry['kernel']} (section {entry['section']}): "
            f"{size_text}, {mask_text}; counts from {min(counts, default=0)} to {top}, {entry['total']} in all.")
    return "\n".join([
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{total_w}' height='{total_h}' "
        f"viewBox='0 0 {total_w} {total_h}' role='img' {FONT} font-size='12'>",
        f"<title>{escape(title)}</title>",
        f"<desc>{escape(desc)}</desc>",
        f"<rect width='{total_w}' height='{total_h}' fill='white'/>",
        *body,
        "</svg>",
    ]) + "\n"
