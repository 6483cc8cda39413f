// A tile size of the learner's own, as a const size_t under the grader's name TILE_SIZE, with
// the halo read through the caches.
#include "halo/given/constant_mask_1d.cuh"

const size_t TILE_SIZE = 256;

__global__ void convolution_1D_cached_kernel(const float* N, float* P, int Mask_Width, int Width) {
  __shared__ float tile[TILE_SIZE];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = (i < Width) ? N[i] : 0.0f;
  __syncthreads();
  int this_tile_start = blockIdx.x * blockDim.x;
  int next_tile_start = (blockIdx.x + 1) * blockDim.x;
  int start = i - Mask_Width / 2;
  if (i < Width) {
    float sum = 0.0f;
    for (int j = 0; j < Mask_Width; j++) {
      int k = start + j;
      if (k >= 0 && k < Width) {
        if (k >= this_tile_start && k < next_tile_start) {
          sum += tile[threadIdx.x + j - Mask_Width / 2] * M[j];
        } else {
          sum += N[k] * M[j];
        }
      }
    }
    P[i] = sum;
  }
}
