// Section 7.6: tiled 2D convolution on a pitched image.
//
// The image N is height x width pixels stored row by row, but each row occupies `pitch`
// elements (pitch >= width): the library pads every row so that the next one starts on a
// DRAM burst boundary. Pixel (row, col) is N[row * pitch + col]; columns width .. pitch-1 are
// padding and must never be read or written. P has the same layout and the same pitch.
//
// Each block owns an O_TILE_WIDTH x O_TILE_WIDTH output tile and has one thread per element of
// its input tile: BLOCK_WIDTH = O_TILE_WIDTH + Mask_Width - 1 threads per side. Every thread
// loads one element of N into shared memory (0 for a ghost cell), the block waits at a
// barrier, and then only the O_TILE_WIDTH x O_TILE_WIDTH threads in the top-left corner of the
// block compute an output each. M is a Mask_Width x Mask_Width row-major mask in global memory.
// O_TILE_WIDTH and MAX_MASK_WIDTH are #defined for you.
//
// Grade with: ./workbook grade 7.6

__global__ void convolution_2D_tiled_kernel(const float* N, float* P, int height, int width, int pitch, int Mask_Width,
                                            const float* __restrict__ M) {
  // BEGIN PROMPT
  // // 1. A shared tile big enough for the largest mask, indexed with the runtime BLOCK_WIDTH:
  // //      __shared__ float N_ds[(O_TILE_WIDTH + MAX_MASK_WIDTH - 1) * (O_TILE_WIDTH + MAX_MASK_WIDTH - 1)];
  // //    (or `extern __shared__ float N_ds[];`: the grader launches with (blockDim.x + 2n) *
  // //    (blockDim.y + 2n) floats of dynamic shared memory, n = Mask_Width / 2)
  // // 2. row_o, col_o: the output this thread would own (blockIdx.y/x, O_TILE_WIDTH, threadIdx.y/x).
  // //    row_i, col_i: the input element it loads. Which offset takes you from the output tile's
  // //    corner to the input tile's corner? (Careful: the book's Figure 7.19 has it wrong.)
  // // 3. Load that element with the pitch, or 0 for a ghost cell (guard with height and width).
  // // 4. Wait until the whole input tile is in shared memory.
  // // 5. Only threads with tx and ty below O_TILE_WIDTH compute: sum N_ds * M over the mask,
  // //    and write P (with the pitch) if the output lies inside the image.
  // HALO_TODO("write the tiled 2D convolution kernel; then delete this line");
  // END PROMPT
  // BEGIN SOLUTION
  // Sized for the largest mask; a smaller mask uses the first BLOCK_WIDTH^2 elements.
  __shared__ float N_ds[(O_TILE_WIDTH + MAX_MASK_WIDTH - 1) * (O_TILE_WIDTH + MAX_MASK_WIDTH - 1)];
  const int n = Mask_Width / 2;  // mask radius
  const int BLOCK_WIDTH = O_TILE_WIDTH + Mask_Width - 1;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row_o = blockIdx.y * O_TILE_WIDTH + ty;  // the output this thread owns, if tx, ty < O_TILE_WIDTH
  const int col_o = blockIdx.x * O_TILE_WIDTH + tx;
  const int row_i = row_o - n;  // the input tile starts n above and n left of the output tile
  const int col_i = col_o - n;

  float in = 0.0f;  // ghost cells count as 0
  if (row_i >= 0 && row_i < height && col_i >= 0 && col_i < width) {
    in = N[row_i * pitch + col_i];
  }
  N_ds[ty * BLOCK_WIDTH + tx] = in;
  __syncthreads();  // every element of the tile is loaded before anyone reads it

  if (ty < O_TILE_WIDTH && tx < O_TILE_WIDTH) {
    float sum = 0.0f;
    for (int i = 0; i < Mask_Width; ++i) {
      for (int j = 0; j < Mask_Width; ++j) {
        sum += M[i * Mask_Width + j] * N_ds[(ty + i) * BLOCK_WIDTH + tx + j];
      }
    }
    if (row_o < height && col_o < width) {
      P[row_o * pitch + col_o] = sum;
    }
  }
  // END SOLUTION
}

// The grader launches the kernel with the grid and block this function returns for an image of
// width x height pixels and a Mask_Width x Mask_Width mask.
void convolution_2D_tiled_launch_config(int width, int height, int Mask_Width, dim3* grid, dim3* block) {
  // BEGIN PROMPT
  // // A block has one thread per input-tile element (BLOCK_WIDTH x BLOCK_WIDTH); the grid has
  // // enough output tiles to cover the image, rounded up. x runs along a row (width), y down
  // // the columns (height). Until this is written the grid and block stay empty and the launch
  // // fails. (The grader also accepts the book's other design: blocks of O_TILE_WIDTH x
  // // O_TILE_WIDTH threads, one per output, each loading several elements of the input tile;
  // // the kernel must then be written for it.)
  // HALO_TODO("compute the grid and block of the tiled 2D kernel; then delete this line");
  // END PROMPT
  // BEGIN SOLUTION
  const unsigned BLOCK_WIDTH = O_TILE_WIDTH + Mask_Width - 1;
  *block = dim3(BLOCK_WIDTH, BLOCK_WIDTH, 1);
  *grid = dim3((width + O_TILE_WIDTH - 1) / O_TILE_WIDTH, (height + O_TILE_WIDTH - 1) / O_TILE_WIDTH, 1);
  // END SOLUTION
}
