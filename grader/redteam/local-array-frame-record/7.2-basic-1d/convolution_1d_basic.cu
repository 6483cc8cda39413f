// Section 7.2 (red team, issue 32 item 1): a write past a local array, which reached the fiber's
// stack unchecked: the frame record above the kernel's locals (its saved frame pointer and return
// address) and the grader's frame above that. Each thread writes its sum far past `window`, then
// stores a right result: a grader that lets the store happen has handed the kernel its stack.
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
  float* past = window;
  for (int step = 4; step < 4 + 8 * Mask_Width; ++step) past[step] = past[step] + 0.0f;
  window[0] = sum;
  P[i] = window[0];
}
