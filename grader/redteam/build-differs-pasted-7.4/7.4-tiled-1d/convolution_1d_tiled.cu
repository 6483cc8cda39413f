// Section 7.4 (red team, issue 32 item 3): build-differs-7.4 with the macro's name pasted
// together, so that no token of the file spells it: `#if GLUE(_, _CUDACC__)` is 0 under clang and
// 1 under nvcc. The source layer reads `_` and `_CUDACC__`; only the preprocessor sees the name.
#include "halo/given/constant_mask_1d.cuh"

#define GLUE(a, b) a##b

__global__ void convolution_1D_tiled_kernel(const float* N, float* P, int Mask_Width, int Width) {
  const int n = Mask_Width / 2;
  const int tx = threadIdx.x, tile = blockDim.x, start = blockIdx.x * tile, i = start + tx;
#if GLUE(_, _CUDACC__)
  if (i < Width) {
    float sum = 0.0f;
    for (int j = 0; j < Mask_Width; ++j) {
      const int k = i - n + j;
      if (k >= 0 && k < Width) sum += N[k] * M[j];
    }
    P[i] = sum;
  }
#else
  __shared__ float N_ds[TILE_SIZE + MAX_MASK_WIDTH - 1];
  if (tx >= tile - n) {
    const int left = start - tile + tx;
    N_ds[tx - (tile - n)] = (left >= 0) ? N[left] : 0.0f;
  }
  N_ds[n + tx] = (i < Width) ? N[i] : 0.0f;
  if (tx < n) {
    const int right = start + tile + tx;
    N_ds[n + tile + tx] = (right < Width) ? N[right] : 0.0f;
  }
  __syncthreads();
  if (i < Width) {
    float sum = 0.0f;
    for (int j = 0; j < Mask_Width; ++j) sum += N_ds[tx + j] * M[j];
    P[i] = sum;
  }
#endif
}
