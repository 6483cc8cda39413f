// Section 7.5: tiled 1D convolution using caches for the halo cells.
//
// As in 7.4, each block owns blockDim.x consecutive outputs and first copies its own input
// elements (its tile) into shared memory. Unlike 7.4 it copies no halo cells: when a thread's
// mask reaches past either end of the tile, the thread reads that element straight from N in
// global memory. Such an element belongs to the neighbouring block's tile, which that block
// loads too, so on a GPU it is likely to be found in the L2 cache. Positions outside N are
// ghost cells, skipped as before. n = Mask_Width / 2 is the mask's radius.
//
// The mask M is in constant memory (given below, as section 7.3 builds it). TILE_SIZE is the
// chapter's #define: the grader launches blocks of up to TILE_SIZE threads.
//
// Grade with: ./workbook grade 7.5

#include "halo/given/constant_mask_1d.cuh"

__global__ void convolution_1D_cached_kernel(const float* N, float* P, int Mask_Width, int Width) {
  // The tile holds only this block's own elements of N, no halo cells:
  //   __shared__ float N_ds[TILE_SIZE];
  // (or `extern __shared__ float N_ds[];`: the grader launches with at least blockDim.x floats
  // of dynamic shared memory)
  // The grader launches blocks of 32, 128 and 256 threads: index with blockDim.x, never with
  // TILE_SIZE (TILE_SIZE only sizes the array).
  // 1. Each thread copies its own element N[i] into the tile. In a partial last tile, a
  //    thread with i >= Width must not load anything: store 0 instead.
  // 2. Wait until the whole tile is in shared memory.
  // 3. Each thread that owns an output walks its neighbours N[i - n] .. N[i + n]:
  //    - inside this block's tile: read the copy in N_ds;
  //    - outside the tile but inside N (a halo cell): read it from N in global memory;
  //    - outside N (a ghost cell): skip it.
  // 4. Store the sum in P[i].
  HALO_TODO("write the cached 1D convolution kernel, then delete this line");
}
