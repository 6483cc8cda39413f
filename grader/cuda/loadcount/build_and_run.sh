#!/usr/bin/env bash
# Builds the load-counting tool (needs the CUDA toolkit's compute-sanitizer headers, e.g. on a
# GPU machine) and runs the 1D agreement program under it. Run from the repository root with
# the generated headers of a check build copied to GEN (default build/check/generated):
#     bash grader/cuda/loadcount/build_and_run.sh
# It is not part of ./workbook check yet: the machines CI runs on have no sanitizer headers.
set -euo pipefail
CS=${CS:-/usr/local/cuda/compute-sanitizer}
GEN=${GEN:-build/check/generated}
OUT=${OUT_DIR:-build/loadcount}
HERE=grader/cuda/loadcount
mkdir -p "$OUT"
nvcc --fatbin --compile-as-tools-patch -arch=sm_90 -I"$CS/include" -o "$OUT/halo_loadcount_patch.fatbin" "$HERE/patch.cu"
g++ -O2 -fPIC -shared -std=c++17 -I"$CS/include" -I/usr/local/cuda/include "$HERE/tool.cpp" -L"$CS" -lsanitizer-public \
    -o "$OUT/libhalo_loadcount.so"
# Kernel files get the chapter's #defines and the stub marker, as in every GPU build.
PRE=(--pre-include "$GEN/halo/chapter_defines.hpp" --pre-include grader/include/halo/cuda/cuda_dialect.hpp)
nvcc -arch=sm_90 -O3 -std=c++17 -Igrader/include "${PRE[@]}" -c solutions/7.2-basic-1d/convolution_1d_basic.cu -o "$OUT/basic.o"
nvcc -arch=sm_90 -O3 -std=c++17 -Igrader/include "${PRE[@]}" -c solutions/7.4-tiled-1d/convolution_1d_tiled.cu -o "$OUT/tiled.o"
nvcc -arch=sm_90 -O3 -std=c++17 -I"$GEN" "$HERE/agreement.cu" "$OUT/basic.o" "$OUT/tiled.o" -o "$OUT/agreement"
HALO_LOADCOUNT_PATCH="$OUT/halo_loadcount_patch.fatbin" LD_LIBRARY_PATH="$CS" LD_PRELOAD="$OUT/libhalo_loadcount.so" \
    "$OUT/agreement"
