"""`./workbook bench` (GPU): arguments, the build plan, and JSON to Markdown, without a GPU."""
import contextlib
import io
import json
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from halo.bench import bench_gpu
from halo import cli
from halo.core.chapter_data import load_chapter
from tests.helpers import REPO_ROOT

from .helpers import REPO_ROOT


def _row(name, section, variant, dims, mask, ms=None, status="ok", note=""):
    bytes_moved = 2.0 * 2**26 * 4
    gbps = bytes_moved / (ms * 1e6) if ms else None
    return {"name": name, "section": section, "variant": variant, "dims": dims, "mask": mask, "status": status,
            "note": note, "bytes": bytes_moved, "ms": ms, "min_ms": ms, "max_ms": ms, "gbps": gbps,
            "fraction_of_copy": gbps / 3000.0 if gbps else None, "max_rel_error": 1e-7, "checked": 10, "runs": 30}


def sample_results():
    return {
        "schema": "halo-gpu-bench/2", "mode": "reference", "date": "2025-01-02T03:04:05Z", "seed": 1234,
        "device": {"name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0", "sm_count": 132,
                   "l2_bytes": 50 * 2**20, "global_memory_bytes": 80 * 2**30, "memory_bus_bits": 5120,
                   "driver_api_version": 13000, "runtime_version": 13000},
        "facts": {"cudnn_version": "91900", "cudnn_source": "cuDNN called directly (cudnn.h)",
                  "npp_version": "13.0.1", "npp_source": "NPP called directly (nppi.h), nppiFilter_32f_C1R_Ctx"},
        "protocol": {"warmup": 5, "runs": 30, "statistic": "median", "l2_flush_bytes": 100 * 2**20,
                     "l2_persisting_reset": True, "timer": "cudaEvent", "events": "one start/stop pair per call",
                     "inputs": "written afresh before every run from the run number",
                     "checked": "validation run before timing; the last timed run (output poisoned first) after"},
        "sizes": {"width_1d": 2**26, "width_2d": 8192, "height_2d": 8192, "masks": [3, 5]},
        "copy": {"bytes": 2.0 * 2**26 * 4, "ms": 0.179, "min_ms": 0.178, "max_ms": 0.18, "gbps": 3000.0, "runs": 30},
        "fp32": {"what": "fmaf chains: 2112 blocks of 256 threads, 8 independent chains of 16384 fmaf per thread",
                 "error": "", "fmas": 7.0866e10, "ms": 2.3622, "min_ms": 2.36, "max_ms": 2.37, "runs": 30,
                 "fmas_per_s": 30e12, "tflops": 60.0},
        "driver_version": "580.159.04",
        "rows": [
            _row("convolution_1D_basic_kernel", "7.2", "reference", 1, 3, ms=0.25),
            _row("convolution_1D_tiled_kernel", "7.4", "reference", 1, 3, status="wrong",
                 note="P[5] = 1, expected 2 (not timed)"),
            _row("convolution_2D_basic_kernel", "7.8", "reference", 2, 3, ms=0.5),
            _row("convolution_2D_basic_kernel", "7.8", "reference", 2, 5, ms=0.8),
            _row("cudnnConvolutionForward", "-", "cuDNN", 2, 3, ms=1.0, note="algorithm FFT_TILING"),
            _row("nppiFilter_32f_C1R_Ctx", "-", "NPP", 2, 3, ms=0.25, note="input zero-padded to 8194 x 8194"),
        ],
    }


class VsVendor(unittest.TestCase):
    def test_ratio_is_vendor_time_over_kernel_time_for_the_same_mask(self):
        data = bench_gpu.add_vs_vendor(sample_results())
        by = {(r["name"], r["mask"]): r for r in data["rows"]}
        self.assertAlmostEqual(by[("convolution_2D_basic_kernel", 3)]["vs_cudnn"], 2.0)
        self.assertAlmostEqual(by[("cudnnConvolutionForward", 3)]["vs_cudnn"], 1.0)
        self.assertIsNone(by[("convolution_2D_basic_kernel", 5)]["vs_cudnn"])  # no vendor row for 5x5
        self.assertIsNone(by[("convolution_1D_basic_kernel", 3)]["vs_cudnn"])  # 1D: no vendor
        self.assertIsNone(by[("convolution_1D_tiled_kernel", 3)]["vs_cudnn"])  # not timed

    def test_npp_is_a_second_vendor(self):
        data = bench_gpu.add_vs_vendor(sample_results())
        by = {(r["name"], r["mask"]): r for r in data["rows"]}
        self.assertAlmostEqual(by[("convolution_2D_basic_kernel", 3)]["vs_npp"], 0.5)
        self.assertAlmostEqual(by[("cudnnConvolutionForward", 3)]["vs_npp"], 0.25)
        self.assertAlmostEqual(by[("nppiFilter_32f_C1R_Ctx", 3)]["vs_cudnn"], 4.0)
        self.assertIsNone(by[("convolution_2D_basic_kernel", 5)]["vs_npp"])


class Roofline(unittest.TestCase):
    def rows(self, data):
        return {(r["name"], r["mask"]): r for r in bench_gpu.add_roofline(data)["rows"]}

    def test_limits_come_from_the_copy_and_the_fma_rate_of_the_same_run(self):
        by = self.rows(sample_results())
        r = by[("convolution_2D_basic_kernel", 3)]
        self.assertEqual(r["fmas"], 8192 * 8192 * 9)  # w * w per output, every output
        self.assertAlmostEqual(r["memory_limit_ms"], 2 * 2**26 * 4 / 3e9)  # bytes / (3000 GB/s)
        self.assertAlmostEqual(r["fp32_limit_ms"], 8192 * 8192 * 9 / 30e12 * 1e3)
        self.assertEqual(r["bound"], "memory")
        self.assertAlmostEqual(r["limit_ms"], r["memory_limit_ms"])
        self.assertAlmostEqual(r["of_limit"], r["memory_limit_ms"] / 0.5)
        one_d = by[("convolution_1D_basic_kernel", 3)]
        self.assertEqual(one_d["fmas"], 2**26 * 3)  # w per output in 1D

    def test_the_binding_limit_is_the_larger(self):
        data = sample_results()
        data["fp32"]["fmas_per_s"] = 2e12
        r = self.rows(data)[("convolution_2D_basic_kernel", 3)]
        self.assertEqual(r["bound"], "FP32")
        self.assertAlmostEqual(r["limit_ms"], 8192 * 8192 * 9 / 2e12 * 1e3)
        self.assertAlmostEqual(r["of_limit"], r["limit_ms"] / 0.5)

    def test_a_row_without_a_time_has_limits_but_no_fraction(self):
        r = self.rows(sample_results())[("convolution_1D_tiled_kernel", 3)]
        self.assertIsNotNone(r["memory_limit_ms"])
        self.assertIsNone(r["of_limit"])

    def test_no_fma_rate_no_fp32_limit(self):
        data = sample_results()
        data["fp32"] = {"error": "FMA output 0 is not a number: never written", "fmas_per_s": 0}
        r = self.rows(data)[("convolution_2D_basic_kernel", 3)]
        self.assertIsNone(r["fp32_limit_ms"])
        self.assertEqual(r["bound"], "memory")
        self.assertIn("FP32 not measured (FMA output 0 is not a number", bench_gpu.markdown(data))


def student_results():
    data = sample_results()
    data["mode"] = "student"
    data["rows"] = [
        _row("convolution_2D_speed_of_light_kernel", "7.9", "reference", 2, 3, ms=0.2),
        _row("convolution_2D_speed_of_light_kernel", "7.9", "student", 2, 3, ms=0.48),
        _row("convolution_2D_speed_of_light_kernel", "7.9", "reference", 2, 5, ms=0.2),
        _row("convolution_2D_speed_of_light_kernel", "7.9", "student", 2, 5, ms=0.22),
        _row("convolution_2D_speed_of_light_kernel", "7.9", "reference", 2, 7, ms=0.25),
        _row("convolution_2D_speed_of_light_kernel", "7.9", "student", 2, 7, status="refused",
             note="right on the validation run, wrong after the 30 timed runs: P[0][0] = 1, expected 2"),
        _row("convolution_2D_speed_of_light_kernel", "7.9", "reference", 2, 9, status="skipped", note="r = 4 > 3"),
        _row("convolution_2D_speed_of_light_kernel", "7.9", "student", 2, 9, status="skipped", note="r = 4 > 3"),
    ]
    return data


class Score(unittest.TestCase):
    def test_the_curve(self):
        self.assertEqual(bench_gpu.speed_score(1.0, 1.0), 1.0)
        self.assertEqual(bench_gpu.speed_score(1.0, 0.5), 1.0)   # faster than the reference
        self.assertEqual(bench_gpu.speed_score(1.0, 1.2), 1.0)   # within 1.2x: full marks
        self.assertAlmostEqual(bench_gpu.speed_score(1.0, 2.4), 0.5)  # proportional below
        self.assertAlmostEqual(bench_gpu.speed_score(0.2, 0.48), 0.5)
        self.assertIsNone(bench_gpu.speed_score(None, 1.0))
        self.assertIsNone(bench_gpu.speed_score(1.0, None))
        self.assertIsNone(bench_gpu.speed_score(1.0, 0.0))

    def test_the_docs_state_the_curve_the_code_computes(self):
        # docs/grader.md types the factor (prose); it must be the one speed_score uses.
        text = " ".join((REPO_ROOT / "docs" / "grader.md").read_text(encoding="utf-8").split())
        k = bench_gpu.SCORE_FULL_WITHIN
        self.assertIn(f"min(1, {k} x the reference's time / yours): full marks within {k}x", text)

    def test_student_rows_are_scored_against_the_reference_of_the_same_mask(self):
        data = bench_gpu.add_scores(student_results())
        scores = {(r["variant"], r["mask"]): r.get("score") for r in data["rows"]}
        self.assertAlmostEqual(scores[("student", 3)], 0.5)
        self.assertEqual(scores[("student", 5)], 1.0)
        self.assertEqual(scores[("student", 7)], 0.0)   # refused: no time, no marks
        self.assertIsNone(scores[("student", 9)])       # skipped, like the reference
        self.assertIsNone(scores[("reference", 3)])
        self.assertEqual(len(data["scores"]), 1)
        summary = data["scores"][0]
        self.assertEqual((summary["section"], summary["masks"]), ("7.9", 3))
        self.assertAlmostEqual(summary["score"], 0.5)

    def test_no_student_rows_no_scores(self):
        self.assertNotIn("scores", bench_gpu.add_scores(sample_results()))

    def test_page_and_console_report_the_score_and_say_it_is_not_graded(self):
        data = bench_gpu.derive(student_results())
        md = bench_gpu.markdown(data)
        self.assertIn("| vs cuDNN | vs NPP | score | note |", md)
        self.assertIn("*score* (reported, not graded): min(1, 1.2 x the reference's time / your time)", md)
        self.assertIn("- 7.9 convolution_2D_speed_of_light_kernel: score 0.50 (mean over 3 masks", md)
        line = next(l for l in md.splitlines() if "| student | 3x3 |" in l)
        self.assertIn("| 0.50 |", line)
        text = bench_gpu.text_table(data)
        self.assertIn("speed scores (reported, not graded):", text)
        self.assertIn("score 0.50", text)


class Markdown(unittest.TestCase):
    def setUp(self):
        self.md = bench_gpu.markdown(bench_gpu.derive(sample_results()), "gpu-bench-h100.json")

    def test_header_names_device_driver_and_protocol(self):
        self.assertIn("Generated by tools/halo/bench/bench_gpu.py from gpu-bench-h100.json", self.md)
        self.assertIn("# GPU benchmarks: NVIDIA H100 80GB HBM3", self.md)
        self.assertIn("NVIDIA driver 580.159.04", self.md)
        self.assertIn("CUDA runtime 13.0", self.md)
        self.assertIn("median of 30 runs after 5 warm-up runs", self.md)
        self.assertIn("**3000 GB/s**", self.md)
        self.assertIn("HALO_SEED=1234", self.md)

    def test_header_states_the_measured_fma_rate_and_copy_bandwidth(self):
        header = self.md.split("\n\n")[1]
        self.assertIn("memory **3000 GB/s**", header)
        self.assertIn("FP32 **60.0 TFLOP/s** (2 FLOPs per FMA: 70.9 billion FMAs of independent `fmaf` chains in "
                      "2.362 ms, 2112 blocks of 256 threads", header)
        self.assertIn("NPP: NPP called directly (nppi.h), nppiFilter_32f_C1R_Ctx, version 13.0.1", header)

    def test_protocol_paragraph(self):
        self.assertIn("one pair of CUDA events per call", self.md)
        self.assertIn("the input is written afresh from the run's number", self.md)
        self.assertIn("its persisting lines reset", self.md)
        self.assertIn("one wrong after the timed runs is *refused*", self.md)

    def test_tables_per_dimensionality(self):
        self.assertIn("## 1D, 2^26 floats", self.md)
        self.assertIn("## 2D, 8192 x 8192 floats", self.md)
        self.assertIn("| kernel | section | variant | mask | time (ms) | GB/s | of copy | memory limit (ms) | "
                      "FP32 limit (ms) | of limit | note |", self.md)
        self.assertIn("| kernel | section | variant | mask | time (ms) | GB/s | of copy | memory limit (ms) | "
                      "FP32 limit (ms) | of limit | vs cuDNN | vs NPP | note |", self.md)
        self.assertIn("| convolution_1D_basic_kernel | 7.2 | reference | 3 | 0.250 | 2147 | 0.72 | 0.179 | 0.007 | "
                      "0.72 |  |", self.md)
        self.assertIn("| convolution_2D_basic_kernel | 7.8 | reference | 3x3 | 0.500 | 1074 | 0.36 | 0.179 | 0.020 | "
                      "0.36 | 2.00 | 0.50 |  |", self.md)
        self.assertNotIn("score", self.md)  # reference mode: no score column

    def test_a_wrong_kernel_has_no_time_and_says_why(self):
        line = next(l for l in self.md.splitlines() if "convolution_1D_tiled_kernel" in l)
        self.assertIn("| 3 | - | - | - | 0.179 | 0.007 | - |", line)
        self.assertIn("wrong: P[5] = 1, expected 2 (not timed)", line)

    def test_vendor_note_is_shown(self):
        line = next(l for l in self.md.splitlines() if "cudnnConvolutionForward" in l)
        self.assertIn("algorithm FFT_TILING", line)
        line = next(l for l in self.md.splitlines() if l.startswith("| nppiFilter_32f_C1R_Ctx"))
        self.assertIn("| NPP | 3x3 |", line)
        self.assertIn("input zero-padded to 8194 x 8194", line)

    def test_a_refused_kernel_has_no_time_and_says_why(self):
        data = sample_results()
        data["rows"][0].update(status="refused", note="right on the validation run, wrong after the 30 timed runs")
        line = next(l for l in bench_gpu.markdown(bench_gpu.derive(data)).splitlines() if "convolution_1D_basic" in l)
        self.assertIn("| 3 | - | - | - |", line)
        self.assertIn("refused: right on the validation run, wrong after the 30 timed runs", line)

    def test_the_sm_clock_column_when_the_run_read_it(self):
        self.assertNotIn("SM clock", self.md)  # a file from before the clock was read: no column
        data = sample_results()
        data["copy"]["sm_mhz"] = 1980.0
        data["fp32"]["sm_mhz"] = 1979.6
        data["rows"][2]["sm_mhz"] = 1931.2
        md = bench_gpu.markdown(bench_gpu.derive(data))
        self.assertIn("0.179 ms for 512 MiB moved, SMs at 1980 MHz)", md)
        self.assertIn("2112 blocks of 256 threads, 8 independent chains of 16384 fmaf per thread, SMs at 1980 MHz)", md)
        self.assertIn("| of limit | vs cuDNN | vs NPP | SM clock (MHz) | note |", md)
        self.assertIn("| convolution_2D_basic_kernel | 7.8 | reference | 3x3 | 0.500 | 1074 | 0.36 | 0.179 | 0.020 | "
                      "0.36 | 2.00 | 0.50 | 1931 |  |", md)
        self.assertIn("| 5x5 | 0.800 |", md)
        line = next(l for l in md.splitlines() if "| 5x5 | 0.800 |" in l)
        self.assertTrue(line.endswith("| - |  |"))  # timed, but no clock read: a dash
        self.assertIn("*SM clock* is the clock the SMs ran at across each timed call", md)
        text = bench_gpu.text_table(bench_gpu.derive(data))
        self.assertIn("FP32 FMA throughput: 60.0 TFLOP/s, SMs at 1980 MHz", text)
        self.assertTrue(text.rstrip().endswith("0.179 ms, 3000 GB/s, SMs at 1980 MHz"))

    def test_a_page_from_a_first_schema_file_still_renders(self):
        data = sample_results()
        del data["fp32"]
        data["protocol"] = {"warmup": 5, "runs": 30, "statistic": "median", "l2_flush_bytes": 100 * 2**20,
                            "timer": "cudaEvent"}
        md = bench_gpu.markdown(bench_gpu.derive(data))
        self.assertIn("Every kernel was validated first", md)
        self.assertIn("FP32 not measured", md)


class TextTable(unittest.TestCase):
    def test_printed_table_ends_with_the_copy(self):
        text = bench_gpu.text_table(bench_gpu.derive(sample_results()))
        self.assertTrue(text.splitlines()[0].startswith("1D, 2^26 floats"))
        self.assertIn("vs cuDNN", text)
        self.assertIn("of limit", text)
        self.assertIn("FP32 FMA throughput: 60.0 TFLOP/s", text)
        self.assertTrue(text.rstrip().endswith("copy (device to device, same bytes): 0.179 ms, 3000 GB/s"))


class MergeTorch(unittest.TestCase):
    def test_torch_rows_become_the_vendor(self):
        torch_result = {"copy": {"gbps": 2900.0, "ms": 0.185}, "torch": "2.11.0", "cudnn_version": 91900,
                        "rows": [dict(_row("torch.nn.functional.conv2d", "-", "cuDNN (PyTorch)", 2, 5, ms=0.4))]}
        data = sample_results()
        data["rows"] = [r for r in data["rows"] if r["variant"] != "cuDNN"]
        bench_gpu.add_vs_vendor(bench_gpu.merge_torch(data, torch_result))
        by = {(r["name"], r["mask"]): r for r in data["rows"]}
        self.assertAlmostEqual(by[("convolution_2D_basic_kernel", 5)]["vs_cudnn"], 0.5)
        self.assertIn("PyTorch", data["facts"]["cudnn_source"])
        self.assertIn("2900 GB/s", bench_gpu.markdown(data))
        bench_gpu.add_roofline(data)
        by = {(r["name"], r["mask"]): r for r in data["rows"]}
        self.assertAlmostEqual(by[("torch.nn.functional.conv2d", 5)]["fp32_limit_ms"], 8192 * 8192 * 25 / 30e12 * 1e3)


def _args(argv):
    return cli._parser().parse_args(["bench"] + argv)


class Arguments(unittest.TestCase):
    def test_parser(self):
        a = _args(["7.6", "--exercises", "sub", "--runs", "7"])
        self.assertEqual((a.sections, a.exercises, a.runs, a.checks), (["7.6"], "sub", 7, False))
        self.assertTrue(_args(["--checks"]).checks)
        self.assertEqual(_args([]).sections, [])

    def test_problems(self):
        self.assertEqual(bench_gpu.validate_args(_args([])), [])
        self.assertIn("--runs must be at least 1", bench_gpu.validate_args(_args(["--runs", "0"])))
        self.assertTrue(any("--exercises needs a SECTION" in p for p in bench_gpu.validate_args(_args(["--exercises", "x"]))))
        self.assertTrue(bench_gpu.validate_args(_args(["7.6", "--from-json", "x.json"])))

    def test_output_names(self):
        self.assertEqual(bench_gpu.output_stem([]), "gpu-bench")
        self.assertEqual(bench_gpu.output_stem(["7.6"]), "gpu-bench-student-7.6")


class Plan(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.chapter = load_chapter(REPO_ROOT)

    def test_every_reference_unit_with_a_solution(self):
        plan = bench_gpu.plan_units(REPO_ROOT, self.chapter, [], None)
        folders = [f for f, _, _ in plan]
        for f in ("7.2-basic-1d", "7.3-constant-memory", "7.4-tiled-1d", "7.5-cached-1d", "7.6-tiled-2d-pitched",
                  "7.8-exercises-2d"):
            self.assertIn(f, folders)
        self.assertEqual({v for _, _, v in plan}, {"reference"})
        for f, tree, _ in plan:
            self.assertTrue((tree / f).is_dir())

    def test_student_mode_pairs_reference_and_student(self):
        plan = bench_gpu.plan_units(REPO_ROOT, self.chapter, ["7.6"], None)
        self.assertEqual([(f, t.name, v) for f, t, v in plan],
                         [("7.6-tiled-2d-pitched", "solutions", "reference"),
                          ("7.6-tiled-2d-pitched", "exercises", "student")])

    def test_sections_without_a_benchmark_are_refused(self):
        with self.assertRaisesRegex(bench_gpu.BenchError, "7.1 has no GPU benchmark"):
            bench_gpu.plan_units(REPO_ROOT, self.chapter, ["7.1"], None)
        with self.assertRaisesRegex(bench_gpu.BenchError, "unknown section"):
            bench_gpu.plan_units(REPO_ROOT, self.chapter, ["9.9"], None)
        with self.assertRaisesRegex(bench_gpu.BenchError, "does not exist"):
            bench_gpu.plan_units(REPO_ROOT, self.chapter, ["7.6"], "/nonexistent-tree")

    def test_unit_commands_compile_the_kernel_file_as_grading_does(self):
        plan = bench_gpu.plan_units(REPO_ROOT, self.chapter, ["7.4"], None)
        cmds = bench_gpu.nvcc_commands(REPO_ROOT, "nvcc", "sm_90", Path("/g"), Path("/o"), plan, None)
        student = next(c for o, c in cmds if o.name == "student-7.4-tiled-1d.o")
        self.assertIn("-DHALO_BENCH_VARIANT=student", student)
        self.assertIn(f"-I{REPO_ROOT / 'exercises' / '7.4-tiled-1d'}", student)
        self.assertIn(str(Path("/g") / "halo" / "chapter_defines.hpp"), student)
        self.assertIn(str(REPO_ROOT / "grader" / "include" / "halo" / "cuda" / "cuda_dialect.hpp"), student)
        self.assertFalse(any(o.name == "cudnn_conv.o" for o, _ in cmds))
        with_cudnn = bench_gpu.nvcc_commands(REPO_ROOT, "nvcc", "sm_90", Path("/g"), Path("/o"), plan,
                                             ("/inc", "/lib", "libcudnn.so.9", "test"))
        self.assertIn("-I/inc", next(c for o, c in with_cudnn if o.name == "cudnn_conv.o"))
        self.assertFalse(any(o.name == "npp_conv.o" for o, _ in with_cudnn))
        npp = ("/npp/include", "/npp/lib", ["libnppif.so.13", "libnppc.so.13"], "test")
        with_npp = bench_gpu.nvcc_commands(REPO_ROOT, "nvcc", "sm_90", Path("/g"), Path("/o"), plan, None, npp)
        npp_cmd = next(c for o, c in with_npp if o.name == "npp_conv.o")
        self.assertIn("-I/npp/include", npp_cmd)
        self.assertTrue(npp_cmd[-3].endswith("npp_conv.cu"))

    def test_link_names_the_vendor_libraries_and_their_folders_once(self):
        npp = ("/cuda/include", "/cuda/lib64", ["libnppif.so", "libnppc.so"], "test")
        cudnn = ("/cuda/include", "/cuda/lib64", "libcudnn.so", "test")
        link = bench_gpu.link_command("nvcc", "sm_90", "/b/halo_bench_gpu", ["/o/a.o"], cudnn, npp)
        self.assertEqual(link[:4], ["nvcc", "-arch=sm_90", "-o", "/b/halo_bench_gpu"])
        for flag in ("-l:libcudnn.so", "-l:libnppif.so", "-l:libnppc.so"):
            self.assertIn(flag, link)
        self.assertEqual(link.count("-rpath=/cuda/lib64"), 1)
        bare = bench_gpu.link_command("nvcc", "sm_90", "/b/x", ["/o/a.o"], None, None)
        self.assertEqual(bare, ["nvcc", "-arch=sm_90", "-o", "/b/x", "/o/a.o"])


class NoDevice(unittest.TestCase):
    def test_says_nothing_to_time_and_skips(self):
        out = io.StringIO()
        with mock.patch.object(bench_gpu, "has_cuda_device", return_value=False), contextlib.redirect_stdout(out):
            rc = bench_gpu.run(REPO_ROOT, load_chapter(REPO_ROOT), _args([]))
        self.assertEqual(rc, bench_gpu.SKIP)
        self.assertIn("no CUDA device: nothing to time", out.getvalue())


class FromJson(unittest.TestCase):
    def test_writes_the_markdown_beside_the_json(self):
        with tempfile.TemporaryDirectory() as d:
            src = Path(d) / "gpu-bench-h100.json"
            src.write_text(json.dumps(sample_results()))
            with contextlib.redirect_stdout(io.StringIO()):
                rc = bench_gpu.run(REPO_ROOT, None, _args(["--from-json", str(src)]))
            self.assertEqual(rc, 0)
            md = (Path(d) / "gpu-bench-h100.md").read_text()
            self.assertIn("NVIDIA H100 80GB HBM3", md)


class NppLibrary(unittest.TestCase):
    def test_found_where_headers_and_both_libraries_are(self):
        with tempfile.TemporaryDirectory() as d:
            root = Path(d)
            (root / "include").mkdir()
            (root / "lib").mkdir()
            self.assertIsNone(bench_gpu.npp_in(root))
            for h in bench_gpu.NPP_HEADERS:
                (root / "include" / h).write_text("")
            (root / "lib" / "libnppif.so.13").write_text("")
            self.assertIsNone(bench_gpu.npp_in(root))  # nppc missing
            (root / "lib" / "libnppc.so.12").write_text("")
            (root / "lib" / "libnppc.so.13").write_text("")
            self.assertEqual(bench_gpu.npp_in(root),
                             (str(root / "include"), str(root / "lib"), ["libnppif.so.13", "libnppc.so.13"]))

    def test_npp_root_is_looked_at_first(self):
        with tempfile.TemporaryDirectory() as d:
            root = Path(d)
            (root / "include").mkdir()
            (root / "lib64").mkdir()
            for h in bench_gpu.NPP_HEADERS:
                (root / "include" / h).write_text("")
            for lib in ("libnppif.so", "libnppc.so"):
                (root / "lib64" / lib).write_text("")
            with mock.patch.dict("os.environ", {"NPP_ROOT": d}):
                found = bench_gpu.find_npp("")
            self.assertEqual(found, (str(root / "include"), str(root / "lib64"), ["libnppif.so", "libnppc.so"],
                                     "NPP_ROOT"))


class CudnnLibrary(unittest.TestCase):
    def test_versioned_name_when_there_is_no_plain_one(self):
        with tempfile.TemporaryDirectory() as d:
            (Path(d) / "libcudnn.so.9").write_text("")
            (Path(d) / "libcudnn_cnn.so.9").write_text("")
            self.assertEqual(bench_gpu._cudnn_library(d), "libcudnn.so.9")
            (Path(d) / "libcudnn.so").write_text("")
            self.assertEqual(bench_gpu._cudnn_library(d), "libcudnn.so")

    def test_the_newest_version_by_number(self):
        with tempfile.TemporaryDirectory() as d:
            for v in ("9", "10"):
                (Path(d) / f"libnppc.so.{v}").write_text("")
            self.assertEqual(bench_gpu._versioned_library(d, "nppc"), "libnppc.so.10")


if __name__ == "__main__":
    unittest.main()
