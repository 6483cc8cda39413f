#!/usr/bin/env bash
# Builds section 7.9's tuning program with nvcc alone, from the repository root:
#     bash grader/bench/speed_of_light/build.sh BUILD_DIR LOG
# writes BUILD_DIR/speed_of_light (and the chapter's generated headers under BUILD_DIR/gen), the
# compiler's output, ptxas's register counts included, into LOG. run.sh builds with it and runs;
# ./workbook check builds with it where nvcc is found, so the program cannot silently stop
# building when the benchmark it shares timing.cu with changes.
set -euo pipefail
BUILD=${1:?usage: build.sh BUILD_DIR LOG}
LOG=${2:?usage: build.sh BUILD_DIR LOG}
mkdir -p "$BUILD"
NVCC=${NVCC:-nvcc}
command -v "$NVCC" >/dev/null || NVCC=/usr/local/cuda/bin/nvcc
PYTHON=${PYTHON:-python3}
# The chapter's #defines (tile shape, MAX_FILTER_RADIUS), generated from chapters/*/questions.toml.
"$PYTHON" workbook internal emit-header "$BUILD/gen/halo/chapter_data.hpp" "$BUILD/gen/halo/chapter_defines.hpp"
# timing.cu and inputs.cpp (the protocol's operations and their validation) get the flags the
# benchmark's own build gives them: the chapter's pre-includes are for exercise code only.
"$NVCC" -arch=sm_90 -O3 -std=c++17 -Igrader/bench/gpu -c grader/bench/gpu/timing.cu -o "$BUILD/timing.o" > "$LOG" 2>&1
"$NVCC" -arch=sm_90 -O3 -std=c++17 -Igrader/bench/gpu -x cu -c grader/bench/gpu/inputs.cpp -o "$BUILD/inputs.o" >> "$LOG" 2>&1
FLAGS=(-arch=sm_90 -O3 -std=c++17 -I. -Igrader/include
       --pre-include "$BUILD/gen/halo/chapter_defines.hpp" --pre-include grader/include/halo/cuda/cuda_dialect.hpp
       -Xptxas -v)
"$NVCC" "${FLAGS[@]}" grader/bench/speed_of_light/speed_of_light.cu "$BUILD/timing.o" "$BUILD/inputs.o" \
  -o "$BUILD/speed_of_light" >> "$LOG" 2>&1
