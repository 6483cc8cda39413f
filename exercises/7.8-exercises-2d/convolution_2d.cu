// Section 7.8: the chapter's 2D exercises, written as the 4th edition's four 2D kernels.
//
// Every kernel convolves a width x height image N with a (2r+1) x (2r+1) filter and writes P,
// of the same size. Images are stored row by row (element [row][col] is N[row * width + col]),
// and so is the filter (F[fRow * (2r+1) + fCol]). For each output,
//
//     P[row][col] = sum over fRow, fCol in 0 .. 2r of N[row - r + fRow][col - r + fCol] * F[fRow][fCol]
//
// The filter is not flipped. Neighbours outside the image are ghost cells: they count as 0, so
// a kernel skips them instead of loading them. r is an argument, 1 .. MAX_FILTER_RADIUS, so
// OUT_TILE_DIM = IN_TILE_DIM - 2r is computed in the tiled kernel instead of #defined as in
// the book. The grader launches every kernel (it picks the grid and block sizes said below).
//
// Grade with: ./workbook grade 7.8

#include "halo/given/constant_filter_2d.cuh"  // F_c (the filter in constant memory) and copy_filter_to_constant()

// Exercise 8: the basic kernel. One thread per output; the filter F is in global memory.
// The grader launches 2D blocks, wider than they are tall, and enough of them to cover the image.
__global__ void convolution_2D_basic_kernel(const float* N, const float* F, float* P, int r, int width, int height) {
  // 1. Which output does this thread own? outCol comes from the x indices, outRow from y.
  // 2. Threads outside the image have nothing to do.
  // 3. Add up N[inRow][inCol] * F[fRow][fCol] over the (2r+1) x (2r+1) filter, skipping ghost
  //    cells (inRow or inCol outside the image). N, F and P are 1D pointers: write
  //    N[inRow * width + inCol] and F[fRow * (2 * r + 1) + fCol].
  // 4. Store the sum in P[outRow * width + outCol].
  HALO_TODO("write the basic 2D convolution kernel, then delete this line");
}

// The same kernel with the filter in constant memory: F_c, filled by the grader through
// copy_filter_to_constant() (given, in constant_filter_2d.cuh). Same launch as the basic kernel.
__global__ void convolution_2D_const_mem_kernel(const float* N, float* P, int r, int width, int height) {
  // The basic kernel again, reading the weights from F_c[fRow * (2 * r + 1) + fCol]: every
  // thread reads the same weight at the same time, which the constant cache serves to a
  // whole warp at once, and F costs no global-memory loads at all.
  HALO_TODO("write the constant-memory 2D kernel, then delete this line");
}

// Exercise 9: the tiled kernel with the filter in constant memory. Blocks are IN_TILE_DIM x
// IN_TILE_DIM threads, one per element of an input tile; the input tiles of neighbouring blocks
// overlap by 2r, because each block computes only an OUT_TILE_DIM x OUT_TILE_DIM output tile.
// The grader launches ceil(width / OUT_TILE_DIM) x ceil(height / OUT_TILE_DIM) blocks.
__global__ void convolution_tiled_2D_const_mem_kernel(const float* N, float* P, int r, int width, int height) {
  // 1. OUT_TILE_DIM = IN_TILE_DIM - 2 * r. This thread's input element: block (x, y) owns the
  //    output tile that starts at column x * OUT_TILE_DIM (row y * OUT_TILE_DIM), and its input
  //    tile starts r before that. threadIdx is unsigned: compute indices in int.
  // 2. Declare __shared__ float N_s[IN_TILE_DIM][IN_TILE_DIM]; each thread stores its element
  //    there, or 0 for a ghost cell (without loading it).
  // 3. Wait until the whole tile is in place.
  // 4. Only the inner OUT_TILE_DIM x OUT_TILE_DIM threads compute, and only for outputs inside
  //    the image; each one's output is the element it loaded. Read the neighbours from N_s
  //    and the weights from F_c[fRow * (2 * r + 1) + fCol].
  HALO_TODO("write the tiled 2D kernel, then delete this line");
}

// Exercise 10: the cached tiled kernel. Blocks are TILE_DIM x TILE_DIM threads and each block
// computes the output tile under its own input tile; N_s holds that tile only. Neighbours
// outside the tile (the halo) are read from global memory, where the caches are likely to hold
// them because the neighbouring blocks load them into their own tiles. The grader launches
// ceil(width / TILE_DIM) x ceil(height / TILE_DIM) blocks.
__global__ void convolution_cached_tiled_2D_const_mem_kernel(const float* N, float* P, int r, int width, int height) {
  // 1. This thread's output (outRow, outCol): tiles are TILE_DIM apart and do not overlap.
  // 2. Load the tile: __shared__ float N_s[TILE_DIM][TILE_DIM], 0 outside the image; wait.
  // 3. Threads inside the image sum over the filter. A neighbour inside the tile is read from
  //    N_s (at its place in the tile: r rows and r columns before the thread's own, plus fRow
  //    and fCol); a neighbour outside the tile is read from N, unless it is a ghost cell.
  //    threadIdx is unsigned: compute the tile indices in int before comparing them with 0.
  HALO_TODO("write the cached tiled 2D kernel, then delete this line");
}
