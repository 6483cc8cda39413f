// Input-tile blocks, tried first with a 3 x 3 mask: the filter loops stop at 3 instead of
// Mask_Width, though the tile and the mask's row stride follow Mask_Width.

__global__ void convolution_2D_tiled_kernel(const float* N, float* P, int height, int width, int pitch, int Mask_Width,
                                            const float* __restrict__ M) {
  __shared__ float Ns[O_TILE_WIDTH + MAX_MASK_WIDTH - 1][O_TILE_WIDTH + MAX_MASK_WIDTH - 1];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row_o = blockIdx.y * O_TILE_WIDTH + ty;
  int col_o = blockIdx.x * O_TILE_WIDTH + tx;
  int row_i = row_o - Mask_Width / 2;
  int col_i = col_o - Mask_Width / 2;

  if (row_i >= 0 && row_i < height && col_i >= 0 && col_i < width)
    Ns[ty][tx] = N[row_i * pitch + col_i];
  else
    Ns[ty][tx] = 0.0f;
  __syncthreads();

  if (ty < O_TILE_WIDTH && tx < O_TILE_WIDTH) {
    float output = 0.0f;
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        output += M[i * Mask_Width + j] * Ns[i + ty][j + tx];
    if (row_o < height && col_o < width) P[row_o * pitch + col_o] = output;
  }
}

void convolution_2D_tiled_launch_config(int width, int height, int Mask_Width, dim3* grid, dim3* block) {
  int BLOCK_WIDTH = O_TILE_WIDTH + Mask_Width - 1;
  *block = dim3(BLOCK_WIDTH, BLOCK_WIDTH, 1);
  *grid = dim3((width - 1) / O_TILE_WIDTH + 1, (height - 1) / O_TILE_WIDTH + 1, 1);
}
