"""Figures of the docs site, drawn as SVG text from data (no plotting library).

Each function takes the numbers it draws (the callers compute them with the chapter's formulas
or read them from a results JSON) and returns one self-contained SVG document. Nothing here
types a number of the chapter: a figure shows what it is given."""
from __future__ import annotations

from html import escape

from ..core import expressions as ex

FONT = "font-family='DejaVu Sans, Verdana, Arial, sans-serif'"
# Colours that stay apart for the common colour-vision deficiencies (Okabe-Ito).
COLOURS = {
    "centre": "#56B4E9",   # the block's own elements
    "halo": "#E69F00",     # a neighbour's elements this block reads
    "ghost": "#FFFFFF",    # positions outside the array
    "output": "#009E73",   # the block's outputs
    "cached": "#F0E442",   # halo elements read from N (served by the cache) in 7.5
}
SERIES = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9"]


def _svg(width: int, height: int, title: str, body: list, desc: str = "") -> str:
    return "\n".join([
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
        f"viewBox='0 0 {width} {height}' role='img' {FONT} font-size='12'>",
        f"<title>{escape(title)}</title>",
        f"<desc>{escape(desc or title)}</desc>",
        f"<rect width='{width}' height='{height}' fill='white'/>",
        *body,
        "</svg>",
    ]) + "\n"


def _text(x, y, text, anchor="start", size=12, weight="normal", fill="#222") -> str:
    return (f"<text x='{x:.1f}' y='{y:.1f}' text-anchor='{anchor}' font-size='{size}' "
            f"font-weight='{weight}' fill='{fill}'>{escape(str(text))}</text>")


def _rect(x, y, w, h, fill, stroke="#333", dash=False, extra="") -> str:
    d = " stroke-dasharray='3,2'" if dash else ""
    return (f"<rect x='{x:.1f}' y='{y:.1f}' width='{w:.1f}' height='{h:.1f}' fill='{fill}' "
            f"stroke='{stroke}'{d}{extra}/>")


# ---------------------------------------------------------------- 1D tiles

CELL = 20          # one element
GAP_CELLS = 1.6    # the width of the "..." that stands for elided centre elements
SHOWN = 6          # centre elements drawn at each end when a block is too long to draw whole


def _centre_cells(block_dim: int) -> list:
    """Offsets of the centre elements drawn, with None where the elided run goes."""
    if block_dim <= 2 * SHOWN + 2:
        return list(range(block_dim))
    return list(range(SHOWN)) + [None] + list(range(block_dim - SHOWN, block_dim))


def tile_1d(width: int, block_dim: int, mask_width: int, kind: str, notes: list) -> str:
    """The input and output tiles of block 0 (a boundary block: its left halo is all ghost
    cells) and block 1 (an internal block), for a launch of `block_dim` threads per block over
    `width` elements with a mask of `mask_width`.

    kind: 'basic' (7.2/7.3: no tile in shared memory; the cells are what the block's threads
    read from N), 'tiled' (7.4: halo cells copied into shared memory too) or 'cached' (7.5:
    shared memory holds the centre only; halo cells are read from N, served by the cache).
    `notes` are lines printed under the drawing (the load counts, computed by the caller)."""
    n = mask_width // 2
    centre = _centre_cells(block_dim)
    left, top = 150, 56
    row_h = 30
    cols = 2 * n + sum(GAP_CELLS if c is None else 1 for c in centre)
    fig_w = int(left + cols * CELL + 40)
    halo_fill = COLOURS["cached"] if kind == "cached" else COLOURS["halo"]
    body = [_text(10, 22, f"Width = {width}, blockDim.x = {block_dim}, Mask_Width = {mask_width} "
                          f"(n = {n})", size=13, weight="bold")]
    y = top
    for b, label in ((0, "block 0 (boundary)"), (1, "block 1 (internal)")):
        body.append(_text(10, y + 14, label, weight="bold"))
        body.append(_text(10, y + row_h + 14, "input of the block", fill="#555", size=11))
        x = left
        first = b * block_dim
        cells = [("left", k) for k in range(n)] + [("centre", c) for c in centre] + [("right", k) for k in range(n)]
        centre_x = []
        for where, k in cells:
            if where == "centre" and k is None:
                body.append(_text(x + GAP_CELLS * CELL / 2, y + row_h + 14, "…", anchor="middle", size=14))
                x += GAP_CELLS * CELL
                continue
            if where == "left":
                index = first - n + k
            elif where == "right":
                index = first + block_dim + k
            else:
                index = first + k
            ghost = index < 0 or index >= width
            if ghost:
                fill, dash = COLOURS["ghost"], True
            elif where == "centre":
                fill, dash = COLOURS["centre"], False
            else:
                fill, dash = halo_fill, False
            body.append(_rect(x, y + row_h, CELL - 2, CELL, fill, dash=dash))
            if ghost:
                body.append(_text(x + (CELL - 2) / 2, y + row_h + 14, "0", anchor="middle", size=10, fill="#888"))
            if where == "centre":
                centre_x.append(x)
            if (where == "left" and k == 0) or (where == "right" and k == n - 1) or \
                    (where == "centre" and k in (0, block_dim - 1)):
                body.append(_text(x + (CELL - 2) / 2, y + row_h - 4, index, anchor="middle", size=9, fill="#555"))
            x += CELL
        # the block's outputs, under its centre
        body.append(_text(10, y + 2 * row_h + 14, "output tile (P)", fill="#555", size=11))
        for cx in centre_x:
            body.append(_rect(cx, y + 2 * row_h, CELL - 2, CELL * 0.7, COLOURS["output"]))
        y += 3 * row_h + 14
    # legend
    legend = [(COLOURS["centre"], False, "the block's own elements" + (" (shared memory)" if kind != "basic" else "")),
              (halo_fill, False, {"basic": "halo cells: a neighbour's elements, read from N",
                                  "tiled": "halo cells: copied into shared memory too",
                                  "cached": "halo cells: read from N (the cache serves them)"}[kind]),
              (COLOURS["ghost"], True, "ghost cells: outside N, never loaded (count as 0)"),
              (COLOURS["output"], False, "outputs the block computes")]
    for fill, dash, label in legend:
        body.append(_rect(10, y, 14, 14, fill, dash=dash))
        body.append(_text(30, y + 11, label, size=11))
        y += 20
    y += 6
    for line in notes:
        body.append(_text(10, y + 10, line, size=12))
        y += 18
    title = f"1D tiles: Width {width}, blockDim.x {block_dim}, Mask_Width {mask_width}"
    desc = (f"Input and output tiles of block 0 and block 1: {n} halo or ghost cells on each side of "
            f"{block_dim} centre elements. " + " ".join(notes))
    return _svg(fig_w, int(y + 10), title, body, desc)


# ---------------------------------------------------------------- bar charts

def _nice_max(value: float) -> float:
    """The smallest of 1, 2, 2.5, 5 times a power of ten at or above value."""
    if value <= 0:
        return 1.0
    power = 10 ** len(str(int(value))) / 10 if value >= 1 else 1.0
    while power > value:
        power /= 10
    for step in (1, 2, 2.5, 5, 10):
        if step * power >= value:
            return step * power
    return 10 * power


def grouped_bars(title: str, groups: list, series: list, values: dict, y_label: str,
                 label_digits: int = 2) -> str:
    """A vertical grouped bar chart: `groups` along x (labels), one bar per series in each
    group, values[(group, series)] the bar heights (a missing one is left out)."""
    top, bottom, left = 40, 50, 60
    plot_h = 260
    bar_w = 26
    group_w = len(series) * bar_w + 30
    fig_w = left + len(groups) * group_w + 150
    vmax = _nice_max(max(values.values()))
    body = [_text(10, 22, title, size=13, weight="bold")]
    for k in range(5):  # gridlines and their labels
        v = vmax * k / 4
        y = top + plot_h - plot_h * v / vmax
        body.append(f"<line x1='{left}' x2='{left + len(groups) * group_w}' y1='{y:.1f}' y2='{y:.1f}' stroke='#ddd'/>")
        body.append(_text(left - 6, y + 4, ex.format_number(round(v, 4)), anchor="end", size=10))
    body.append(_text(14, top + plot_h / 2, y_label, anchor="middle", size=11)
                .replace("<text ", f"<text transform='rotate(-90 14 {top + plot_h / 2:.1f})' ", 1))
    for gi, g in enumerate(groups):
        gx = left + gi * group_w + 15
        for si, s in enumerate(series):
            if (g, s) not in values:
                continue
            v = values[(g, s)]
            h = plot_h * v / vmax
            x = gx + si * bar_w
            body.append(_rect(x, top + plot_h - h, bar_w - 4, h, SERIES[si % len(SERIES)], stroke="none"))
            body.append(_text(x + (bar_w - 4) / 2, top + plot_h - h - 4, f"{v:.{label_digits}f}",
                              anchor="middle", size=9))
        body.append(_text(gx + len(series) * bar_w / 2, top + plot_h + 18, g, anchor="middle", size=11))
    body.append(f"<line x1='{left}' x2='{left + len(groups) * group_w}' y1='{top + plot_h}' "
                f"y2='{top + plot_h}' stroke='#333'/>")
    lx = left + len(groups) * group_w + 20
    for si, s in enumerate(series):
        body.append(_rect(lx, top + si * 20, 14, 14, SERIES[si % len(SERIES)], stroke="none"))
        body.append(_text(lx + 20, top + si * 20 + 11, s, size=11))
    desc = "; ".join(f"{g}, {s}: {values[(g, s)]:.{label_digits}f}" for g in groups for s in series
                     if (g, s) in values)
    return _svg(int(fig_w), top + plot_h + bottom, title, body, desc)


def horizontal_bars(title: str, groups: list, series: list, values: dict, x_label: str,
                    x_max: float = None) -> str:
    """A horizontal grouped bar chart: one row of bars per group (top to bottom), one bar per
    series, values[(group, series)] the bar lengths; a missing one is left out."""
    left, top, bar_h = 300, 40, 12
    plot_w = 420
    rows = [(g, [s for s in series if (g, s) in values]) for g in groups]
    height = top + sum(len(ss) * bar_h + 12 for _, ss in rows) + 60
    vmax = x_max or _nice_max(max(values.values()))
    body = [_text(10, 22, title, size=13, weight="bold")]
    plot_bottom = height - 50
    for k in range(5):
        v = vmax * k / 4
        x = left + plot_w * v / vmax
        body.append(f"<line x1='{x:.1f}' x2='{x:.1f}' y1='{top - 4}' y2='{plot_bottom}' stroke='#ddd'/>")
        body.append(_text(x, plot_bottom + 14, ex.format_number(round(v, 4)), anchor="middle", size=10))
    body.append(_text(left + plot_w / 2, plot_bottom + 32, x_label, anchor="middle", size=11))
    y = top
    for g, ss in rows:
        body.append(_text(left - 8, y + len(ss) * bar_h / 2 + 4, g, anchor="end", size=11))
        for s in ss:
            v = values[(g, s)]
            si = series.index(s)
            body.append(_rect(left, y, plot_w * min(v, vmax) / vmax, bar_h - 2, SERIES[si % len(SERIES)], stroke="none"))
            body.append(_text(left + plot_w * min(v, vmax) / vmax + 4, y + bar_h - 3, f"{v:.2f}", size=9))
            y += bar_h
        y += 12
    lx = left + plot_w + 50
    for si, s in enumerate(series):
        body.append(_rect(lx, top + si * 20, 14, 14, SERIES[si % len(SERIES)], stroke="none"))
        body.append(_text(lx + 20, top + si * 20 + 11, s, size=11))
    desc = "; ".join(f"{g}, {s}: {values[(g, s)]:.2f}" for g, ss in rows for s in ss)
    return _svg(lx + 120, height, title, body, desc)


# ---------------------------------------------------------------- 2D tiles

def tile_panel(label: str, cols: int, rows: int, out: tuple, ghost: list = (), padding: list = (),
               unused: list = (), grid_x: int = 1, grid_y: int = 1, dims: dict = None) -> dict:
    """One input tile of a 2D figure, in element coordinates (column, row) of the tile.

    out: (x, y, w, h) of the block's output tile; ghost: rects of positions outside the image
    (set to 0, never loaded); padding: rects that in memory are the pitch padding (drawn hatched
    over the ghost cells); unused: rects loaded only to keep every load a whole vector; grid_x,
    grid_y: the spacing of the grid lines (4 columns: one float4); dims: texts for the 'top',
    'left', 'out' (under the output tile) and 'halo' labels."""
    return {"label": label, "cols": cols, "rows": rows, "out": out, "ghost": list(ghost),
            "padding": list(padding), "unused": list(unused), "grid_x": grid_x, "grid_y": grid_y,
            "dims": dims or {}}


def _clip(rect, cols, rows):
    x, y, w, h = rect
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, cols), min(y + h, rows)
    return (x0, y0, x1 - x0, y1 - y0) if x1 > x0 and y1 > y0 else None


def tile_2d(title: str, panels: list, cell_w: float, cell_h: float, notes: list, per_row: int = 3,
            legend: dict = None) -> str:
    """Input tiles of a 2D kernel, side by side: each tile's halo (orange) around the output tile
    (blue, outlined in green), ghost cells outside the image (white, dashed), pitch padding
    (hatched) and, for vector loads, the columns loaded only for alignment (yellow). Every size is
    the caller's, computed from the chapter's formulas; `notes` are lines printed underneath."""
    legend = legend or {}
    widths = [p["cols"] * cell_w for p in panels]
    heights = [p["rows"] * cell_h for p in panels]
    gap, left, top = 70, 20, 50
    rows_of = [panels[k:k + per_row] for k in range(0, len(panels), per_row)]
    body = [_text(10, 22, title, size=13, weight="bold"),
            "<defs><pattern id='pad' width='6' height='6' patternUnits='userSpaceOnUse' "
            "patternTransform='rotate(45)'><rect width='6' height='6' fill='#eee'/>"
            "<line x1='0' y1='0' x2='0' y2='6' stroke='#777' stroke-width='2'/></pattern></defs>"]
    y = top
    fig_w = 0
    index = 0
    for group in rows_of:
        x = left + 60
        row_h = 0
        for p in group:
            w, h = widths[index], heights[index]
            index += 1
            body.append(_text(x, y + 4, p["label"], weight="bold", size=12))
            ty = y + 40
            cols, rows = p["cols"], p["rows"]
            body.append(_rect(x, ty, w, h, COLOURS["halo"], stroke="none"))
            ox, oy, ow, oh = p["out"]
            body.append(_rect(x + ox * cell_w, ty + oy * cell_h, ow * cell_w, oh * cell_h, COLOURS["centre"], stroke="none"))
            for r in p["unused"]:
                r = _clip(r, cols, rows)
                if r:
                    body.append(_rect(x + r[0] * cell_w, ty + r[1] * cell_h, r[2] * cell_w, r[3] * cell_h,
                                      COLOURS["cached"], stroke="none"))
            for r in p["ghost"]:
                r = _clip(r, cols, rows)
                if r:
                    body.append(_rect(x + r[0] * cell_w, ty + r[1] * cell_h, r[2] * cell_w, r[3] * cell_h,
                                      COLOURS["ghost"], stroke="none"))
            for r in p["padding"]:
                r = _clip(r, cols, rows)
                if r:
                    body.append(_rect(x + r[0] * cell_w, ty + r[1] * cell_h, r[2] * cell_w, r[3] * cell_h,
                                      "url(#pad)", stroke="none"))
            lines = []
            if p["grid_x"]:
                for c in range(p["grid_x"], cols, p["grid_x"]):
                    lines.append(f"M{x + c * cell_w:.1f} {ty:.1f}v{h:.1f}")
            if p["grid_y"]:
                for r in range(p["grid_y"], rows, p["grid_y"]):
                    lines.append(f"M{x:.1f} {ty + r * cell_h:.1f}h{w:.1f}")
            if lines:
                body.append(f"<path d='{''.join(lines)}' stroke='#ffffff' stroke-opacity='0.7' stroke-width='0.6' fill='none'/>")
            for r in p["ghost"]:
                r = _clip(r, cols, rows)
                if r:
                    body.append(_rect(x + r[0] * cell_w, ty + r[1] * cell_h, r[2] * cell_w, r[3] * cell_h,
                                      "none", stroke="#555", dash=True))
            body.append(_rect(x + ox * cell_w, ty + oy * cell_h, ow * cell_w, oh * cell_h, "none",
                              stroke=COLOURS["output"], extra=" stroke-width='3'"))
            body.append(_rect(x, ty, w, h, "none", stroke="#333"))
            dims = p["dims"]
            if dims.get("top"):
                body.append(_text(x + w / 2, ty - 6, dims["top"], anchor="middle", size=11))
            if dims.get("left"):
                cx, cy = x - 8, ty + h / 2
                body.append(_text(cx, cy, dims["left"], anchor="middle", size=11)
                            .replace("<text ", f"<text transform='rotate(-90 {cx:.1f} {cy:.1f})' ", 1))
            if dims.get("out"):
                body.append(_text(x + (ox + ow / 2) * cell_w, ty + (oy + oh / 2) * cell_h + 4, dims["out"],
                                  anchor="middle", size=11, weight="bold", fill="#0b3954"))
            if dims.get("bottom"):
                body.append(_text(x + w / 2, ty + h + 16, dims["bottom"], anchor="middle", size=11))
            x += w + gap
            row_h = max(row_h, h + 70)
        fig_w = max(fig_w, x)
        y += row_h
    items = [(COLOURS["centre"], False, legend.get("centre", "the input under the output tile")),
             (COLOURS["halo"], False, legend.get("halo", "halo cells: input the block loads beyond its output tile")),
             (COLOURS["ghost"], True, legend.get("ghost", "ghost cells: outside the image, set to 0, never loaded"))]
    if any(p["padding"] for p in panels):
        items.append(("url(#pad)", False, legend.get("padding", "pitch padding in memory: never read, never written")))
    if any(p["unused"] for p in panels):
        items.append((COLOURS["cached"], False, legend.get("unused", "loaded only to keep each load a whole float4")))
    items.append(("none", False, "outline: the block's output tile"))
    for fill, dash, label in items:
        stroke = COLOURS["output"] if fill == "none" else "#333"
        body.append(_rect(10, y, 14, 14, fill, stroke=stroke, dash=dash,
                          extra=" stroke-width='3'" if fill == "none" else ""))
        body.append(_text(30, y + 11, label, size=11))
        y += 20
    y += 6
    for line in notes:
        body.append(_text(10, y + 10, line, size=12))
        y += 18
    desc = title + ". " + " ".join(f"{p['label']}: {p['cols']} x {p['rows']} input tile" +
                                   "".join(f", {v}" for v in p["dims"].values()) + "." for p in panels) + " " + " ".join(notes)
    fig_w = max(fig_w, 10 + max([len(line) * 6.6 for line in notes + [title]] + [0]))
    return _svg(int(fig_w + 20), int(y + 10), title, body, desc)
