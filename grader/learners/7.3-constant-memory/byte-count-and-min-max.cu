// The copy sized with sizeof(float) * Mask_Width; min/max loop bounds over the mask's span.
__constant__ float M[MAX_MASK_WIDTH];

cudaError_t copy_mask_to_constant(const float* h_M, int Mask_Width) {
  if (Mask_Width <= 0 || Mask_Width > MAX_MASK_WIDTH) return cudaErrorInvalidValue;
  cudaError_t err = cudaMemcpyToSymbol(M, h_M, sizeof(float) * Mask_Width);
  return err;
}

__global__ void convolution_1D_const_kernel(const float* N, float* P, int Mask_Width, int Width) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= Width) return;
  const int n = Mask_Width / 2;
  float acc = 0.0f;
  for (int k = max(i - n, 0); k <= min(i - n + Mask_Width - 1, Width - 1); ++k) acc += N[k] * M[k - i + n];
  P[i] = acc;
}
