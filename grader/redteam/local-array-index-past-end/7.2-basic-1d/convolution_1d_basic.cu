// Section 7.2 (red team, issue 32 item 1): a local array indexed past its end, the write the
// grader's docs listed as a known limit. Each thread writes window[Mask_Width + 8] before storing a
// right result; the write must be named ("write of window[...], outside window[0..3]").
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
  window[Mask_Width + 8] = sum;
  P[i] = sum + window[0];
}
