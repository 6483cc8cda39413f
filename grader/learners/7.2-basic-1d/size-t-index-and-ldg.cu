// size_t indices, __ldg loads and a __forceinline__ helper for the ghost test.
__device__ __forceinline__ bool inside(long long k, int width) { return k >= 0 && k < width; }

__global__ void convolution_1D_basic_kernel(const float* N, const float* M, float* P, int Mask_Width, int Width) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= size_t(Width)) return;
  float acc = 0.0f;
#pragma unroll 4
  for (int j = 0; j < Mask_Width; ++j) {
    const long long k = (long long)i - Mask_Width / 2 + j;
    if (inside(k, Width)) acc += __ldg(&N[k]) * __ldg(&M[j]);
  }
  P[i] = acc;
}
