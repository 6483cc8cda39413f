"""The class report's picture: per section, one horizontal bar per mistake key, as long as the
number of students who made it. Written as SVG text by hand, as the docs site draws its figures
(no plotting library is installed, and none is needed for bars)."""
from __future__ import annotations

from html import escape

BAR = "#0072B2"        # Okabe-Ito blue, as the site's figures use: stays apart for colour-blind readers
ROW, GAP = 18, 26      # pixels: one bar's row, the space a section's heading takes
LABEL_W, PLOT_W = 190, 360


def svg(sections, per_section):
    """An SVG document from class_report.mistakes()'s counts, sections in the order given; a
    section with no mistakes says so rather than drawing nothing."""
    body, y = [], 10
    widest = max((n for m in per_section.values() for n in m["keys"].values()), default=1)
    for sid in sections:
        m = per_section.get(sid)
        if not m:
            continue
        y += GAP
        body.append(_label(8, y - 8, f"{sid}: students per mistake (of {m['students']})", weight="bold"))
        keys = sorted(m["keys"].items(), key=lambda kn: (-kn[1], kn[0]))
        if not keys:
            body.append(_label(LABEL_W, y + 12, "no mistakes"))
            y += ROW
        for key, n in keys:
            length = PLOT_W * n / widest
            body.append(_label(LABEL_W - 6, y + 12, key, anchor="end"))
            body.append(f"<rect x='{LABEL_W}' y='{y + 2}' width='{length:.1f}' height='{ROW - 4}' fill='{BAR}'>"
                        f"<title>{escape(key)}: {n}</title></rect>")
            body.append(_label(LABEL_W + length + 4, y + 12, str(n)))
            y += ROW
    width, height = LABEL_W + PLOT_W + 40, y + 10
    return "\n".join([
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' viewBox='0 0 {width} {height}' "
        "role='img' font-family='DejaVu Sans, Verdana, Arial, sans-serif' font-size='12'>",
        "<title>Students per mistake, by section</title>",
        f"<rect width='{width}' height='{height}' fill='white'/>",
        *body, "</svg>"]) + "\n"


def _label(x, y, text, anchor="start", weight="normal"):
    return f"<text x='{x:.1f}' y='{y:.1f}' text-anchor='{anchor}' font-weight='{weight}'>{escape(text)}</text>"
