#!/usr/bin/env bash
# Packs what the GPU side of `./workbook check` built into one archive, for a GPU machine that
# has the CUDA driver but not the CPU backend's toolchain (clang, Boost): every GPU test binary
# (stripped), the load counter, and CTest's files. run_on_gpu.sh unpacks and runs it there.
#     bash grader/cuda/suite/stage.sh [BUILD_DIR] [ARCHIVE]
# Paths inside CTest's files are absolute: the archive records the build's root so that the
# other side can put the same tree at the same place.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
build=$(cd "${1:-$root/build/check}" && pwd)
archive=${2:-$root/build/gpu-suite.tar.xz}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
rel=${build#"$root"/}
mkdir -p "$stage/$rel"
(cd "$build" && find . -name 'CTestTestfile.cmake' -o -name '*_include.cmake' -o -name '*_tests.cmake' \
   -o -name 'test_*_gpu' -type f -o -name 'libhalo_loadcount.so' -o -name '*.fatbin' | tar -cf - -T - | tar -C "$stage/$rel" -xf -)
find "$stage" -name 'test_*_gpu' -type f -exec strip {} +
echo "$root" > "$stage/.halo-build-root"
tar -C "$stage" -cJf "$archive" .
echo "staged $(find "$stage" -name 'test_*_gpu' -type f | wc -l) GPU test binaries from $build into $archive ($(du -h "$archive" | cut -f1))"
