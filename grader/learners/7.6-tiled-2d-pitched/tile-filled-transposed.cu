// The 2D static tile filled as tile[tx][ty] (x first, as in the image's (x, y)) but read as
// tile[ty + i][tx + j]: the tile is transposed between filling and reading it.

#define TILE_SIDE (O_TILE_WIDTH + MAX_MASK_WIDTH - 1)

__global__ void convolution_2D_tiled_kernel(const float* N, float* P, int height, int width, int pitch, int Mask_Width,
                                            const float* __restrict__ M) {
  __shared__ float tile[TILE_SIDE][TILE_SIDE];
  unsigned tx = threadIdx.x;
  unsigned ty = threadIdx.y;
  int n = Mask_Width / 2;
  int row_o = blockIdx.y * O_TILE_WIDTH + ty;
  int col_o = blockIdx.x * O_TILE_WIDTH + tx;
  int row_i = row_o - n;
  int col_i = col_o - n;

  if (min(row_i, col_i) >= 0 && row_i < height && col_i < width)
    tile[tx][ty] = N[row_i * pitch + col_i];
  else
    tile[tx][ty] = 0.0f;  // ghost cell
  __syncthreads();

  if (max(tx, ty) < O_TILE_WIDTH) {
    float out = 0.0f;
    for (int i = 0; i < Mask_Width; ++i)
      for (int j = 0; j < Mask_Width; ++j) out += M[i * Mask_Width + j] * tile[ty + i][tx + j];
    if (max(row_o - height, col_o - width) < 0) P[row_o * pitch + col_o] = out;
  }
}

void convolution_2D_tiled_launch_config(int width, int height, int Mask_Width, dim3* grid, dim3* block) {
  unsigned side = O_TILE_WIDTH + Mask_Width - 1;
  *block = dim3(side, side, 1);
  *grid = dim3((width + O_TILE_WIDTH - 1) / O_TILE_WIDTH, (height + O_TILE_WIDTH - 1) / O_TILE_WIDTH, 1);
}
