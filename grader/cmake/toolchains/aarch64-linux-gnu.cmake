# Cross-building the CPU backend and the section tests for Linux aarch64 on a Debian x86-64
# machine with multiarch (./workbook check --arch arm64, tools/halo/dev/arch_check.py): clang is a
# cross compiler already, the arm64 libraries (libstdc++, Boost.Context) come from Debian's
# :arm64 packages, and the programs run under qemu-user through binfmt_misc.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_CXX_COMPILER_TARGET aarch64-linux-gnu)
# Multiarch puts arm64 libraries and their CMake packages in /usr/lib/aarch64-linux-gnu.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
