"""The per-element load heat maps: the committed JSON (docs/results/cpu-load-heatmaps.json,
written by `./workbook internal load-heatmaps`) against the chapter's formulas evaluated here, and
the SVG that figures_heatmap draws from it."""
import json
import math
import tempfile
import unittest
import xml.etree.ElementTree as ET
from pathlib import Path

from halo.site import figures_heatmap as fh
from halo.core.chapter_data import load_chapter
from tests.helpers import REPO_ROOT

RESULTS = REPO_ROOT / "docs" / "results" / "cpu-load-heatmaps.json"
SVG = "{http://www.w3.org/2000/svg}"

# The kernels the generator measures, by (section, kernel).
KERNELS = {
    ("7.2", "convolution_1D_basic_kernel"),
    ("7.4", "convolution_1D_tiled_kernel"),
    ("7.5", "convolution_1D_cached_kernel"),
    ("7.6", "convolution_2D_tiled_kernel"),
    ("7.8", "convolution_2D_basic_kernel"),
    ("7.8", "convolution_cached_tiled_2D_const_mem_kernel"),
}


def formula_total(chapter, e) -> float:
    """The chapter's total for entry e, computed from its sizes alone (not from its formula text)."""
    call, w, h, m = chapter.call, e["width"], e["height"], e["mask"]
    b = e["block"][0]
    key = (e["section"], e["kernel"])
    if key == ("7.2", "convolution_1D_basic_kernel"):
        return call("basic_1d_loads_total", w, m)
    if key == ("7.4", "convolution_1D_tiled_kernel"):
        return call("tiled_1d_loads_total", w, b, m)
    if key == ("7.5", "convolution_1D_cached_kernel"):
        return call("cached_1d_global_accesses_total", w, b, m)
    if key == ("7.6", "convolution_2D_tiled_kernel"):
        t = chapter.defines["O_TILE_WIDTH"][0]
        return sum(call("tiled_2d_loads_block", row, col, w, h, t, m)
                   for row in range(math.ceil(h / t)) for col in range(math.ceil(w / t)))
    if key == ("7.8", "convolution_2D_basic_kernel"):
        return call("basic_2d_loads_total", w, h, m)
    if key == ("7.8", "convolution_cached_tiled_2D_const_mem_kernel"):
        t = chapter.defines["TILE_DIM"][0]
        return (call("cached_2d_blocks", w, h, t) * call("cached_2d_tile_loads_internal_block", t)
                + call("cached_2d_halo_loads_total", w, h, t, m))
    raise AssertionError(f"no formula known for {key}")


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def texts(root: ET.Element, cls: str) -> list:
    return [t.text for t in root.iter(f"{SVG}text") if t.get("class") == cls]


class CommittedResults(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)
        cls.entries = fh.heatmap_entries(RESULTS)

    def test_every_kernel_is_there_once(self):
        keys = [(e["section"], e["kernel"]) for e in self.entries]
        self.assertEqual(sorted(keys), sorted(KERNELS))

    def test_totals_equal_the_chapters_formulas(self):
        for e in self.entries:
            with self.subTest(kernel=e["kernel"]):
                want = formula_total(self.chapter, e)
                self.assertEqual(e["total"], want)
                self.assertEqual(e["formula_total"], want)

    def test_per_element_counts_add_up_to_the_totals(self):
        for e in self.entries:
            with self.subTest(kernel=e["kernel"]):
                self.assertEqual(len(e["counts"]), e["width"] * e["height"])
                self.assertEqual(sum(e["counts"]), e["total"])

    def test_every_element_of_N_is_loaded(self):
        # Every input element is some output's neighbour, and no kernel skips a real element.
        for e in self.entries:
            with self.subTest(kernel=e["kernel"]):
                self.assertGreaterEqual(min(e["counts"]), 1)

    def test_the_basic_kernel_loads_each_element_once_per_thread_that_needs_it(self):
        # Element k is read by the threads within n of it: by symmetry, basic_1d_loads_thread(k).
        (e,) = [e for e in self.entries if e["section"] == "7.2"]
        want = [self.chapter.call("basic_1d_loads_thread", k, e["width"], e["mask"]) for k in range(e["width"])]
        self.assertEqual(e["counts"], want)

    def test_the_basic_2d_kernel_is_the_product_of_two_1d_counts(self):
        (e,) = [e for e in self.entries if e["kernel"] == "convolution_2D_basic_kernel"]
        w, h, m = e["width"], e["height"], e["mask"]
        want = [self.chapter.call("basic_2d_loads_thread", row, col, w, h, m) for row in range(h) for col in range(w)]
        self.assertEqual(e["counts"], want)

    def test_the_committed_svgs_are_well_formed_and_show_every_count(self):
        for e in self.entries:
            with self.subTest(kernel=e["kernel"]):
                root = parse(fh.heatmap_svg(e))
                self.assertEqual(root.tag, f"{SVG}svg")
                self.assertEqual(texts(root, "count"), [str(c) for c in e["counts"]])
                self.assertEqual(texts(root, "legend"), [str(v) for v in sorted(set(e["counts"]))])


def entry(counts, width, height=1, block=(4, 1), **extra):
    e = {"section": "9.9", "kernel": "k<&>", "width": width, "height": height, "mask": 3, "block": list(block),
         "counts": counts, "total": sum(counts), "formula_total": sum(counts), "formula": "f(1, 2) < g & h"}
    e.update(extra)
    return e


class Figure(unittest.TestCase):
    def test_1d_row_one_cell_per_element_in_order(self):
        counts = [1, 2, 3, 3, 2, 1, 0, 7]
        root = parse(fh.heatmap_svg(entry(counts, 8)))
        self.assertEqual(texts(root, "count"), [str(c) for c in counts])
        cells = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "cell"]
        self.assertEqual(len(cells), 8)
        xs = [float(r.get("x")) for r in cells]
        self.assertEqual(xs, sorted(xs))
        self.assertEqual(len({float(r.get("y")) for r in cells}), 1)  # one row

    def test_2d_grid_row_by_row(self):
        counts = [1, 2, 3, 4, 5, 6]
        root = parse(fh.heatmap_svg(entry(counts, 3, 2, block=(3, 2))))
        cells = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "cell"]
        self.assertEqual(len({float(r.get("y")) for r in cells}), 2)
        self.assertEqual(len({float(r.get("x")) for r in cells}), 3)
        self.assertEqual(texts(root, "count"), [str(c) for c in counts])

    def test_text_is_escaped(self):
        svg = fh.heatmap_svg(entry([1, 2], 2))
        parse(svg)
        self.assertIn("k&lt;&amp;&gt;", svg)

    def test_larger_counts_are_darker_and_zero_is_white(self):
        def luminance(c):
            r, g, b = (int(c[i:i + 2], 16) for i in (1, 3, 5))
            return 0.299 * r + 0.587 * g + 0.114 * b
        shades = [luminance(fh.colour(c, 25)) for c in range(1, 26)]
        self.assertEqual(shades, sorted(shades, reverse=True))
        self.assertGreater(shades[0] - shades[-1], 150)
        self.assertEqual(fh.colour(0, 25), "#ffffff")
        self.assertEqual(fh.colour(25, 25), fh.BLUES[-1])

    def test_cells_take_their_colour_from_the_count(self):
        root = parse(fh.heatmap_svg(entry([1, 4], 2)))
        fills = [r.get("fill") for r in root.iter(f"{SVG}rect") if r.get("class") == "cell"]
        self.assertEqual(fills, [fh.colour(1, 4), fh.colour(4, 4)])
        self.assertNotEqual(fills[0], fills[1])

    def test_many_distinct_counts_get_a_short_legend(self):
        counts = list(range(1, 41))
        root = parse(fh.heatmap_svg(entry(counts, 40)))
        legend = [int(t) for t in texts(root, "legend")]
        self.assertLessEqual(len(legend), fh.MAX_LEGEND_VALUES)
        self.assertEqual((legend[0], legend[-1]), (1, 40))


class Entries(unittest.TestCase):
    def write(self, data) -> Path:
        d = tempfile.TemporaryDirectory(prefix="halo-heatmap-")
        self.addCleanup(d.cleanup)
        path = Path(d.name) / "h.json"
        path.write_text(json.dumps(data) if not isinstance(data, str) else data)
        return path

    def test_reads_the_kernels(self):
        e = entry([1, 2, 3], 3)
        self.assertEqual(fh.heatmap_entries(self.write({"kernels": [e]})), [e])

    def test_refuses_counts_that_do_not_fit_the_size(self):
        with self.assertRaisesRegex(fh.HeatmapError, "3 counts for 2 x 2"):
            fh.heatmap_entries(self.write({"kernels": [entry([1, 2, 3], 2, 2)]}))

    def test_refuses_missing_fields_and_bad_json(self):
        e = entry([1], 1)
        del e["formula_total"]
        with self.assertRaisesRegex(fh.HeatmapError, "lacks formula_total"):
            fh.heatmap_entries(self.write({"kernels": [e]}))
        with self.assertRaises(fh.HeatmapError):
            fh.heatmap_entries(self.write("{not json"))
        with self.assertRaisesRegex(fh.HeatmapError, "no \"kernels\" list"):
            fh.heatmap_entries(self.write({"entries": []}))


if __name__ == "__main__":
    unittest.main()
