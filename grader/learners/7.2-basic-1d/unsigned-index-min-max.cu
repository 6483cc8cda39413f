// An unsigned index and min/max for the loop bounds, so no ghost test inside the loop.
__global__ void convolution_1D_basic_kernel(const float* __restrict__ N, const float* __restrict__ M, float* P,
                                            int Mask_Width, int Width) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= Width) return;
  const int r = Mask_Width / 2;
  const int lo = max(0, int(i) - r), hi = min(Width - 1, int(i) + r);
  float sum = 0.0f;
  for (int k = lo; k <= hi; ++k) sum += N[k] * M[k - int(i) + r];
  P[i] = sum;
}
