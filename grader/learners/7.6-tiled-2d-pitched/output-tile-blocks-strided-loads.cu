// The book's other design: one thread per output (O_TILE_WIDTH x O_TILE_WIDTH blocks), the
// input tile in dynamic shared memory, filled by a strided loop over the whole tile.

__global__ void convolution_2D_tiled_kernel(const float* N, float* P, int height, int width, int pitch, int Mask_Width,
                                            const float* __restrict__ M) {
  extern __shared__ float tile[];
  int n = Mask_Width / 2;
  int tileWidth = O_TILE_WIDTH + Mask_Width - 1;  // input tile, one side
  int firstRow = blockIdx.y * O_TILE_WIDTH - n;   // top-left corner of the input tile
  int firstCol = blockIdx.x * O_TILE_WIDTH - n;

  int nThreads = blockDim.x * blockDim.y;
  for (int k = threadIdx.y * blockDim.x + threadIdx.x; k < tileWidth * tileWidth; k += nThreads) {
    int row = firstRow + k / tileWidth;
    int col = firstCol + k % tileWidth;
    if (row >= 0 && row < height && col >= 0 && col < width)
      tile[k] = N[row * pitch + col];
    else
      tile[k] = 0.0f;
  }
  __syncthreads();

  int row = blockIdx.y * O_TILE_WIDTH + threadIdx.y;
  int col = blockIdx.x * O_TILE_WIDTH + threadIdx.x;
  if (row < height && col < width) {
    float acc = 0.0f;
    for (int i = 0; i < Mask_Width; i++)
      for (int j = 0; j < Mask_Width; j++)
        acc += tile[(threadIdx.y + i) * tileWidth + threadIdx.x + j] * M[i * Mask_Width + j];
    P[row * pitch + col] = acc;
  }
}

void convolution_2D_tiled_launch_config(int width, int height, int Mask_Width, dim3* grid, dim3* block) {
  // one thread per output of the tile; the threads share the loading of the bigger input tile
  *block = dim3(O_TILE_WIDTH, O_TILE_WIDTH, 1);
  *grid = dim3((width - 1) / O_TILE_WIDTH + 1, (height - 1) / O_TILE_WIDTH + 1, 1);
}
