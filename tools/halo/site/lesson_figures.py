"""The tile figures of the lessons (the 1D tiles and the 2D input and output tiles), drawn from
the chapter's measurements: the docs site shows them beside each lesson and the handouts carry
them. Apart from site/docs_site.py so that handouts (course/handout.py) can draw them without
importing the site, which imports the handouts."""
from __future__ import annotations

from ..core import expressions as ex
from . import figures


# The 1D lessons' tile figure: the launch whose parameters it draws (a measurement of the
# chapter, the one the grader measures), the kind of tile, the heading it goes before, and the
# load counts it states (formula, arguments taken from the launch).
TILE_FIGURES = {
    "7.2": ("basic_1d_large", "basic", "## Counting the loads of N",
            [("loads of N, internal block", "basic_1d_loads_internal_block", ("blockDim", "Mask_Width")),
             ("loads of N, block 0", "basic_1d_loads_boundary_block", ("blockDim", "Mask_Width"))]),
    "7.3": ("basic_1d_large", "basic", "## What changes in the numbers", []),
    "7.4": ("ratio_1d_b32", "tiled", "## The kernel",
            [("loads of N, internal block", "tiled_1d_loads_internal_block", ("blockDim", "Mask_Width")),
             ("loads of N, block 0", "tiled_1d_loads_boundary_block", ("blockDim", "Mask_Width"))]),
    "7.5": ("cached_1d_large", "cached", "## Counting the accesses",
            [("tile loads, internal block", "cached_1d_tile_loads", ("blockDim",)),
             ("halo reads from N, internal block", "cached_1d_halo_reads_internal_block", ("Mask_Width",))]),
}


def _fmt(value) -> str:
    return ex.format_value(value)


def tile_figure(chapter, section_id: str, edition: str):
    """(svg, caption, heading) of a 1D lesson, or None."""
    if section_id not in TILE_FIGURES:
        return None
    launch, kind, heading, counts = TILE_FIGURES[section_id]
    fields = chapter.measurements[launch].fields
    notes = []
    for label, formula, args in counts:
        expr = chapter.formulas[formula].expr.strip()
        line = f"{label}: {formula} = {expr}"
        if edition == "instructor":  # the value is a question's answer: the key shows it
            line += f" = {_fmt(chapter.call(formula, *[fields[a] for a in args]))}"
        notes.append(line)
    svg = figures.tile_1d(fields["Width"], fields["blockDim"], fields["Mask_Width"], kind, notes)
    caption = (f"Blocks 0 and 1 of the grader's launch `{launch}`: Width = {_fmt(fields['Width'])}, "
               f"blockDim.x = {_fmt(fields['blockDim'])}, Mask_Width = {_fmt(fields['Mask_Width'])}.")
    return svg, caption, heading


# The 2D lessons' tile figure: the launch it draws (a measurement of the chapter) and the
# heading it goes before. The sizes come from the chapter's defines and formulas.
TILE_2D_FIGURES = {
    "7.6": ("ratio_2d_t16_m5", "## Shared memory sized for the largest mask"),
    "7.8": ("tiled_2d_large", "## Exercise 10: the cached kernel"),
    "7.9": ("sol_loads_large", "## What the grader checks"),
}


def _value_note(chapter, edition, label, formula, args: dict) -> str:
    """'label: formula(args) = expr', with its value in the instructor edition only (the student
    edition never prints a number a question may ask for)."""
    expr = chapter.formulas[formula].expr.strip()
    line = f"{label}: {formula}({', '.join(f'{k} = {_fmt(v)}' for k, v in args.items())}) = {expr}"
    if edition == "instructor":
        line += f" = {_fmt(chapter.call(formula, *args.values()))}"
    return line


def _tile_2d_7_6(chapter, edition, fields):
    t = fields.get("T", chapter.define_values()["O_TILE_WIDTH"])
    m, width, height = fields["Mask_Width"], fields["width"], fields["height"]
    n = int(chapter.call("radius", m))
    bw = int(chapter.call("tiled_2d_block_width", t, m))
    last = int(chapter.call("tiled_2d_grid_blocks", width, t)) - 1
    dims = {"top": f"BLOCK_WIDTH = {bw} columns", "left": f"{bw} rows",
            "out": f"O_TILE_WIDTH = {t}"}

    def panel(bx, by, label):
        x0, y0 = bx * t - n, by * t - n   # image column and row of the tile's corner
        ghost = [(0, 0, bw, -y0), (0, 0, -x0, bw), (width - x0, 0, bw, bw), (0, height - y0, bw, bw)]
        return figures.tile_panel(label, bw, bw, (n, n, t, t), ghost=ghost,
                                  padding=[(width - x0, 0, bw, bw)], dims=dims)
    panels = [panel(0, 0, "block (0,0): the image's corner"), panel(1, 1, "block (1,1): internal"),
              panel(last, 1, f"block ({last},1): the right edge")]
    notes = [f"BLOCK_WIDTH = O_TILE_WIDTH + Mask_Width - 1 = {bw}: n = Mask_Width / 2 = {n} halo rows and columns "
             "on each side; one thread per input element.",
             f"Columns at and past width = {width} are ghost cells; in memory they are the pitch padding "
             "(or the next row): test columns against width, never the pitch.",
             _value_note(chapter, edition, "loads of N, internal block", "tiled_2d_input_tile_elements",
                         {"T": t, "Mask_Width": m}),
             _value_note(chapter, edition, "loads of N, block (0,0)", "tiled_2d_loads_block",
                         {"blockRow": 0, "blockCol": 0, "width": width, "height": height, "T": t, "Mask_Width": m})]
    svg = figures.tile_2d(f"7.6 input tiles: O_TILE_WIDTH {t}, Mask_Width {m}, image {width} x {height}",
                          panels, 11, 11, notes)
    return svg, (f"Input tiles of the tiled kernel at the grader's launch `ratio_2d_t16_m5`: {width} x {height} "
                 f"image, O_TILE_WIDTH = {t} (the chapter's define), Mask_Width = {m}; one square per element.")


def _tile_2d_7_8(chapter, edition, fields):
    d = chapter.define_values()["IN_TILE_DIM"]
    m, width, height = fields["Mask_Width"], fields["width"], fields["height"]
    r = int(chapter.call("radius", m))
    out = int(chapter.call("tiled_in_2d_out_tile_dim", d, r))
    dims = {"top": f"IN_TILE_DIM = {d}", "left": f"{d} rows", "out": f"OUT_TILE_DIM = {out}"}

    def panel(bx, by, label):
        x0, y0 = bx * out - r, by * out - r
        ghost = [(0, 0, d, -y0), (0, 0, -x0, d), (width - x0, 0, d, d), (0, height - y0, d, d)]
        return figures.tile_panel(label, d, d, (r, r, out, out), ghost=ghost, dims=dims)
    panels = [panel(0, 0, "block (0,0): the image's corner"), panel(1, 1, "block (1,1): internal")]
    notes = [f"OUT_TILE_DIM = IN_TILE_DIM - 2r = {out} with r = {r}: blocks of IN_TILE_DIM x IN_TILE_DIM threads, "
             "output tiles OUT_TILE_DIM apart.",
             _value_note(chapter, edition, "loads of N, internal block", "tiled_in_2d_loads_internal_block", {"inTileDim": d}),
             _value_note(chapter, edition, "loads of N, block (0,0)", "tiled_in_2d_loads_first_block", {"inTileDim": d, "r": r})]
    svg = figures.tile_2d(f"7.8 tiled kernel: IN_TILE_DIM {d}, r {r}, image {width} x {height}", panels, 8, 8, notes)
    return svg, (f"Input tiles of the tiled kernel (exercise 9) at the grader's launch `tiled_2d_large`: "
                 f"{width} x {height} image, IN_TILE_DIM = {d} (the chapter's define), Mask_Width = {m}.")


def _tile_2d_7_9(chapter, edition, fields):
    defines = chapter.define_values()
    bx, by, rows = defines["SOL_BLOCK_X"], defines["SOL_BLOCK_Y"], defines["SOL_ROWS_PER_THREAD"]
    m, width, height = fields["Mask_Width"], fields["width"], fields["height"]
    r = int(chapter.call("radius", m))
    tw, th = int(chapter.call("sol_tile_width", bx)), int(chapter.call("sol_tile_height", by, rows))
    h = int(chapter.call("sol_halo_columns", r))
    cols, rws = tw + 2 * h, th + 2 * r
    dims = {"top": f"{tw} output columns + {h} halo columns on each side (whole float4s)",
            "left": f"{th} + 2 x {r} rows", "out": f"{tw} x {th} outputs"}

    def panel(bxi, byi, label):
        x0, y0 = bxi * tw - h, byi * th - r
        ghost = [(0, 0, cols, -y0), (0, 0, -x0, rws), (width - x0, 0, cols, rws), (0, height - y0, cols, rws)]
        unused = [(0, 0, h - r, rws), (cols - (h - r), 0, h - r, rws)]
        return figures.tile_panel(label, cols, rws, (h, r, tw, th), ghost=ghost, unused=unused,
                                  grid_x=4, grid_y=rows, dims=dims)
    panels = [panel(0, 0, "block (0,0): the image's corner"), panel(1, 1, "block (1,1): internal")]
    notes = [f"A block of {bx} x {by} threads; each thread computes 4 columns (one float4) x {rows} rows.",
             f"The halo needs r = {r} columns per side; it is rounded up to {h} = 4 ceil(r / 4) so every load is one "
             "aligned 16-byte float4 (grid lines: one float4 wide).",
             _value_note(chapter, edition, "loads of N, internal block", "sol_loads_internal_block",
                         {"blockX": bx, "blockY": by, "rows": rows, "r": r})]
    svg = figures.tile_2d(f"7.9 float4 tile: {bx} x {by} threads, {rows} rows each, Mask_Width {m}",
                          panels, 3, 3, notes, per_row=2)
    return svg, (f"Input tiles of the speed-of-light kernel at the grader's launch `sol_loads_large`: "
                 f"{width} x {height} image, Mask_Width = {m}, SOL_BLOCK_X = {bx}, SOL_BLOCK_Y = {by}, "
                 f"SOL_ROWS_PER_THREAD = {rows} (the chapter's defines).")


def tile_2d_figure(chapter, section_id: str, edition: str):
    """(svg, caption, heading) of a 2D lesson, or None."""
    if section_id not in TILE_2D_FIGURES:
        return None
    launch, heading = TILE_2D_FIGURES[section_id]
    if launch not in chapter.measurements:
        return None
    draw = {"7.6": _tile_2d_7_6, "7.8": _tile_2d_7_8, "7.9": _tile_2d_7_9}[section_id]
    svg, caption = draw(chapter, edition, chapter.measurements[launch].fields)
    return svg, caption, heading
