"""`./workbook bench --cpu`: Halo's CPU backend beside Numba's CUDA simulator, in one run.

The same two kernels, the reference 7.2 basic and 7.4 tiled (2^16 and 2^20 elements, mask 5,
256 threads per block), run on Halo's CPU backend with its full instrumentation
(grader/bench/cpu_vs_sim.cpp, HALO_DIAGNOSTICS unset) and under Numba's CUDA simulator
(tools/halo/dev/numba_sim/, NUMBA_ENABLE_CUDASIM=1, in a virtual environment this command makes in
build/.venv-numba). Each side checks its output against a double-precision reference. Where the
simulator would take longer than SIM_BUDGET_S at a size, it runs a smaller one, chosen from a
calibration run, and the comparison is per simulated thread. Halo runs twice: on every core
(as the grader does) and on one (HALO_THREADS=1), since the simulator runs on one. Timings
inform; they never decide a test.
"""
import datetime
import json
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

WIDTHS = (1 << 16, 1 << 20)
MASK = 5
BLOCK = 256
KERNELS = ("basic", "tiled")
SECTION = {"basic": "7.2", "tiled": "7.4"}
SIM_RUNS = 3             # timed simulator launches per size (median)
SIM_BUDGET_S = 60.0      # a simulator measurement (all its runs) longer than this runs a smaller size
CALIBRATION_BLOCKS = 8   # the calibration launch: 8 blocks of BLOCK threads
MIN_SIM_BLOCKS = 4
TARGET_RATIO = 1000.0    # the issue's acceptance: Halo >= 1000x faster per simulated thread on 7.4
NUMBA_REQUIREMENT = "numba>=0.59"
SIM_SCRIPT = Path("tools") / "halo" / "numba_sim" / "run_sim.py"
BENCH_TARGET = "bench_cpu_vs_sim"


class BenchError(Exception):
    pass


# ---------------------------------------------------------------- pure arithmetic (unit-tested)

def plan_sim_width(target, calib_threads, calib_seconds, budget_s=SIM_BUDGET_S, runs=SIM_RUNS, block=BLOCK,
                   min_blocks=MIN_SIM_BLOCKS):
    """The width the simulator runs for a `target` width: `target` itself when `runs` launches of
    it are estimated (at the calibration's threads per second) to fit in `budget_s`; otherwise
    the largest power-of-two number of blocks whose `runs` launches fit, never fewer than
    `min_blocks` blocks nor more than `target`."""
    if calib_threads <= 0 or calib_seconds <= 0:
        raise ValueError("the calibration run must have threads and a positive time")
    rate = calib_threads / calib_seconds
    if estimate_seconds(target, rate, runs) <= budget_s:
        return target
    fits = int(rate * budget_s / runs) // block  # whole blocks that fit
    blocks = 1
    while blocks * 2 <= fits:
        blocks *= 2
    blocks = max(blocks, min_blocks)
    return min(blocks * block, target)


def estimate_seconds(width, threads_per_s, runs=SIM_RUNS):
    return width / threads_per_s * runs


def threads_per_s(threads, seconds):
    return threads / seconds if seconds > 0 else None


def compare(halo_rows, sim_rows, halo_one_core_rows=None):
    """One row per (kernel, width): Halo's threads/s (every core, and one core when given), the
    simulator's (at the width it ran), and the ratios per simulated thread."""
    one = {(r["kernel"], r["width"]): r for r in (halo_one_core_rows or [])}
    sims = {(r["kernel"], r["target_width"]): r for r in sim_rows}
    out = []
    for h in halo_rows:
        key = (h["kernel"], h["width"])
        s = sims.get(key)
        h_tps = threads_per_s(h["threads"], h["median_seconds"])
        s_tps = threads_per_s(s["threads"], s["median_seconds"]) if s else None
        o = one.get(key)
        o_tps = threads_per_s(o["threads"], o["median_seconds"]) if o else None
        out.append({
            "kernel": h["kernel"], "section": SECTION.get(h["kernel"], ""), "width": h["width"],
            "halo_threads_per_s": h_tps, "halo_correct": bool(h["correct"]),
            "halo_one_core_threads_per_s": o_tps, "halo_one_core_correct": bool(o["correct"]) if o else None,
            "sim_width": s["width"] if s else None, "sim_threads_per_s": s_tps,
            "sim_correct": bool(s["correct"]) if s else None,
            "ratio": h_tps / s_tps if h_tps and s_tps else None,
            "ratio_one_core": o_tps / s_tps if o_tps and s_tps else None,
        })
    return out


def verdict(data, target=TARGET_RATIO):
    """The issue's acceptance, as a sentence: the 7.4 tiled rows' ratio against `target`."""
    tiled = [r for r in data["comparison"] if r["kernel"] == "tiled" and r["ratio"]]
    if not tiled:
        return "7.4 tiled: no ratio was measured."
    worst = min(r["ratio"] for r in tiled)
    ok = all(r["halo_correct"] and r["sim_correct"] for r in tiled)
    met = worst >= target and ok
    return (f"7.4 tiled: Halo is at least {worst:,.0f}x faster per simulated thread than Numba's CUDA simulator "
            f"(target {target:,.0f}x): {'met' if met else 'NOT met'}"
            + ("" if ok else " (an output was wrong)") + ".")


def core_notes(comparison):
    """Sentences for the rows where Halo on one core beat Halo on every core."""
    slower = [f"{r['section']} {r['kernel']} at {_pow2(r['width'])}" for r in comparison
              if r["halo_one_core_threads_per_s"] and r["halo_threads_per_s"]
              and r["halo_one_core_threads_per_s"] > r["halo_threads_per_s"]]
    if not slower:
        return []
    return [f"Halo on one core was faster than on every core for {', '.join(slower)}: the cores were shared with "
            "other work during the run, and blocks spread over cores also share the per-array counters, so take "
            "the every-core figures as noisy; the one-core ratio is the like-for-like one."]


def _pow2(w):
    return f"2^{w.bit_length() - 1}" if w > 0 and w & (w - 1) == 0 else f"{w:,}"


def _num(x, spec=",.0f"):
    return "-" if x is None else format(x, spec)


def _ok(flag):
    return "-" if flag is None else ("yes" if flag else "NO")


def markdown(data, json_name="cpu-vs-numba-sim.json"):
    """The Markdown page, generated from the JSON (never typed by hand)."""
    m = data["machine"]
    p = data["protocol"]
    lines = [
        f"<!-- Generated by tools/halo/bench/bench_cpu.py from {json_name} (./workbook bench --cpu); do not edit. -->",
        "# Halo's CPU backend beside Numba's CUDA simulator", "",
        f"Measured by `./workbook bench --cpu` on {data['date']}, both sides in one run, on {m['cpu']} "
        f"({m['cores']} cores), {m['os']}; Halo built by {m.get('compiler', 'clang')}; the simulator on "
        f"Python {m['python']}, Numba {m['numba']}, NumPy {m['numpy']}.", "",
        f"The kernels are the reference 7.2 basic and 7.4 tiled kernels (mask {p['mask']}, {p['block']} threads "
        "per block): Halo runs `solutions/*.cu`; the simulator runs the same algorithms written for "
        "`numba.cuda.jit` (`tools/halo/dev/numba_sim/kernels.py`). Halo runs with every diagnostic on "
        f"(checks: {'on' if data['halo']['checks'] else 'OFF'}): every global and shared access counted "
        f"and checked. Times are medians of {p['halo_runs']} launches for Halo and {p['sim_runs']} for the "
        "simulator, wall clock around the launch; every output was compared with a double-precision "
        "reference. *threads/s* counts the CUDA threads of the grid. Where "
        f"{p['sim_runs']} simulator launches at a width were estimated (from the faster of two "
        f"{p['calibration_blocks']}-block calibration launches) to take more than {p['sim_budget_s']:.0f} s, "
        "the simulator ran a smaller width, shown in its column; the ratio is per thread. "
        "Halo spreads blocks over every core; the simulator runs on one (Python threads under the GIL), "
        "so the one-core column (HALO_THREADS=1) is the like-for-like one.", "",
        "| kernel | width | Halo threads/s | Halo, 1 core | simulator width | simulator threads/s "
        "| ratio | ratio, 1 core | outputs right (Halo / 1 core / sim) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in data["comparison"]:
        lines.append(
            f"| {r['section']} {r['kernel']} | {_pow2(r['width'])} | {_num(r['halo_threads_per_s'])} "
            f"| {_num(r['halo_one_core_threads_per_s'])} | {_pow2(r['sim_width']) if r['sim_width'] else '-'} "
            f"| {_num(r['sim_threads_per_s'])} | {_num(r['ratio'], ',.0f')}x | {_num(r['ratio_one_core'], ',.0f')}x "
            f"| {_ok(r['halo_correct'])} / {_ok(r['halo_one_core_correct'])} / {_ok(r['sim_correct'])} |")
    lines += ["", verdict(data)]
    if data.get("notes"):
        lines += [""] + [f"- {n}" for n in data["notes"]]
    return "\n".join(lines) + "\n"


def text_table(data):
    head = ["kernel", "width", "Halo thr/s", "Halo 1-core", "sim width", "sim thr/s", "ratio", "ratio 1-core"]
    rows = [[f"{r['section']} {r['kernel']}", _pow2(r["width"]), _num(r["halo_threads_per_s"]),
             _num(r["halo_one_core_threads_per_s"]), _pow2(r["sim_width"]) if r["sim_width"] else "-",
             _num(r["sim_threads_per_s"]), _num(r["ratio"]) + "x", _num(r["ratio_one_core"]) + "x"]
            for r in data["comparison"]]
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(head)]
    out = ["  ".join(h.ljust(w) for h, w in zip(head, widths))]
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows]
    return "\n".join(out) + "\n\n" + verdict(data)


# ---------------------------------------------------------------- the machine and the two sides

def machine():
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    os_name = platform.platform()
    try:
        m = re.search(r'^PRETTY_NAME="?([^"\n]*)"?', Path("/etc/os-release").read_text(), re.MULTILINE)
        if m:
            os_name = f"{m.group(1)} (Linux {platform.release()})"
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "os": os_name}


def numba_python(root, log=print):
    """The Python of build/.venv-numba, made and filled with Numba (pip) when missing. Returns
    (python, extra environment)."""
    venv = Path(root) / "build" / ".venv-numba"
    py = venv / "bin" / "python"
    probe = ["-c", "import os; os.environ['NUMBA_ENABLE_CUDASIM']='1'; from numba import cuda; import numba; "
                   "print(numba.__version__)"]
    if py.exists() and subprocess.run([str(py)] + probe, capture_output=True).returncode == 0:
        return str(py), {}
    log(f"halo: making {os.path.relpath(venv)} and installing {NUMBA_REQUIREMENT} (pip) for the simulator ...")
    p = subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True, text=True)
    if p.returncode == 0:
        p = subprocess.run([str(py), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                            NUMBA_REQUIREMENT], capture_output=True, text=True)
        if p.returncode == 0 and subprocess.run([str(py)] + probe, capture_output=True).returncode == 0:
            return str(py), {}
        raise BenchError("pip could not install Numba into " + str(venv) + ":\n" + (p.stdout + p.stderr)[-2000:])
    # No venv module (Debian's python3-venv missing): a project-local package folder instead.
    target = Path(root) / "build" / ".deps" / "numba-sim"
    log(f"halo: python3 -m venv failed ({(p.stderr.strip().splitlines() or ['?'])[-1]}); "
        f"installing Numba into {os.path.relpath(target)} instead")
    p = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        "--target", str(target), NUMBA_REQUIREMENT], capture_output=True, text=True)
    env = {"PYTHONPATH": str(target)}
    if p.returncode != 0 or subprocess.run([sys.executable] + probe, env=dict(os.environ, **env),
                                           capture_output=True).returncode != 0:
        raise BenchError("could not install Numba for the simulator:\n" + (p.stdout + p.stderr)[-2000:])
    return sys.executable, env


def build_halo(root, build_dir, log=print):
    from ..core import build, toolchain
    tc = toolchain.ensure()
    if not build.configure(root, build_dir, tc, "check"):
        raise BenchError("CMake could not configure " + str(build_dir))
    log(f"halo: building {BENCH_TARGET} in {os.path.relpath(build_dir)} ...")
    failed = build.build_targets(tc, build_dir, [BENCH_TARGET])
    if failed:
        raise BenchError("the build failed:\n" + failed[BENCH_TARGET][-4000:])
    try:
        compiler = subprocess.run([tc.cxx, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        compiler = tc.cxx
    return Path(build_dir) / "grader" / "bench" / BENCH_TARGET, compiler


def _json_out(cmd, env, what):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    try:
        data = json.loads(p.stdout)
    except json.JSONDecodeError:
        raise BenchError(f"{what} printed no JSON (exit {p.returncode}):\n{(p.stdout + p.stderr)[-3000:]}") from None
    if "error" in data:
        raise BenchError(f"{what}: {data['error']}")
    return data


def run_halo(binary, runs, threads=None):
    env = {k: v for k, v in os.environ.items() if k not in ("HALO_DIAGNOSTICS", "HALO_REPORT_DIR", "HALO_THREADS")}
    env.setdefault("HALO_SEED", "1")
    if threads:
        env["HALO_THREADS"] = str(threads)
    return _json_out([str(binary), "--runs", str(runs), "--mask", str(MASK), "--block", str(BLOCK)]
                     + [str(w) for w in WIDTHS], env, "the Halo benchmark")


def run_sim(root, py, env, kernel, width, runs, defines):
    cmd = [py, str(Path(root) / SIM_SCRIPT), "--kernel", kernel, "--width", str(width), "--mask", str(MASK),
           "--block", str(BLOCK), "--runs", str(runs), "--tile-size", str(defines["TILE_SIZE"]),
           "--max-mask-width", str(defines["MAX_MASK_WIDTH"])]
    return _json_out(cmd, dict(os.environ, NUMBA_ENABLE_CUDASIM="1", **env), f"the simulator ({kernel}, {width})")


def _defines_from_toml(root):
    from ..core.tomlcompat import load_toml
    out = {"TILE_SIZE": 256, "MAX_MASK_WIDTH": 16}
    for q in sorted((Path(root) / "chapters").glob("*/questions.toml")):
        for k, v in load_toml(q).get("defines", {}).items():
            if k in out:
                out[k] = int(v)
    return out


def run(root, chapter, build_dir=None, output_dir=None, runs=30, from_json=None):
    root = Path(root)
    out_dir = Path(output_dir) if output_dir else root / "build" / "bench"
    if from_json:
        data = json.loads(Path(from_json).read_text())
        md = Path(from_json).with_suffix(".md")
        md.write_text(markdown(data, Path(from_json).name))
        print(f"wrote {md}")
        return 0
    try:
        py, env = numba_python(root)
        binary, compiler = build_halo(root, Path(build_dir) if build_dir else root / "build" / "check")
        defines = _defines_from_toml(root)

        print(f"halo: Halo's CPU backend, every core, {runs} launches per size ...", flush=True)
        halo = run_halo(binary, runs)
        if not halo["checks"]:
            raise BenchError("the Halo benchmark ran with its checks off")
        print("halo: Halo's CPU backend, one core (HALO_THREADS=1) ...", flush=True)
        halo1 = run_halo(binary, runs, threads=1)

        sim_rows, notes, done = [], [], {}
        for kernel in KERNELS:
            calib_width = CALIBRATION_BLOCKS * BLOCK
            cal = run_sim(root, py, env, kernel, calib_width, 2, defines)
            cal["median_seconds"] = min(cal["seconds"])  # the first launch also pays the simulator's start-up
            print(f"halo: simulator calibration, {kernel}: {cal['threads']} threads in {cal['median_seconds']:.2f} s",
                  flush=True)
            for width in WIDTHS:
                sim_width = plan_sim_width(width, cal["threads"], cal["median_seconds"])
                est = estimate_seconds(width, cal["threads"] / cal["median_seconds"])
                if sim_width != width:
                    notes.append(f"{SECTION[kernel]} {kernel} at {_pow2(width)}: {SIM_RUNS} simulator launches were "
                                 f"estimated at {est:,.0f} s, so the simulator ran {_pow2(sim_width)} elements.")
                if (kernel, sim_width) not in done:
                    print(f"halo: simulator, {kernel}, {sim_width} elements, {SIM_RUNS} launches "
                          f"(about {estimate_seconds(sim_width, cal['threads'] / cal['median_seconds']):.0f} s) ...",
                          flush=True)
                    done[(kernel, sim_width)] = run_sim(root, py, env, kernel, sim_width, SIM_RUNS, defines)
                else:
                    notes.append(f"{SECTION[kernel]} {kernel} at {_pow2(width)}: the simulator measurement at "
                                 f"{_pow2(sim_width)} is shared with the smaller width.")
                sim_rows.append(dict(done[(kernel, sim_width)], target_width=width,
                                     calibration={"threads": cal["threads"], "seconds": cal["median_seconds"]}))
    except BenchError as e:
        print(f"halo: {e}", file=sys.stderr)
        return 2

    first = sim_rows[0]
    data = {
        "date": datetime.date.today().isoformat(),
        "machine": dict(machine(), python=first["python"], numba=first["numba"], numpy=first["numpy"],
                        compiler=compiler),
        "protocol": {"widths": list(WIDTHS), "mask": MASK, "block": BLOCK, "halo_runs": runs, "sim_runs": SIM_RUNS,
                     "sim_budget_s": SIM_BUDGET_S, "calibration_blocks": CALIBRATION_BLOCKS,
                     "target_ratio": TARGET_RATIO},
        "halo": halo, "halo_one_core": halo1, "sim": sim_rows,
        "comparison": compare(halo["rows"], sim_rows, halo1["rows"]),
        "notes": notes + core_notes(compare(halo["rows"], sim_rows, halo1["rows"])) + [f"Load average at the end of the run: {', '.join(f'{x:.2f}' for x in os.getloadavg())} "
                          f"(other work on this {os.cpu_count()}-core machine is noise in these times)."],
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "cpu-vs-numba-sim.json").write_text(json.dumps(data, indent=2) + "\n")
    (out_dir / "cpu-vs-numba-sim.md").write_text(markdown(data))
    print()
    print(text_table(data))
    print(f"\nwrote {out_dir / 'cpu-vs-numba-sim.json'} and .md")
    right = all(r["halo_correct"] and r["sim_correct"] for r in data["comparison"])
    return 0 if right else 3
