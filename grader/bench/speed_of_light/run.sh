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
bash grader/bench/speed_of_light/build.sh "$BUILD" "$OUT/build.log" || { cat "$OUT/build.log"; exit 1; }
"$BUILD/speed_of_light" "$OUT" 2>&1 | tee "$OUT/run.log"
exit "${PIPESTATUS[0]}"
