"""The vendor baseline through PyTorch, for machines whose cuDNN has no headers (a pip wheel of
torch brings the libraries only). Times torch.nn.functional.conv2d (cuDNN underneath, with
torch.backends.cudnn.benchmark choosing the algorithm and TF32 off, so it computes in FP32 like
the kernels) with the benchmark program's protocol: CUDA events, warm-up, median of many runs,
L2 flushed before each run by writing a buffer twice its size; and a device-to-device copy of
the same bytes in this process. Validated first against a float64 conv2d of the same input:
error relative to the sum of the magnitudes of the terms, within 1e-3 as for cuDNN called
directly. Writes JSON rows shaped like the benchmark program's. Run by tools/halo/bench/bench_gpu.py:
    python3 torch_conv2d.py --json OUT --width W --height H --masks 3,5,7,9 --runs R --warmup K --seed S
"""
import argparse
import json
import statistics
import sys


def main(argv):
    a = argparse.ArgumentParser()
    a.add_argument("--json", required=True)
    a.add_argument("--width", type=int, required=True)
    a.add_argument("--height", type=int, required=True)
    a.add_argument("--masks", required=True)
    a.add_argument("--runs", type=int, required=True)
    a.add_argument("--warmup", type=int, required=True)
    a.add_argument("--seed", type=int, required=True)
    args = a.parse_args(argv)
    try:
        import torch
        import torch.nn.functional as F
    except ImportError as e:
        print(f"torch_conv2d: PyTorch is not importable here ({e})", file=sys.stderr)
        return 4
    if not torch.cuda.is_available():
        print("torch_conv2d: PyTorch sees no CUDA device", file=sys.stderr)
        return 77
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(0)
    l2 = int(getattr(props, "L2_cache_size", 0) or 0) or (64 << 20)
    flush = torch.empty(max(2 * l2, 8 << 20), dtype=torch.uint8, device=dev)
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def time(fn):
        for k in range(args.warmup):
            flush.fill_(k & 0xFF)
            fn()
        torch.cuda.synchronize()
        ms = []
        for k in range(args.runs):
            flush.fill_(k & 0xFF)  # evicts the previous run's data from L2
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            ms.append(start.elapsed_time(stop))
        return statistics.median(ms), min(ms), max(ms)

    g = torch.Generator(device=dev)
    g.manual_seed(args.seed)
    H, W = args.height, args.width
    x = torch.rand((1, 1, H, W), generator=g, device=dev) * 2 - 1
    bytes_moved = 2.0 * H * W * 4
    dst = torch.empty_like(x)
    c_ms, c_min, c_max = time(lambda: dst.copy_(x))
    copy = {"what": "torch copy_ device to device of the input's bytes (in the PyTorch process)",
            "bytes": bytes_moved, "ms": c_ms, "min_ms": c_min, "max_ms": c_max,
            "gbps": bytes_moved / (c_ms * 1e6), "runs": args.runs}
    rows = []
    x64, xabs = x.double(), x.abs().double()
    for m in (int(s) for s in args.masks.split(",")):
        r = m // 2
        w = torch.rand((1, 1, m, m), generator=g, device=dev) * 2 - 1
        row = {"name": "torch.nn.functional.conv2d", "section": "-", "variant": "cuDNN (PyTorch)", "dims": 2,
               "mask": m, "bytes": bytes_moved, "runs": 0, "checked": H * W,
               "note": f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, cudnn.benchmark"}
        try:
            y = F.conv2d(x, w, padding=r)  # cross-correlation, zero padding: the book's convolution
            ref = F.conv2d(x64, w.double(), padding=r)
            mag = F.conv2d(xabs, w.abs().double(), padding=r).clamp_min(1e-30)
            err = ((y.double() - ref).abs() / mag).max().item()
            finite = bool(torch.isfinite(y).all().item())
            del ref, mag
        except RuntimeError as e:
            rows.append(dict(row, status="error", note=str(e).splitlines()[0]))
            continue
        row["max_rel_error"] = err
        if not finite or not err <= 1e-3:
            rows.append(dict(row, status="wrong", note=f"max relative error {err:.2e} (not timed)"))
            continue
        ms, lo, hi = time(lambda: F.conv2d(x, w, padding=r))
        gbps = bytes_moved / (ms * 1e6)
        rows.append(dict(row, status="ok", ms=ms, min_ms=lo, max_ms=hi, runs=args.runs, gbps=gbps,
                         fraction_of_copy=gbps / copy["gbps"]))
        print(f"  -    torch conv2d (cuDNN)  mask {m}x{m}: {ms:8.3f} ms  {gbps:7.1f} GB/s  "
              f"{gbps / copy['gbps']:5.2f} of copy (max rel. error {err:.1e})", flush=True)
    with open(args.json, "w") as f:
        json.dump({"copy": copy, "rows": rows, "torch": torch.__version__,
                   "cudnn_version": torch.backends.cudnn.version()}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
