"""`./workbook bench`: GPU benchmarks of the reference kernels (or a student's beside them).

Builds grader/bench/gpu/ with nvcc alone (one executable; each kernel file compiled in its own
namespace, see grader/bench/gpu/unit_prelude.hpp), runs it, adds the vendor baselines (cuDNN
linked directly when cudnn.h is found, otherwise torch.nn.functional.conv2d timed the same
way; NPP's nppiFilter_32f_C1R_Ctx when nppi.h is found), and writes the JSON and a Markdown
table generated from it. Timings inform; they never decide a test. With no CUDA device it says
so and exits SKIP (77): nothing is timed, nothing is made up.
"""
import datetime
import glob
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

SKIP = 77
NO_DEVICE = "no CUDA device: nothing to time"
BENCH_DIR = Path("grader") / "bench" / "gpu"
COMMON_SOURCES = ["main.cu", "timing.cu", "registry.cpp", "inputs.cpp", "report.cpp"]


class BenchError(Exception):
    """Something the user can fix (a missing toolchain, a section without a benchmark)."""


# ---------------------------------------------------------------- the machine

def has_cuda_device():
    """True when this machine shows an NVIDIA device (the program checks again with CUDA)."""
    if glob.glob("/dev/nvidia[0-9]*"):
        return True
    smi = shutil.which("nvidia-smi")
    if smi:
        try:
            p = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30)
            return p.returncode == 0 and "GPU" in p.stdout
        except (OSError, subprocess.SubprocessError):
            return False
    return False


def _smi_query(field):
    smi = shutil.which("nvidia-smi")
    if not smi:
        return ""
    try:
        p = subprocess.run([smi, f"--query-gpu={field}", "--format=csv,noheader"], capture_output=True, text=True,
                           timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    return p.stdout.strip().splitlines()[0].strip() if p.returncode == 0 and p.stdout.strip() else ""


def cuda_arch():
    """sm_XY of device 0 (HALO_CUDA_ARCH overrides); sm_90 when it cannot be asked."""
    if os.environ.get("HALO_CUDA_ARCH"):
        return os.environ["HALO_CUDA_ARCH"]
    cap = _smi_query("compute_cap")
    if re.fullmatch(r"\d+\.\d+", cap):
        return "sm_" + cap.replace(".", "")
    return "sm_90"


def find_nvcc():
    for c in (os.environ.get("NVCC"), shutil.which("nvcc"),
              os.environ.get("CUDA_HOME") and os.path.join(os.environ["CUDA_HOME"], "bin", "nvcc"),
              "/usr/local/cuda/bin/nvcc"):
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return ""


def _python_candidates():
    seen, out = set(), []
    for c in (os.environ.get("HALO_PYTHON"), sys.executable, shutil.which("python3"), shutil.which("python")):
        if c and c not in seen and os.path.exists(c):
            seen.add(c)
            out.append(c)
    return out


def _versioned_library(lib_dir, stem):
    """The name to link lib<stem> by (-l:NAME): lib<stem>.so, else the newest lib<stem>.so.N."""
    d = Path(lib_dir)
    if (d / f"lib{stem}.so").exists():
        return f"lib{stem}.so"
    versioned = [p.name for p in d.glob(f"lib{stem}.so.*") if re.fullmatch(rf"lib{re.escape(stem)}\.so\.\d+", p.name)]
    return max(versioned, key=lambda n: int(n.rsplit(".", 1)[1])) if versioned else ""


def _cudnn_library(lib_dir):
    """The name to link cuDNN by (-l:NAME): libcudnn.so, else the versioned libcudnn.so.N."""
    return _versioned_library(lib_dir, "cudnn")


def find_cudnn(nvcc):
    """(include dir, lib dir, library name, where it was found) or None. Looks at CUDNN_ROOT, the
    CUDA toolkit, the system, then the nvidia-cudnn wheel of any Python here (PyTorch's)."""
    roots = []
    if os.environ.get("CUDNN_ROOT"):
        roots.append((Path(os.environ["CUDNN_ROOT"]), "CUDNN_ROOT"))
    if nvcc:
        roots.append((Path(nvcc).resolve().parent.parent, "the CUDA toolkit"))
    roots += [(Path("/usr"), "the system"), (Path("/usr/local"), "the system")]
    for py in _python_candidates():
        try:
            p = subprocess.run([py, "-c", "import nvidia.cudnn as c; print(list(c.__path__)[0])"],
                               capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.SubprocessError):
            continue
        if p.returncode == 0 and p.stdout.strip():
            roots.append((Path(p.stdout.strip()), f"the nvidia-cudnn wheel of {py}"))
    for root, where in roots:
        for inc in (root / "include", root / "include" / "x86_64-linux-gnu"):
            if not (inc / "cudnn.h").exists():
                continue
            for lib in (root / "lib", root / "lib64", root / "lib" / "x86_64-linux-gnu"):
                name = _cudnn_library(lib) if lib.is_dir() else ""
                if name:
                    return str(inc), str(lib), name, where
    return None


NPP_HEADERS = ("nppcore.h", "nppi_filtering_functions.h")
NPP_MISSING = "no nppi_filtering_functions.h found (NPP_ROOT, the CUDA toolkit, /usr, a Python's nvidia-npp wheel)"
NPP_LIBRARIES = ("nppif", "nppc")  # the filters, and the core they need (nppGetLibVersion)


def _npp_wheel_roots(py):
    """Folders of the nvidia-* wheels of a Python that hold NPP's headers (nvidia/cu13, nvidia/npp)."""
    try:
        p = subprocess.run([py, "-c", "import nvidia; print('\\n'.join(list(nvidia.__path__)))"],
                           capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return []
    if p.returncode != 0:
        return []
    roots = []
    for base in filter(None, (line.strip() for line in p.stdout.splitlines())):
        for d in sorted(Path(base).glob("*")):
            if (d / "include" / NPP_HEADERS[1]).exists():
                roots.append(d)
    return roots


def npp_in(root):
    """(include dir, lib dir, [library names]) of NPP under one root, or None."""
    root = Path(root)
    for inc in (root / "include", root / "include" / "x86_64-linux-gnu"):
        if not all((inc / h).exists() for h in NPP_HEADERS):
            continue
        for lib in (root / "lib64", root / "lib", root / "lib" / "x86_64-linux-gnu"):
            names = [_versioned_library(lib, stem) for stem in NPP_LIBRARIES] if lib.is_dir() else []
            if names and all(names):
                return str(inc), str(lib), names
    return None


def find_npp(nvcc):
    """(include dir, lib dir, [library names], where it was found) or None. Looks at NPP_ROOT, the
    CUDA toolkit (and its targets/*/), the system, then the nvidia-npp wheel of any Python here."""
    def roots():  # in order, the Pythons asked only when nothing before them has NPP
        if os.environ.get("NPP_ROOT"):
            yield Path(os.environ["NPP_ROOT"]), "NPP_ROOT"
        if nvcc:
            toolkit = Path(nvcc).resolve().parent.parent
            yield toolkit, "the CUDA toolkit"
            for t in sorted((toolkit / "targets").glob("*")):
                yield t, "the CUDA toolkit"
        yield Path("/usr"), "the system"
        yield Path("/usr/local"), "the system"
        for py in _python_candidates():
            for r in _npp_wheel_roots(py):
                yield r, f"the nvidia-npp wheel of {py}"

    for root, where in roots():
        found = npp_in(root)
        if found:
            return found + (where,)
    return None


def torch_python():
    """A Python that imports torch, or ''."""
    for py in _python_candidates():
        try:
            if subprocess.run([py, "-c", "import torch"], capture_output=True, timeout=120).returncode == 0:
                return py
        except (OSError, subprocess.SubprocessError):
            continue
    return ""


# ---------------------------------------------------------------- what to build

def bench_units(root):
    """{folder: unit source} for every kernels/<folder>.cu: one per section with a benchmark."""
    return {p.stem: p for p in sorted((Path(root) / BENCH_DIR / "kernels").glob("*.cu"))}


def plan_units(root, chapter, sections, exercises):
    """[(folder, tree, variant)]: every reference unit, or for each section named the reference
    and the student's file side by side."""
    units = bench_units(root)
    if not sections:
        plan = []
        for folder in units:
            if (Path(root) / "solutions" / folder).is_dir():
                plan.append((folder, Path(root) / "solutions", "reference"))
        return plan
    tree = Path(exercises) if exercises else Path(root) / "exercises"
    plan = []
    for s in sections:
        try:
            section = chapter.section(s)
        except KeyError as e:
            raise BenchError(e.args[0]) from None
        if section.folder not in units:
            raise BenchError(f"section {section.id} has no GPU benchmark (no {BENCH_DIR}/kernels/{section.folder}.cu); "
                             f"the sections with one: {', '.join(sorted(units))}")
        if not (tree / section.folder).is_dir():
            raise BenchError(f"{tree / section.folder} does not exist: nothing of yours to bench for {section.id}")
        plan.append((section.folder, Path(root) / "solutions", "reference"))
        plan.append((section.folder, tree, "student"))
    return plan


def nvcc_commands(root, nvcc, arch, gen_dir, obj_dir, plan, cudnn, npp=None):
    """[(object file, command)]: the common sources, one object per (unit, variant), cuDNN, NPP."""
    root = Path(root)
    bench = root / BENCH_DIR
    base = [nvcc, f"-arch={arch}", "-O3", "-std=c++17", "-lineinfo", f"-I{bench}"]
    cmds = []
    for src in COMMON_SOURCES:
        obj = obj_dir / (src + ".o")
        cmds.append((obj, base + ["-x", "cu", "-c", str(bench / src), "-o", str(obj)]))
    for folder, tree, variant in plan:
        obj = obj_dir / f"{variant}-{folder}.o"
        cmds.append((obj, base + [
            f"-I{root / 'grader' / 'include'}", f"-I{Path(tree) / folder}",
            "--pre-include", str(root / "grader" / "include" / "halo" / "cuda" / "cuda_dialect.hpp"),
            "--pre-include", str(gen_dir / "halo" / "chapter_defines.hpp"),
            f"-DHALO_BENCH_VARIANT={variant}", "-c", str(bench / "kernels" / f"{folder}.cu"), "-o", str(obj)]))
    if cudnn:
        obj = obj_dir / "cudnn_conv.o"
        cmds.append((obj, base + [f"-I{cudnn[0]}", "-c", str(bench / "cudnn_conv.cu"), "-o", str(obj)]))
    if npp:
        obj = obj_dir / "npp_conv.o"
        cmds.append((obj, base + [f"-I{npp[0]}", "-c", str(bench / "npp_conv.cu"), "-o", str(obj)]))
    return cmds


def link_command(nvcc, arch, binary, objects, cudnn, npp=None):
    """The link: the objects, and the vendor libraries found (cuDNN, NPP's nppif and nppc). The
    executable's RPATH (not RUNPATH) also serves the libraries cuDNN opens itself."""
    link = [nvcc, f"-arch={arch}", "-o", str(binary)] + [str(o) for o in objects]
    lib_dirs = []
    if cudnn:
        link += [f"-L{cudnn[1]}", f"-l:{cudnn[2]}"]
        lib_dirs.append(cudnn[1])
    if npp:
        link += [f"-L{npp[1]}"] + [f"-l:{name}" for name in npp[2]]
        lib_dirs.append(npp[1])
    if lib_dirs:
        link += ["-Xlinker", "--disable-new-dtags"]
        for d in dict.fromkeys(lib_dirs):
            link += ["-Xlinker", f"-rpath={d}"]
    return link


def build(root, chapter, build_dir, plan, cudnn, log, npp=None):
    from ..core import cpp_header
    nvcc = find_nvcc()
    if not nvcc:
        raise BenchError("nvcc was not found (PATH, $NVCC, $CUDA_HOME, /usr/local/cuda): install the CUDA toolkit")
    build_dir = Path(build_dir)
    gen_dir, obj_dir = build_dir / "generated", build_dir / "obj"
    (gen_dir / "halo").mkdir(parents=True, exist_ok=True)
    obj_dir.mkdir(parents=True, exist_ok=True)
    (gen_dir / "halo" / "chapter_defines.hpp").write_text(cpp_header.emit_defines(chapter))
    arch = cuda_arch()
    cmds = nvcc_commands(root, nvcc, arch, gen_dir, obj_dir, plan, cudnn, npp)
    log(f"building {len(cmds)} translation units with {nvcc} -arch={arch} in {build_dir}")

    def compile_one(item):
        obj, cmd = item
        p = subprocess.run(cmd, capture_output=True, text=True)
        return obj, cmd, p

    with ThreadPoolExecutor(max_workers=max(1, min(len(cmds), os.cpu_count() or 1))) as pool:
        results = list(pool.map(compile_one, cmds))
    failed = [(cmd, p) for _, cmd, p in results if p.returncode != 0]
    if failed:
        cmd, p = failed[0]
        raise BenchError("nvcc failed:\n  " + " ".join(cmd) + "\n" + (p.stdout + p.stderr).strip())
    binary = build_dir / "halo_bench_gpu"
    link = link_command(nvcc, arch, binary, [o for o, _, _ in results], cudnn, npp)
    p = subprocess.run(link, capture_output=True, text=True)
    if p.returncode != 0:
        raise BenchError("link failed:\n  " + " ".join(link) + "\n" + (p.stdout + p.stderr).strip())
    return binary


# ---------------------------------------------------------------- results

def _fmt(x, spec):
    return "-" if x is None else format(x, spec)


VENDORS = (("vs_cudnn", lambda variant: variant.startswith("cuDNN")), ("vs_npp", lambda variant: variant == "NPP"))


def add_vs_vendor(data):
    """Each 2D row that was timed gets vs_cudnn and vs_npp = the vendor's time / its time (above 1:
    faster than the vendor), from that vendor's timed row of the same mask."""
    for key, is_vendor in VENDORS:
        vendor = {r["mask"]: r for r in data["rows"]
                  if is_vendor(r["variant"]) and r["dims"] == 2 and r["status"] == "ok"}
        for r in data["rows"]:
            v = vendor.get(r["mask"])
            r[key] = (v["ms"] / r["ms"] if r["dims"] == 2 and v and r["status"] == "ok" and r.get("ms") else None)
    return data


def _is_vendor(r):
    return r["variant"] not in ("reference", "student")


def fmas_per_output(r):
    """FMAs one output of this row's convolution costs: w * w in 2D, w in 1D (the full mask)."""
    return r["mask"] ** 2 if r["dims"] == 2 else r["mask"]


def fp32_rate(data):
    """FMAs per second measured in the same run (the fp32 block), or None when it was not measured."""
    f = data.get("fp32") or {}
    rate = f.get("fmas_per_s")
    return rate if not f.get("error") and isinstance(rate, (int, float)) and rate > 0 else None


def add_roofline(data):
    """Each row gets the limits of this GPU for the work it does, from rates measured in the same run:
    memory_limit_ms (its bytes at the copy's bandwidth), fp32_limit_ms (its FMAs, fmas_per_output for
    every output of the image, at the FMA kernel's rate), limit_ms (the larger: the binding limit),
    bound ("memory" or "FP32"), and for a timed row of_limit = limit_ms / its time (1: on the roofline)."""
    s = data["sizes"]
    gbps = (data.get("copy") or {}).get("gbps")
    bytes_per_ms = gbps * 1e6 if isinstance(gbps, (int, float)) and gbps > 0 else None
    rate = fp32_rate(data)
    for r in data["rows"]:
        outputs = s["width_1d"] if r["dims"] == 1 else s["width_2d"] * s["height_2d"]
        r["fmas"] = float(outputs * fmas_per_output(r))
        moved = r.get("bytes") or 2.0 * outputs * 4
        memory = moved / bytes_per_ms if bytes_per_ms else None
        fp32 = r["fmas"] / rate * 1e3 if rate else None
        limits = [(x, name) for x, name in ((memory, "memory"), (fp32, "FP32")) if x is not None]
        limit, bound = max(limits) if limits else (None, None)
        timed = r["status"] == "ok" and r.get("ms")
        r.update(memory_limit_ms=memory, fp32_limit_ms=fp32, limit_ms=limit, bound=bound,
                 of_limit=limit / r["ms"] if limit is not None and timed else None)
    return data


SCORE_FULL_WITHIN = 1.2  # full marks within 1.2x of the reference's time


def speed_score(t_reference, t_student):
    """min(1, 1.2 * t_reference / t_student): 1 when the student's time is within 1.2x of the
    reference's, proportional below; None without both times."""
    if not t_reference or not t_student or t_reference <= 0 or t_student <= 0:
        return None
    return min(1.0, SCORE_FULL_WITHIN * t_reference / t_student)


def add_scores(data):
    """Student rows (./workbook bench SECTION) get score against the reference row of the same kernel
    and mask: the curve when both were timed, 0 when the reference was timed and the student's kernel
    was not (wrong, refused, an error), None otherwise (skipped; no reference time). data["scores"]:
    the mean per kernel, over the masks that have a score. Reported, never graded."""
    ref = {(r["section"], r["name"], r["dims"], r["mask"]): r for r in data["rows"]
           if r["variant"] == "reference" and r["status"] == "ok" and r.get("ms")}
    per_kernel = {}
    for r in data["rows"]:
        if r["variant"] != "student":
            continue
        ref_row = ref.get((r["section"], r["name"], r["dims"], r["mask"]))
        if not ref_row or r["status"] == "skipped":
            r["score"] = None
        elif r["status"] == "ok":
            r["score"] = speed_score(ref_row["ms"], r.get("ms"))
        else:
            r["score"] = 0.0
        if r["score"] is not None:
            per_kernel.setdefault((r["section"], r["name"]), []).append(r["score"])
    if any(r["variant"] == "student" for r in data["rows"]):
        data["scores"] = [{"section": sec, "name": name, "masks": len(v), "score": sum(v) / len(v)}
                          for (sec, name), v in per_kernel.items()]
    return data


def derive(data):
    """Everything the tables show that the program does not write: vs the vendors, the roofline, scores."""
    return add_scores(add_roofline(add_vs_vendor(data)))


def _mask_text(r):
    return f"{r['mask']}x{r['mask']}" if r["dims"] == 2 else str(r["mask"])


def _student_mode(data):
    return data.get("mode") == "student" or any(r["variant"] == "student" for r in data["rows"])


def table_rows(data, dims):
    """Rows of the printed and the Markdown table: kernel, section, variant, mask, ms, GB/s, fraction
    of copy, the roofline (memory limit, FP32 limit, of limit), vs cuDNN and vs NPP (2D), score
    (student mode), and the note. The limits are the work's, shown on every row; the rest needs a time."""
    out = []
    for r in data["rows"]:
        if r["dims"] != dims:
            continue
        ok = r["status"] == "ok"
        cells = [r["name"], r["section"], r["variant"], _mask_text(r),
                 _fmt(r.get("ms") if ok else None, ".3f"), _fmt(r.get("gbps") if ok else None, ".0f"),
                 _fmt(r.get("fraction_of_copy") if ok else None, ".2f"),
                 _fmt(r.get("memory_limit_ms"), ".3f"), _fmt(r.get("fp32_limit_ms"), ".3f"),
                 _fmt(r.get("of_limit") if ok else None, ".2f")]
        if dims == 2:
            cells += [_fmt(r.get("vs_cudnn"), ".2f"), _fmt(r.get("vs_npp"), ".2f")]
        if _has_clock(data):
            cells.append(_fmt(r.get("sm_mhz") if ok and r.get("sm_mhz") else None, ".0f"))
        if _student_mode(data):
            cells.append(_fmt(r.get("score"), ".2f") if r["variant"] == "student" else "")
        note = "" if ok else f"{r['status']}: {r.get('note', '')}"
        if ok and _is_vendor(r):
            note = r.get("note", "")
        out.append(cells + [note])
    return out


def _has_clock(data):
    """Whether the run read the SM clock across its timed calls (results files before it did not)."""
    return any(r.get("sm_mhz") for r in data["rows"]) or bool(data["copy"].get("sm_mhz"))


def _clock_text(part):
    return f", SMs at {part['sm_mhz']:.0f} MHz" if part.get("sm_mhz") else ""


def _headers(dims, student=False, clock=False):
    h = ["kernel", "section", "variant", "mask", "time (ms)", "GB/s", "of copy", "memory limit (ms)",
         "FP32 limit (ms)", "of limit"]
    return (h + (["vs cuDNN", "vs NPP"] if dims == 2 else []) + (["SM clock (MHz)"] if clock else [])
            + (["score"] if student else []) + ["note"])


def _sizes(data):
    s = data["sizes"]
    w1 = s["width_1d"]
    w1_text = f"2^{w1.bit_length() - 1}" if w1 & (w1 - 1) == 0 else str(w1)
    return w1_text, f"{s['width_2d']} x {s['height_2d']}"


def _fp32_text(data):
    f = data.get("fp32") or {}
    if fp32_rate(data) is None:
        return "not measured" + (f" ({f['error']})" if f.get("error") else "")
    return f"{f['tflops']:.1f} TFLOP/s"


def score_lines(data):
    """The mean score per kernel, in words (student mode)."""
    if not data.get("scores"):
        return []
    lines = []
    for k in data["scores"]:
        lines.append(f"{k['section']} {k['name']}: score {k['score']:.2f} (mean over {k['masks']} mask"
                     f"{'s' if k['masks'] != 1 else ''}; 1 = within {SCORE_FULL_WITHIN}x of the reference's time)")
    return lines


def text_table(data):
    """The table printed last: plain columns."""
    w1, w2 = _sizes(data)
    lines = []
    for dims, title in ((1, f"1D, {w1} floats"), (2, f"2D, {w2} floats")):
        rows = table_rows(data, dims)
        if not rows:
            continue
        head = _headers(dims, _student_mode(data), _has_clock(data))
        widths = [max(len(head[i]), *(len(r[i]) for r in rows)) for i in range(len(head) - 1)]
        lines.append(title)
        lines.append("  ".join(h.ljust(w) for h, w in zip(head, widths)) + "  " + head[-1])
        for r in rows:
            lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)) + ("  " + r[-1] if r[-1] else ""))
        lines.append("")
    if data.get("scores"):
        lines += ["speed scores (reported, not graded):"] + ["  " + line for line in score_lines(data)] + [""]
    c = data["copy"]
    lines.append(f"FP32 FMA throughput: {_fp32_text(data)}{_clock_text(data.get('fp32') or {})}")
    lines.append(f"copy (device to device, same bytes): {c['ms']:.3f} ms, {c['gbps']:.0f} GB/s{_clock_text(c)}")
    return "\n".join(lines)


def _vendor_text(facts, name, key):
    text = facts.get(f"{key}_source", "not measured")
    if facts.get(f"{key}_version"):
        text += f", version {facts[key + '_version']}"
    return f"{name}: {text}"


def _protocol_text(p):
    flush = f"a {p['l2_flush_bytes'] / 2**20:.0f} MiB buffer written"
    if not p.get("inputs"):  # a results file from before the protocol checked outputs after timing
        return (f"Each time is the median of {p['runs']} runs after {p['warmup']} warm-up runs, timed with CUDA "
                f"events, with the L2 flushed before every run ({flush}). Every kernel was validated first (output "
                "poisoned, a sample of outputs compared with a double-precision CPU reference); one that fails is "
                "reported, not timed.")
    persisting = (" and its persisting lines reset" if p.get("l2_persisting_reset", True) else "")
    return (f"Each time is the median of {p['runs']} runs after {p['warmup']} warm-up runs, each run timed on its own "
            "(one pair of CUDA events per call). Before every run the input is written afresh from the run's number "
            "(no run sees another's input, so a kernel cannot return a result it computed before), then the L2 is "
            f"flushed ({flush}){persisting}. Every kernel is checked twice against a double-precision CPU reference "
            "(a sample of outputs, the output poisoned first): on a validation run before timing, and after the "
            "timed runs on the output of the last one, for that run's input. A kernel wrong before timing is "
            "reported, not timed; one wrong after the timed runs is *refused*: its row has no time.")


def markdown(data, json_name="gpu-bench.json"):
    """The Markdown page of docs/results/, generated from the JSON (never typed by hand)."""
    d, p, c = data["device"], data["protocol"], data["copy"]
    w1, w2 = _sizes(data)
    facts = data.get("facts", {})
    student = _student_mode(data)
    f = data.get("fp32") or {}
    title = "GPU benchmarks" + (f": your kernels beside the reference" if student else "")
    if fp32_rate(data) is not None:
        fp32 = (f"FP32 **{f['tflops']:.1f} TFLOP/s** (2 FLOPs per FMA: {f['fmas'] / 1e9:.1f} billion FMAs of "
                f"independent `fmaf` chains in {f['ms']:.3f} ms, {f.get('what', '').replace('fmaf chains: ', '')}"
                f"{_clock_text(f)})")
    else:
        fp32 = f"FP32 {_fp32_text(data)}"
    out = [f"<!-- Generated by tools/halo/bench/bench_gpu.py from {json_name} (./workbook bench); do not edit. -->",
           f"# {title}: {d['name']}", "",
           f"Measured by `./workbook bench` on {data['date']}: {d['name']} (compute capability "
           f"{d['compute_capability']}, {d['sm_count']} SMs, {d['l2_bytes'] / 2**20:.0f} MiB L2), NVIDIA driver "
           f"{data.get('driver_version') or 'unknown'} (CUDA driver API {_cuda_version(d['driver_api_version'])}), "
           f"CUDA runtime {_cuda_version(d['runtime_version'])}, {data.get('nvcc', 'nvcc')}; "
           f"{_vendor_text(facts, 'cuDNN', 'cudnn')}; {_vendor_text(facts, 'NPP', 'npp')}. "
           f"Seed {data['seed']} (`HALO_SEED={data['seed']}` replays the inputs). Measured in this run: memory "
           f"**{c['gbps']:.0f} GB/s** (a device-to-device `cudaMemcpyAsync`, {c['ms']:.3f} ms for "
           f"{c['bytes'] / 2**20:.0f} MiB moved{_clock_text(c)}) and {fp32}.", "",
           _protocol_text(p), "",
           "GB/s counts one read of the input and one write of the output; *of copy* divides it by the copy's "
           "bandwidth. The roofline of this GPU, from the two rates above: *memory limit* is the time to move the "
           "entry's bytes at the copy's bandwidth, *FP32 limit* the time for its FMAs at the measured FMA rate, "
           "counting w x w FMAs per output in 2D (w in 1D) for every output of the image (the full mask, as for "
           "an interior pixel; the edges do fewer); *of limit* is the larger of the two, the binding limit, "
           "divided by the measured time (1: on the roofline). *vs cuDNN* and *vs NPP* are the vendor's time "
           "divided by the kernel's (above 1: faster than the vendor). NPP (`nppiFilter_32f_C1R_Ctx`) computes the "
           "flipped convolution and does no border handling: it is given the mask rotated by 180 degrees and a "
           "zero-padded copy of the input (R pixels of 0 around it, the run's input written into its interior), "
           "so it computes the chapter's convolution, and it is checked like every entry, except where its row's "
           "note says that NPP's own border handling leaves some edge outputs unchecked.", ""]
    if _has_clock(data):
        out += ["*SM clock* is the clock the SMs ran at across each timed call (cycles over nanoseconds between "
                "two small kernels enqueued just outside the call's events, median over the SMs), median over the "
                "timed runs. The FP32 limit holds at the FMA kernel's clock; a kernel that streams memory while it "
                "issues FMAs on full-mantissa data draws more power, and where the board reaches its power limit "
                "its SMs run slower: its *of limit* then includes that loss.", ""]
    if student:
        out += [f"*score* (reported, not graded): min(1, {SCORE_FULL_WITHIN} x the reference's time / your time) "
                f"for the same kernel and mask: full marks within {SCORE_FULL_WITHIN}x of the reference's time, "
                "proportional below; 0 for a kernel with no time (wrong or refused). No course-file setting grades "
                "it.", ""]
        if data.get("scores"):
            out += ["- " + line for line in score_lines(data)] + [""]
    for dims, title in ((1, f"## 1D, {w1} floats"), (2, f"## 2D, {w2} floats")):
        rows = table_rows(data, dims)
        if not rows:
            continue
        head = _headers(dims, student, _has_clock(data))
        out += [title, "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        out += ["| " + " | ".join(cell.replace("|", "\\|") for cell in r) + " |" for r in rows]
        out.append("")
    if data.get("torch_copy"):
        tc = data["torch_copy"]
        out += [f"The PyTorch rows ran in their own process, timed by its own loop (not the protocol above); their "
                f"*of copy* uses that process's copy of the same bytes: {tc['gbps']:.0f} GB/s.", ""]
    return "\n".join(out).rstrip() + "\n"


def _cuda_version(v):
    return f"{v // 1000}.{v % 1000 // 10}" if isinstance(v, int) and v > 0 else "unknown"


def merge_torch(data, torch_result):
    """Adds the PyTorch vendor rows (and that process's copy) to the program's results."""
    data["rows"] = [r for r in data["rows"]] + [dict({"min_ms": None, "max_ms": None, "ms": None, "gbps": None,
                                                      "fraction_of_copy": None, "max_rel_error": None}, **r)
                                               for r in torch_result["rows"]]
    data["torch_copy"] = torch_result["copy"]
    data.setdefault("facts", {})["cudnn_source"] = (f"through PyTorch {torch_result.get('torch', '')} "
                                                    "torch.nn.functional.conv2d (no cudnn.h here)")
    data["facts"]["cudnn_version"] = str(torch_result.get("cudnn_version", ""))
    return data


# ---------------------------------------------------------------- the command

def _nvcc_release(nvcc):
    try:
        out = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return "nvcc"
    m = re.search(r"release ([\d.]+)", out)
    return f"nvcc {m.group(1)}" if m else "nvcc"


def _run_streamed(cmd, env, log_lines):
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
    for line in p.stdout:
        print(line, end="", flush=True)
        log_lines.append(line.rstrip("\n"))
    return p.wait()


def validate_args(args):
    """Problems with the arguments of a GPU run, as messages (empty: fine)."""
    problems = []
    if args.runs < 1:
        problems.append("--runs must be at least 1")
    if args.warmup < 0:
        problems.append("--warmup cannot be negative")
    if args.exercises and not args.sections:
        problems.append("--exercises needs a SECTION: ./workbook bench 7.6 --exercises DIR")
    if args.from_json and (args.sections or args.build_only):
        problems.append("--from-json only turns a results JSON into Markdown: it takes no SECTION or --build-only")
    return problems


def output_stem(sections):
    return "gpu-bench" + ("-student-" + "-".join(sections) if sections else "")


def run(root, chapter, args):
    problems = validate_args(args)
    if problems:
        for p in problems:
            print(f"halo: {p}", file=sys.stderr)
        return 2
    root = Path(root)
    out_dir = Path(args.output_dir) if args.output_dir else root / "build" / "bench"
    if args.from_json:
        src = Path(args.from_json)
        data = derive(json.loads(src.read_text()))
        md = out_dir / (src.stem + ".md") if args.output_dir else src.with_suffix(".md")
        md.parent.mkdir(parents=True, exist_ok=True)
        md.write_text(markdown(data, src.name))
        print(f"wrote {md}")
        return 0
    try:
        plan = plan_units(root, chapter, args.sections, args.exercises)
    except BenchError as e:
        print(f"halo: {e}", file=sys.stderr)
        return 2
    if not args.build_only and not has_cuda_device():
        print(f"{NO_DEVICE} (no NVIDIA device on this machine); `./workbook bench --build-only` still compiles "
              f"the benchmark. Exit status {SKIP}: skipped.")
        return SKIP
    build_dir = Path(args.build_dir) if args.build_dir else root / "build" / "bench-gpu"
    log_lines = []

    def log(msg):
        print(msg, flush=True)
        log_lines.append(msg)

    try:
        nvcc = find_nvcc()
        has_2d_units = any(_unit_dims(root, f) == 2 for f, _, _ in plan)
        cudnn = find_cudnn(nvcc) if has_2d_units else None
        npp = find_npp(nvcc) if has_2d_units else None
        log("cuDNN: " + (f"{cudnn[0]}/cudnn.h and {cudnn[1]}/{cudnn[2]} (found through {cudnn[3]})" if cudnn
                         else "no cudnn.h found (CUDNN_ROOT, the CUDA toolkit, /usr, a Python's nvidia-cudnn wheel): "
                              "the 2D baseline will come from PyTorch if it is installed"))
        if has_2d_units:
            log("NPP: " + (f"{npp[0]}/nppi_filtering_functions.h and {', '.join(npp[2])} in {npp[1]} "
                           f"(found through {npp[3]})" if npp else NPP_MISSING))
        binary = build(root, chapter, build_dir, plan, cudnn, log, npp)
    except BenchError as e:
        print(f"halo: {e}", file=sys.stderr)
        return 2
    log(f"built {binary}")
    if args.build_only:
        return 0

    out_dir.mkdir(parents=True, exist_ok=True)
    stem = output_stem(args.sections)
    build_dir.mkdir(parents=True, exist_ok=True)
    raw = build_dir / (stem + "-raw.json")
    if raw.exists():
        raw.unlink()
    env = dict(os.environ)
    for found in (npp, cudnn):
        if found:
            env["LD_LIBRARY_PATH"] = found[1] + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    cmd = [str(binary), "--json", str(raw), "--runs", str(args.runs), "--warmup", str(args.warmup),
           "--mode", "student" if args.sections else "reference"]
    log("$ " + " ".join(cmd))
    rc = _run_streamed(cmd, env, log_lines)
    if rc == SKIP:
        return SKIP
    if not raw.exists():
        log(f"halo: the benchmark program exited {rc} without writing its results")
        (out_dir / (stem + ".log")).write_text("\n".join(log_lines) + "\n")
        return rc or 2
    data = json.loads(raw.read_text())
    data["driver_version"] = _smi_query("driver_version")
    data["nvcc"] = _nvcc_release(nvcc)
    data["command"] = "./workbook bench " + " ".join(args.sections)
    data["sections_benched"] = sorted({f for f, _, _ in plan})

    has_2d = any(r["dims"] == 2 for r in data["rows"])
    if has_2d and not npp:
        data.setdefault("facts", {})["npp_source"] = "not measured (" + NPP_MISSING + ")"
    if has_2d and not cudnn:
        py = torch_python()
        if not py:
            log("cuDNN: not measured (no cudnn.h, and no Python here imports torch)")
            data.setdefault("facts", {})["cudnn_source"] = "not measured (no cudnn.h, no PyTorch)"
        else:
            tjson = build_dir / (stem + "-torch.json")
            tcmd = [py, str(root / BENCH_DIR / "torch_conv2d.py"), "--json", str(tjson),
                    "--width", str(data["sizes"]["width_2d"]), "--height", str(data["sizes"]["height_2d"]),
                    "--masks", ",".join(str(m) for m in data["sizes"]["masks"]), "--runs", str(args.runs),
                    "--warmup", str(args.warmup), "--seed", str(data["seed"])]
            log("cuDNN through PyTorch: $ " + " ".join(tcmd))
            trc = _run_streamed(tcmd, env, log_lines)
            if trc == 0 and tjson.exists():
                merge_torch(data, json.loads(tjson.read_text()))
            else:
                log(f"cuDNN through PyTorch failed (exit {trc}): the 2D table has no vendor rows")
    derive(data)
    json_path, md_path = out_dir / (stem + ".json"), out_dir / (stem + ".md")
    json_path.write_text(json.dumps(data, indent=1) + "\n")
    md_path.write_text(markdown(data, json_path.name))
    table = text_table(data)
    log("")
    log(table)
    log(f"\nwrote {json_path}, {md_path} and {out_dir / (stem + '.log')}")
    (out_dir / (stem + ".log")).write_text("\n".join(log_lines) + "\n")
    return rc


def _unit_dims(root, folder):
    """1 or 2: what a unit benchmarks, read from its Entry (e.dims = 2)."""
    text = (Path(root) / BENCH_DIR / "kernels" / f"{folder}.cu").read_text()
    return 2 if re.search(r"e\.dims\s*=\s*2", text) else 1
