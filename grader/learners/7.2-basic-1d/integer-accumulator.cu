// The sum kept in an int: every product is truncated.
__global__ void convolution_1D_basic_kernel(const float* N, const float* M, float* P, int Mask_Width, int Width) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < Width) {
    int sum = 0;
    for (int j = 0; j < Mask_Width; j++) {
      int k = i - Mask_Width / 2 + j;
      if (k >= 0 && k < Width) sum += N[k] * M[j];
    }
    P[i] = sum;
  }
}
