"""Runs one kernel of kernels.py under Numba's CUDA simulator and prints one JSON object: the
launch times, and whether the output matches a double-precision reference. Run by
tools/halo/bench/bench_cpu.py with the Python of the virtual environment that has Numba:

    NUMBA_ENABLE_CUDASIM=1 python run_sim.py --kernel tiled --width 4096 --runs 3
"""
import argparse
import json
import os
import platform
import statistics
import sys
import time

os.environ.setdefault("NUMBA_ENABLE_CUDASIM", "1")  # before numba is imported

import numpy as np  # noqa: E402
import numba  # noqa: E402
from numba import cuda  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernels  # noqa: E402

REL_TOLERANCE = 1e-5  # as grader/testing/compare.hpp: error relative to the sum of |terms|


def inputs(width, mask_width, seed):
    """Non-zero multiples of 1/8 in [-4, 4] for N and of 1/4 in [-2, 2] for M, as the grader's
    inputs: products and short sums of them are exact in float."""
    rng = np.random.default_rng(seed)

    def values(count, steps, scale):
        v = rng.integers(1, steps + 1, size=count) * rng.choice([-1, 1], size=count)
        return (v / scale).astype(np.float32)

    return values(width, 32, 8.0), values(mask_width, 8, 4.0)


def reference(N, M):
    """P[i] = sum_j N[i - n + j] * M[j] in double precision, ghost cells 0; and per output the
    sum of the magnitudes of its terms."""
    n = len(M) // 2
    pad = np.zeros(len(N) + 2 * n)
    pad[n:n + len(N)] = N
    value = np.correlate(pad, M.astype(np.float64), mode="valid")
    magnitude = np.correlate(np.abs(pad), np.abs(M.astype(np.float64)), mode="valid")
    return value, magnitude


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--kernel", choices=["basic", "tiled"], required=True)
    p.add_argument("--width", type=int, required=True)
    p.add_argument("--mask", type=int, default=5)
    p.add_argument("--block", type=int, default=256)
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--tile-size", type=int, default=256)
    p.add_argument("--max-mask-width", type=int, default=16)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args(argv)
    if not cuda.is_available() or os.environ.get("NUMBA_ENABLE_CUDASIM") != "1":
        print(json.dumps({"error": "Numba's CUDA simulator is not active (NUMBA_ENABLE_CUDASIM=1)"}))
        return 2

    N, M = inputs(a.width, a.mask, a.seed)
    blocks = (a.width + a.block - 1) // a.block
    d_N = cuda.to_device(N)
    if a.kernel == "basic":
        kernel = kernels.make_basic_kernel()
        d_M = cuda.to_device(M)
        args = lambda d_P: (d_N, d_M, d_P, a.mask, a.width)  # noqa: E731
    else:
        kernel = kernels.make_tiled_kernel(M, a.tile_size, a.max_mask_width)
        args = lambda d_P: (d_N, d_P, a.mask, a.width)  # noqa: E731

    seconds, P = [], None
    for _ in range(a.runs):
        d_P = cuda.to_device(np.full(a.width, np.nan, dtype=np.float32))  # poisoned before each launch
        start = time.perf_counter()
        kernel[blocks, a.block](*args(d_P))
        cuda.synchronize()
        seconds.append(time.perf_counter() - start)
        P = d_P.copy_to_host()

    value, magnitude = reference(N, M)
    err = np.abs(P.astype(np.float64) - value) / np.where(magnitude > 0, magnitude, 1.0)
    err = np.where(np.isfinite(err), err, np.inf)
    wrong = int(np.count_nonzero(~(err <= REL_TOLERANCE)))
    print(json.dumps({
        "backend": "numba-cudasim", "kernel": a.kernel, "width": a.width, "mask": a.mask, "block": a.block,
        "threads": blocks * a.block, "seconds": seconds, "median_seconds": statistics.median(seconds),
        "correct": wrong == 0, "wrong_outputs": wrong, "max_rel_error": float(err.max()) if len(err) else 0.0,
        "python": platform.python_version(), "numba": numba.__version__, "numpy": np.__version__,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
