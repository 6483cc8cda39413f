#!/usr/bin/env bash
# Builds and runs section 7.9's tuning program on a GPU machine (nvcc and python3 only), from
# the repository root:
#     bash grader/bench/speed_of_light/run.sh OUTDIR
# It writes OUTDIR/gpu-7.9-steps.json and .md, plus the build log with ptxas's register counts.
# Timing is the GPU benchmark's (grader/bench/gpu/timing.cu), compiled in. cuDNN is not timed
# here: `./workbook bench` times it beside the 7.9 kernel, and timing it here made this
# program overrun its time limit.
set -euo pipefail
OUT=${1:?usage: run.sh OUTDIR}
mkdir -p "$OUT"
BUILD=$(mktemp -d)
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null || NVCC=/usr/local/cuda/bin/nvcc
# The chapter's #defines (tile shape, MAX_FILTER_RADIUS), generated from chapters/*/questions.toml.
python3 workbook internal emit-header "$BUILD/gen/halo/chapter_data.hpp" "$BUILD/gen/halo/chapter_defines.hpp"
SRC=grader/bench/speed_of_light/speed_of_light.cu
# timing.cu gets the flags the benchmark's own build gives it: the chapter's pre-includes are
# for exercise code only.
"$NVCC" -arch=sm_90 -O3 -std=c++17 -Igrader/bench/gpu -c grader/bench/gpu/timing.cu -o "$BUILD/timing.o" \
  > "$OUT/build.log" 2>&1 || { cat "$OUT/build.log"; exit 1; }
FLAGS=(-arch=sm_90 -O3 -std=c++17 -I. -Igrader/include
       --pre-include "$BUILD/gen/halo/chapter_defines.hpp" --pre-include grader/include/halo/cuda/cuda_dialect.hpp
       -Xptxas -v)
"$NVCC" "${FLAGS[@]}" "$SRC" "$BUILD/timing.o" -o "$BUILD/speed_of_light" >> "$OUT/build.log" 2>&1 \
  || { cat "$OUT/build.log"; exit 1; }
"$BUILD/speed_of_light" "$OUT" 2>&1 | tee "$OUT/run.log"
exit "${PIPESTATUS[0]}"
