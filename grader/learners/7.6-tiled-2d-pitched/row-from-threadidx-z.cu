// Input-tile blocks, but the output row is built from threadIdx.z (a slip for threadIdx.y).

__global__ void convolution_2D_tiled_kernel(const float* N, float* P, int height, int width, int pitch, int Mask_Width,
                                            const float* __restrict__ M) {
  __shared__ float N_ds[(O_TILE_WIDTH + MAX_MASK_WIDTH - 1) * (O_TILE_WIDTH + MAX_MASK_WIDTH - 1)];
  int n = Mask_Width / 2;
  int BLOCK_WIDTH = O_TILE_WIDTH + Mask_Width - 1;
  int tx = threadIdx.x;
  int ty = threadIdx.y;
  int row_o = blockIdx.y * O_TILE_WIDTH + threadIdx.z;
  int col_o = blockIdx.x * O_TILE_WIDTH + threadIdx.x;
  int row_i = row_o - n;
  int col_i = col_o - n;

  if (row_i >= 0 && row_i < height && col_i >= 0 && col_i < width) {
    N_ds[ty * BLOCK_WIDTH + tx] = N[row_i * pitch + col_i];
  } else {
    N_ds[ty * BLOCK_WIDTH + tx] = 0.0f;
  }
  __syncthreads();

  if (ty < O_TILE_WIDTH && tx < O_TILE_WIDTH) {
    float output = 0.0f;
    for (int i = 0; i < Mask_Width; i++) {
      for (int j = 0; j < Mask_Width; j++) {
        output += M[i * Mask_Width + j] * N_ds[(ty + i) * BLOCK_WIDTH + (tx + j)];
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
  *grid = dim3((width + O_TILE_WIDTH - 1) / O_TILE_WIDTH, (height + O_TILE_WIDTH - 1) / O_TILE_WIDTH, 1);
}
