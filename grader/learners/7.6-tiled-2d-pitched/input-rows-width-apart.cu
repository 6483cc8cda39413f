// Input-tile blocks like the book's Figure 7.21; P is written with the pitch, but the tile is
// loaded from N[row_i * width + col_i], as if N's rows were width elements apart.

__global__ void convolution_2D_tiled_kernel(const float* N, float* P, int height, int width, int pitch, int Mask_Width,
                                            const float* __restrict__ M) {
  __shared__ float N_ds[O_TILE_WIDTH + MAX_MASK_WIDTH - 1][O_TILE_WIDTH + MAX_MASK_WIDTH - 1];
  int tx = threadIdx.x;
  int ty = threadIdx.y;
  int row_o = blockIdx.y * O_TILE_WIDTH + ty;
  int col_o = blockIdx.x * O_TILE_WIDTH + tx;
  int row_i = row_o - Mask_Width / 2;
  int col_i = col_o - Mask_Width / 2;

  if ((row_i >= 0) && (row_i < height) && (col_i >= 0) && (col_i < width)) {
    N_ds[ty][tx] = N[row_i * width + col_i];
  } else {
    N_ds[ty][tx] = 0.0f;
  }
  __syncthreads();

  float output = 0.0f;
  if (ty < O_TILE_WIDTH && tx < O_TILE_WIDTH) {
    for (int i = 0; i < Mask_Width; i++) {
      for (int j = 0; j < Mask_Width; j++) {
        output += M[i * Mask_Width + j] * N_ds[i + ty][j + tx];
      }
    }
    if (row_o < height && col_o < width) {
      P[row_o * pitch + col_o] = output;
    }
  }
}

void convolution_2D_tiled_launch_config(int width, int height, int Mask_Width, dim3* grid, dim3* block) {
  int BLOCK_WIDTH = O_TILE_WIDTH + Mask_Width - 1;
  *block = dim3(BLOCK_WIDTH, BLOCK_WIDTH, 1);
  *grid = dim3((width - 1) / O_TILE_WIDTH + 1, (height - 1) / O_TILE_WIDTH + 1, 1);
}
