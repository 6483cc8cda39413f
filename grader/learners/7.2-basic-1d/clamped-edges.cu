// Edges clamped (replicated) instead of ghost cells counting as 0.
__global__ void convolution_1D_basic_kernel(const float* N, const float* M, float* P, int Mask_Width, int Width) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < Width) {
    float sum = 0.0f;
    for (int j = 0; j < Mask_Width; j++) {
      int k = min(max(i - Mask_Width / 2 + j, 0), Width - 1);
      sum += N[k] * M[j];
    }
    P[i] = sum;
  }
}
