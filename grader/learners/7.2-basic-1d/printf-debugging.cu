// A right kernel with the printf a learner left in while debugging.
#include <cstdio>

__global__ void convolution_1D_basic_kernel(const float* N, const float* M, float* P, int Mask_Width, int Width) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < Width) {
    float sum = 0.0f;
    for (int j = 0; j < Mask_Width; j++) {
      int k = i - Mask_Width / 2 + j;
      if (k >= 0 && k < Width) sum += N[k] * M[j];
    }
    if (i == 0) printf("P[0] = %f\n", sum);
    P[i] = sum;
  }
}
