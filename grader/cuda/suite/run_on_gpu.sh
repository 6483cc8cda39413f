#!/usr/bin/env bash
# Runs the staged GPU suite (stage.sh) on a GPU machine, from the repository root:
#     bash grader/cuda/suite/run_on_gpu.sh ARCHIVE OUTDIR
# Unpacks the binaries where the build had them (a link from the build's root to this checkout
# when the paths differ), points the absolute paths CTest recorded (Python, compute-sanitizer)
# at this machine's, and runs every test labelled gpu with the load counter preloaded. Writes
# OUTDIR/gpu-suite.log, gpu-junit.xml and gpu-report.tar.gz (the load reports, for the
# CPU/GPU agreement table).
set -uo pipefail
archive=$1
out=$2
mkdir -p "$out"
tmp=$(mktemp -d)
tar -C "$tmp" -xJf "$archive"
build_root=$(cat "$tmp/.halo-build-root")
if [ "$build_root" != "$PWD" ] && [ ! -e "$build_root" ]; then
  mkdir -p "$(dirname "$build_root")" && ln -s "$PWD" "$build_root"
fi
cp -a "$tmp/." "$build_root/"
# The Python and compute-sanitizer CTest names are the build machine's; link this machine's there.
for want in $(grep -rhoE '"/[^"]*/(python3[.0-9]*|compute-sanitizer)"' "$build_root/build/check" --include=CTestTestfile.cmake | tr -d '"' | sort -u); do
  [ -e "$want" ] && continue
  case "$want" in
    */compute-sanitizer) have=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer) ;;
    *) have=$(command -v python3) ;;
  esac
  mkdir -p "$(dirname "$want")" && ln -s "$have" "$want"
done
# The counter links libsanitizer-public.so: this machine's toolkit has one.
export LD_LIBRARY_PATH=${CUDA_HOME:-/usr/local/cuda}/compute-sanitizer${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export HALO_REPORT_DIR="$tmp/report"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu-suite.log"
limit=${HALO_GPU_SUITE_TIMEOUT:-3000}
timeout "$limit" ctest --test-dir "$build_root/build/check" -L '^gpu$' -j "${HALO_GPU_JOBS:-8}" --output-on-failure \
  --output-junit "$out/gpu-junit.xml" 2>&1 | tee -a "$out/gpu-suite.log" | grep -E '^[0-9]+% tests|Failed|Not Run|\*\*\*'
status=${PIPESTATUS[0]}
# The reference solutions' answers, compared with the ratios the GPU's load counts give.
timeout 300 ctest --test-dir "$build_root/build/check" -L '^answers$' -R '^solutions: ' -j 8 --output-on-failure \
  --output-junit "$out/gpu-answers-junit.xml" 2>&1 | tee -a "$out/gpu-suite.log" | grep -E '^[0-9]+% tests|Failed'
[ "${PIPESTATUS[0]}" = 0 ] || status=1
tar -C "$tmp" -czf "$out/gpu-report.tar.gz" report
exit "$status"
