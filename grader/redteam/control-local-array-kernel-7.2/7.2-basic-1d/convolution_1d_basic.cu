// Control for the local-array attacks (issue 32, item 1): their kernel without the stray write.
// It scores more than the stub, so an attack that is this kernel plus a write past `window` would
// have scored the same had the write gone unnamed.
__global__ void convolution_1D_basic_kernel(const float* N, const float* M, float* P, int Mask_Width, int Width) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= Width) return;
  const int n = Mask_Width / 2;
  float window[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  float sum = 0.0f;
  for (int j = 0; j < Mask_Width; ++j) {
    const int k = i - n + j;
    if (k >= 0 && k < Width) sum += N[k] * M[j];
  }
  window[0] = sum;
  P[i] = window[0];
}
