// Section 7.4 (red team, issue 32 item 3): one file, two kernels. The CPU build (clang) gets the
// tiled kernel and passes the load tests; under nvcc the file reads N straight from global memory
// for every mask element, untiled. A grader that grades one build and runs the other is fooled.
#include "halo/given/constant_mask_1d.cuh"

__global__ void convolution_1D_tiled_kernel(const float* N, float* P, int Mask_Width, int Width) {
  const int n = Mask_Width / 2;
  const int tx = threadIdx.x, tile = blockDim.x, start = blockIdx.x * tile, i = start + tx;
#if defined(__CUDACC__)
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
