// Input-tile blocks, with the output row taken from the x indices and the column from the y
// ones (row first, as in P[row][col]); loads, guards and the store are otherwise the book's.

__global__ void convolution_2D_tiled_kernel(const float* N, float* P, int height, int width, int pitch, int Mask_Width,
                                            const float* __restrict__ M) {
  __shared__ float N_ds[O_TILE_WIDTH + MAX_MASK_WIDTH - 1][O_TILE_WIDTH + MAX_MASK_WIDTH - 1];
  int n = Mask_Width / 2;
  int row = blockIdx.x * O_TILE_WIDTH + threadIdx.x;
  int col = blockIdx.y * O_TILE_WIDTH + threadIdx.y;
  int row_i = row - n;
  int col_i = col - n;

  if (row_i >= 0 && row_i < height && col_i >= 0 && col_i < width)
    N_ds[threadIdx.x][threadIdx.y] = N[row_i * pitch + col_i];
  else
    N_ds[threadIdx.x][threadIdx.y] = 0.0f;
  __syncthreads();

  if (threadIdx.x < O_TILE_WIDTH && threadIdx.y < O_TILE_WIDTH) {
    float sum = 0.0f;
    for (int i = 0; i < Mask_Width; i++)
      for (int j = 0; j < Mask_Width; j++) sum += M[i * Mask_Width + j] * N_ds[threadIdx.x + i][threadIdx.y + j];
    if (row < height && col < width) P[row * pitch + col] = sum;
  }
}

void convolution_2D_tiled_launch_config(int width, int height, int Mask_Width, dim3* grid, dim3* block) {
  int side = O_TILE_WIDTH + Mask_Width - 1;
  *block = dim3(side, side, 1);
  *grid = dim3((width + O_TILE_WIDTH - 1) / O_TILE_WIDTH, (height + O_TILE_WIDTH - 1) / O_TILE_WIDTH, 1);
}
