#!/usr/bin/env bash
# Gradescope runs this once, as root, while it builds the autograder's image (base image
# Ubuntu 22.04; 24.04 works too). The zip's halo/ folder, a copy of the Halo repository made by
# `./workbook export gradescope-autograder`, is already at /autograder/source/halo.
#
# The packages are those tools/halo/core/toolchain.py asks for (a unit test keeps the two lists in
# step): clang >= 14, CMake >= 3.25, Ninja, Boost.Context, doctest, binutils (addr2line for the
# source lines of diagnostics), Python 3 with a TOML reader.
set -euo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
HALO="$ROOT/source/halo"
export DEBIAN_FRONTEND=noninteractive

apt-get update -q
apt-get install -y -q --no-install-recommends \
  clang cmake ninja-build libboost-context-dev doctest-dev binutils bubblewrap python3 python3-pip python3-tomli

# Ubuntu 22.04 ships CMake 3.22; Halo needs 3.25 or newer: take PyPI's build then.
if ! cmake --version | awk 'NR == 1 { split($3, v, "."); exit !(v[1] > 3 || (v[1] == 3 && v[2] >= 25)) }'; then
  python3 -m pip install --quiet 'cmake>=3.25' \
    || python3 -m pip install --quiet --break-system-packages 'cmake>=3.25'
  hash -r
fi

chmod +x "$HALO/workbook" "$ROOT/source/run_autograder"
# The course file holds the course secret: root's alone (submissions run as other users, sandboxed).
if [ -f "$HALO/course.toml" ]; then chmod 600 "$HALO/course.toml"; fi
if [ -f "$HALO/roster.csv" ]; then chmod 600 "$HALO/roster.csv"; fi  # the class's names and emails

# Grade the untouched stubs once, here, in the very folders run_autograder uses: the image then
# holds a configured build with Halo's runtime compiled, and each submission only compiles its
# own kernels. A failure here is not fatal; run_autograder builds what is missing.
WORK="$ROOT/halo-work"
rm -rf "$WORK/exercises"
mkdir -p "$WORK"
cp -R "$HALO/exercises" "$WORK/exercises"
(cd "$HALO" && ./workbook grade --exercises "$WORK/exercises" --build-dir "$WORK/build") >/dev/null 2>&1 || true
