// Ghost cells folded into the sum with a conditional expression; early return for idle threads.
__global__ void convolution_1D_basic_kernel(const float* __restrict__ N, const float* __restrict__ M,
                                            float* __restrict__ P, const int Mask_Width, const int Width) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= Width) return;
  const int half = Mask_Width / 2;
  float sum = 0.0f;
#pragma unroll 4
  for (int j = 0; j < Mask_Width; ++j) {
    const int k = i - half + j;
    sum += (k >= 0 && k < Width) ? N[k] * M[j] : 0.0f;
  }
  P[i] = sum;
}
