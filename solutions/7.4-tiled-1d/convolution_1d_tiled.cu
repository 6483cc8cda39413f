// Section 7.4: tiled 1D convolution with halo cells.
//
// Each block owns blockDim.x consecutive outputs (its output tile). Before computing, the block
// copies every input element those outputs need into shared memory, once: its own blockDim.x
// elements (the centre cells), n elements on the left and n on the right (the halo cells, which
// are centre cells of the neighbouring blocks too), where n = Mask_Width / 2. Positions outside
// N are ghost cells: they are written into the tile as 0, never loaded. After a barrier every
// thread computes its output from shared memory alone.
//
// The mask M is in constant memory (given below, as section 7.3 builds it). TILE_SIZE and
// MAX_MASK_WIDTH are the chapter's #defines: the grader launches blocks of up to TILE_SIZE
// threads, and masks of up to MAX_MASK_WIDTH elements.
//
// Grade with: ./workbook grade 7.2 7.4 (the ratio answers compare the loads of both kernels)

#include "halo/given/constant_mask_1d.cuh"

__global__ void convolution_1D_tiled_kernel(const float* N, float* P, int Mask_Width, int Width) {
  // BEGIN PROMPT
  // // The tile: N_ds[0 .. n-1] left halo, N_ds[n .. n+blockDim.x-1] centre, then the right halo.
  // //   __shared__ float N_ds[TILE_SIZE + MAX_MASK_WIDTH - 1];
  // // (or `extern __shared__ float N_ds[];`: the grader launches with blockDim.x + 2n floats
  // // of dynamic shared memory)
  // // The grader launches blocks of several sizes, up to TILE_SIZE threads: index with
  // // blockDim.x, never with TILE_SIZE (TILE_SIZE only sizes the array).
  // // 1. Left halo: the last n threads of the block each copy one of the last n centre cells of
  // //    the previous tile; a position before N[0] is a ghost cell: store 0, do not load it.
  // // 2. Centre: every thread copies its own element; past the end of N (a partial last tile)
  // //    store 0 instead.
  // // 3. Right halo: the first n threads each copy one of the first n cells of the next tile;
  // //    0 past the end of N.
  // // 4. Wait until the whole tile is in shared memory.
  // // 5. Threads that own an output sum N_ds[threadIdx.x + j] * M[j] and store it in P.
  // HALO_TODO("write the tiled 1D convolution kernel, then delete this line");
  // END PROMPT
  // BEGIN SOLUTION
  __shared__ float N_ds[TILE_SIZE + MAX_MASK_WIDTH - 1];
  const int n = Mask_Width / 2;         // mask radius: halo cells on each side
  const int tx = threadIdx.x;
  const int tile = blockDim.x;          // outputs per block (<= TILE_SIZE)
  const int start = blockIdx.x * tile;  // first output of this block's tile
  const int i = start + tx;             // the output this thread owns

  if (tx >= tile - n) {  // the last n threads: left halo, from the end of the previous tile
    const int left = start - tile + tx;
    N_ds[tx - (tile - n)] = (left >= 0) ? N[left] : 0.0f;
  }
  N_ds[n + tx] = (i < Width) ? N[i] : 0.0f;  // centre; 0 past the end of a partial last tile
  if (tx < n) {  // the first n threads: right halo, from the start of the next tile
    const int right = start + tile + tx;
    N_ds[n + tile + tx] = (right < Width) ? N[right] : 0.0f;
  }
  __syncthreads();  // every cell of the tile is written before any thread reads it

  if (i < Width) {
    float Pvalue = 0.0f;
    for (int j = 0; j < Mask_Width; ++j) {
      Pvalue += N_ds[tx + j] * M[j];
    }
    P[i] = Pvalue;
  }
  // END SOLUTION
}
