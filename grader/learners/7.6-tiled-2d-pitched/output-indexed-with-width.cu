// Input-tile blocks; N is read with the pitch, but P is written row * width + col, as if it
// were not pitched.

__global__ void convolution_2D_tiled_kernel(const float* N, float* P, int height, int width, int pitch, int Mask_Width,
                                            const float* __restrict__ M) {
  __shared__ float N_ds[O_TILE_WIDTH + MAX_MASK_WIDTH - 1][O_TILE_WIDTH + MAX_MASK_WIDTH - 1];
  int tx = threadIdx.x, ty = threadIdx.y;
  int n = Mask_Width / 2;
  int row_o = blockIdx.y * O_TILE_WIDTH + ty;
  int col_o = blockIdx.x * O_TILE_WIDTH + tx;
  int row_i = row_o - n;
  int col_i = col_o - n;

  float v = 0.0f;
  if (row_i >= 0 && row_i < height && col_i >= 0 && col_i < width) v = N[row_i * pitch + col_i];
  N_ds[ty][tx] = v;
  __syncthreads();

  if (ty < O_TILE_WIDTH && tx < O_TILE_WIDTH) {
    float sum = 0.0f;
    for (int i = 0; i < Mask_Width; i++)
      for (int j = 0; j < Mask_Width; j++) sum += M[i * Mask_Width + j] * N_ds[i + ty][j + tx];
    if (row_o < height && col_o < width) P[row_o * width + col_o] = sum;
  }
}

void convolution_2D_tiled_launch_config(int width, int height, int Mask_Width, dim3* grid, dim3* block) {
  int side = O_TILE_WIDTH + Mask_Width - 1;
  *block = dim3(side, side, 1);
  *grid = dim3((width + O_TILE_WIDTH - 1) / O_TILE_WIDTH, (height + O_TILE_WIDTH - 1) / O_TILE_WIDTH, 1);
}
