// One loop loads the whole input tile (blockDim.x + 2n cells, ghost cells as 0), each thread
// taking every blockDim.x-th cell; the tile is indexed from the block's first input.
#include "halo/given/constant_mask_1d.cuh"

__global__ void convolution_1D_tiled_kernel(const float* N, float* P, int Mask_Width, int Width) {
  __shared__ float tile[TILE_SIZE + MAX_MASK_WIDTH - 1];
  const int n = Mask_Width / 2;
  const int first = blockIdx.x * blockDim.x - n;  // the input under M[0] for the block's first output
  const int cells = blockDim.x + 2 * n;
  for (int c = threadIdx.x; c < cells; c += blockDim.x) {
    const int g = first + c;
    tile[c] = (g >= 0 && g < Width) ? N[g] : 0.0f;
  }
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < Width) {
    float s = 0.0f;
    for (int j = 0; j < Mask_Width; ++j) s += tile[threadIdx.x + j] * M[j];
    P[i] = s;
  }
}
