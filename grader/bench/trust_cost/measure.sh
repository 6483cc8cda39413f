#!/bin/bash
# What the trust checks of issue 32 cost per access, in instructions (callgrind: repeatable
# whatever else the machine runs), on five reference kernels: the runtime and the kernel flags of
# two commits, built the same way by hand, each kernel launched once (driver.cpp).
#
#   grader/bench/trust_cost/measure.sh BEFORE_COMMIT [AFTER_COMMIT]   (from the repository root;
#   needs a configured build/check for chapter_defines.hpp, valgrind, clang++, Boost.Context)
set -euo pipefail
root=$(pwd)
before=$1
after=${2:-HEAD}
work=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$work/before" >/dev/null 2>&1 || true; git -C "$root" worktree remove --force "$work/after" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
generated="$root/build/check/generated"
[ -f "$generated/halo/chapter_defines.hpp" ] || { echo "configure build/check first (./workbook check)"; exit 2; }
build() {  # build TREE OUT
  local tree=$1 out=$2
  mkdir -p "$out"
  local inc="-I$tree/grader/include -I$generated -I$tree"
  # The runtime, and the platform layer where the commit has one (grader/platform/, since 2026-11).
  for f in "$tree"/grader/cpu/*.cpp "$tree"/grader/platform/linux/*.cpp; do
    [ -f "$f" ] && [ "$(basename "$f")" != worker_process.cpp ] || continue  # the judge's, not the runtime's
    clang++ -std=c++20 -O2 $inc -I"$tree/grader/cpu" -DHALO_SOURCE_DIR=\"$tree\" -c "$f" -o "$out/$(basename "$f" .cpp).o"
  done
  # The kernel flags as that commit's CMake gives them.
  local flags
  # ("SHELL:-mllvm -x" items are the two words they stand for.)
  flags=$(sed -n '/^set(HALO_KERNEL_FLAGS/,/)$/p' "$tree/grader/cmake/HaloSections.cmake" | tr '\n' ' ' |
          sed 's/set(HALO_KERNEL_FLAGS//; s/)//; s/"SHELL:\([^"]*\)"/\1/g')
  for k in kernels_1d kernels_2d; do
    clang++ -std=c++20 $flags $inc -x c++ -c "$root/grader/bench/trust_cost/$k.cu" -o "$out/$k.k.o" 2>/dev/null
  done
  clang++ -std=c++20 -O2 $inc -c "$root/grader/bench/trust_cost/driver.cpp" -o "$out/driver.o"
  clang++ "$out"/*.o -lboost_context -lpthread -ldl -o "$out/bench"
}
count() { HALO_THREADS=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" "$2" 2>&1 | awk '/Collected/ {print $4}'; }
git worktree add -f "$work/before" "$before" >/dev/null 2>&1
git worktree add -f "$work/after" "$after" >/dev/null 2>&1
build "$work/before" "$work/b"
build "$work/after" "$work/a"
base_b=$(count "$work/b/bench" none); base_a=$(count "$work/a/bench" none)
echo "| kernel | instructions before | after | after / before |"
echo "|---|---:|---:|---:|"
for k in 7.2 7.4 7.8 7.8t 7.9; do
  b=$(( $(count "$work/b/bench" $k) - base_b )); a=$(( $(count "$work/a/bench" $k) - base_a ))
  awk -v k="$k" -v b="$b" -v a="$a" 'BEGIN { printf "| %s | %d | %d | %.3f |\n", k, b, a, a / b }'
done
