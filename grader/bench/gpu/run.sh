#!/usr/bin/env bash
# The GPU benchmark as one command, from the repository root of a machine with an NVIDIA GPU:
#     bash grader/bench/gpu/run.sh [OUTPUT_DIR]      (default: $OUT, else build/bench)
# Builds grader/bench/gpu/ with nvcc alone and runs every reference kernel, cuDNN included
# (found through CUDNN_ROOT, the CUDA toolkit, /usr, or the nvidia-cudnn wheel of the Python
# running ./workbook; without a cudnn.h, PyTorch's conv2d is timed instead) and NPP (found through
# NPP_ROOT, the CUDA toolkit, /usr, or an nvidia-npp wheel; without it, no NPP rows). Set HALO_PYTHON to
# a Python that has PyTorch (a virtual environment's) to run ./workbook with it. Writes
# gpu-bench.json, gpu-bench.md and gpu-bench.log. Exit status as `./workbook bench --help` says
# (77: no CUDA device, nothing timed).
set -u
cd "$(dirname "$0")/../../.."
exec "${HALO_PYTHON:-python3}" ./workbook bench --output-dir "${1:-${OUT:-build/bench}}"
