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

// 2^26 distinct instantiations: the compiler runs out of memory or time long before the end.
template <int Depth, unsigned long Path>
struct Unroll {
  static constexpr unsigned long value = Unroll<Depth - 1, 2 * Path>::value + Unroll<Depth - 1, 2 * Path + 1>::value;
};
template <unsigned long Path>
struct Unroll<0, Path> {
  static constexpr unsigned long value = Path & 1;
};
unsigned long unrolled_leaves() { return Unroll<26, 1>::value; }
