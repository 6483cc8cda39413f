// Red-team control (control-tile-copy-config): the stub of 7.9's part 2 with only the launch
// configuration written, the baseline of tile-copy-forged-map. Section 7.9, part 2.
//
// The kernel of convolution_2d_speed_of_light.cu spends issue slots on its loads: at 7 x 7 and
// 9 x 9 an H200 issues multiply-adds at nearly its full rate, and every load instruction, index
// computation and wait for memory is a multiply-add not issued. Here one thread asks the copy
// engine (Hopper's Tensor Memory Accelerator) for a whole input tile with one call, several
// tiles ahead, and every thread only waits for the tile it needs and computes:
//
//   - N reaches the kernel as a TensorMap (made by the grader with the box your launch
//     configuration asks for): copy_tile_async(stage, N_map, col, row, &barrier) copies the
//     box whose top-left pixel is N[row][col] into shared memory, zeros where the box leaves
//     the image, so ghost cells and the last partial vector of a row cost nothing;
//   - the grid is persistent: as many blocks as the grader allows (max_blocks: on a GPU, as
//     many as fit on it at once), block b computing tiles b, b + gridDim.x, b + 2 gridDim.x,
//     ... in raster order, so that the tiles in flight at once are neighbours;
//   - STAGES stages of dynamic shared memory: while a block computes its tile k, the copies of
//     its tiles k + 1 .. k + STAGES - 1 are in flight. A tile barrier per stage says when its
//     copy has landed (halo/given/tile_copy.cuh: read its rules).
//
// Each thread computes the same strip as in part 1: 4 columns x ROWS rows of one tile, from a
// 12-pixel window of each input row in registers. The tile's shape is given (shape_for below):
// the lesson measures why 9 x 9 wants smaller blocks than the memory-bound radii.
//
// Grade with: ./workbook grade 7.9

#include "halo/given/tile_copy.cuh"       // TensorMap, TileBarrier, tile_barrier_init, copy_tile_async, wait_tile
#include "halo/given/tile_filter_2d.cuh"  // F_t (the filter in constant memory) and copy_tile_filter_to_constant()

// Given: the block and tile of each radius. A block is block_x x block_y threads; its tile is
// 4 block_x columns x rows block_y rows of P; `stages` tiles of input live in shared memory.
struct TileShape {
  int block_x, block_y, rows, stages;
};
__host__ __device__ constexpr TileShape shape_for(int r) { return r <= 3 ? TileShape{32, 16, 4, 4} : TileShape{32, 8, 5, 2}; }

// Given: the input tile of a tile, as the copy engine writes it: (rows block_y + 2r) rows of
// (block_x + 2) float4s (one whole vector of halo left and right, as in part 1), each stage
// rounded up to whole 128-byte units (the copy engine's alignment).
__host__ __device__ constexpr int tile_in_width4(int r) { return shape_for(r).block_x + 2; }
__host__ __device__ constexpr int tile_in_height(int r) { return shape_for(r).rows * shape_for(r).block_y + 2 * r; }
__host__ __device__ constexpr int stage_vectors(int r) { return (tile_in_height(r) * tile_in_width4(r) + 7) / 8 * 8; }

template <int R>
__global__ void __launch_bounds__(shape_for(R).block_x * shape_for(R).block_y)
    convolution_2D_tensor_copies_kernel(const __grid_constant__ TensorMap N_map, float* __restrict__ P, int width,
                                        int height, int pitch) {
  static_assert(R >= 1 && R <= 4 && R <= MAX_FILTER_RADIUS, "the halo is one float4 wide, and F_t holds 9 x 9");
  constexpr TileShape S = shape_for(R);
  constexpr int BX = S.block_x, BY = S.block_y, ROWS = S.rows, STAGES = S.stages;
  constexpr int TILE_W = 4 * BX, TILE_H = ROWS * BY, IN_W4 = tile_in_width4(R), FILTER_DIM = 2 * R + 1;
  extern __shared__ __align__(128) float4 stages[];  // STAGES * stage_vectors(R) float4s, given at launch
  __shared__ TileBarrier arrived[STAGES];            // arrived[s]: the copy into stage s has landed

  // 1. t = threadIdx.y * BX + threadIdx.x. The image has tilesX = ceil(width / TILE_W) x
  //    ceil(height / TILE_H) tiles, numbered row by row; this block computes tiles
  //    blockIdx.x, blockIdx.x + gridDim.x, ...: mine of them. Its k-th tile lives in stage
  //    k % STAGES: rows of IN_W4 float4s from stages + s * stage_vectors(R), as the copy engine
  //    lays a box out (reinterpret_cast<float4 (*)[IN_W4]> gives a pointer to such rows).
  // 2. issue(k), for thread 0 only: copy_tile_async into stage k % STAGES, from column
  //    tileCol - 4 and row tileRow - R of the image (the tile's first output pixel minus the
  //    halo), on barrier arrived[k % STAGES].
  // 3. Thread 0 initialises every barrier (tile_barrier_init) and issues tiles 0 .. STAGES - 2;
  //    then every thread passes a __syncthreads(), so that the barriers exist for all.
  // 4. For each k < mine: thread 0 issues tile k + STAGES - 1 (if this block has one); every
  //    thread waits for tile k (wait_tile(&arrived[k % STAGES], k / STAGES): the barrier's
  //    (k / STAGES)-th copy); computes its strip of tile k as in part 1 (4 columns x ROWS rows,
  //    a 12-pixel window of each input row in registers, F_t for the filter); stores it (plain
  //    float4 stores when the whole tile is inside the image, else only the pixels inside,
  //    one at a time); and passes a __syncthreads() before the next iteration, so that no
  //    stage is refilled while a thread still reads it.
  HALO_TODO("write the tensor-copy kernel, then delete this line");
}

// Given: the kernel for each radius (r is a template parameter, so that every loop above has a
// compile-time count); nullptr for a radius it does not handle.
using TensorCopiesKernel = void (*)(TensorMap, float*, int, int, int);
TensorCopiesKernel convolution_2D_tensor_copies_kernel_for(int r) {
  switch (r) {
    case 1: return convolution_2D_tensor_copies_kernel<1>;
    case 2: return convolution_2D_tensor_copies_kernel<2>;
    case 3: return convolution_2D_tensor_copies_kernel<3>;
    case 4: return convolution_2D_tensor_copies_kernel<4>;
    default: return nullptr;
  }
}

// The grader launches the kernel with what this function returns for a width x height image
// with the given pitch (in floats) and filter radius r, on at most max_blocks blocks: the grid,
// the block, the box of N each tensor copy brings (box->x columns, box->y rows: the grader makes
// N_map with it) and the bytes of dynamic shared memory (*shared_bytes). It returns
// cudaErrorInvalidValue, setting nothing, for a pitch that is not a multiple of 4 floats or is
// smaller than the width, an r outside 1 .. 4, or max_blocks < 1.
cudaError_t convolution_2D_tensor_copies_launch_config(int width, int height, int pitch, int r, int max_blocks,
                                                       dim3* grid, dim3* block, dim3* box, int* shared_bytes) {
  if (width < 1 || height < 1 || pitch < width || pitch % 4 != 0 || r < 1 || r > 4 || max_blocks < 1)
    return cudaErrorInvalidValue;
  const TileShape S = shape_for(r);
  const int tileW = 4 * S.block_x, tileH = S.rows * S.block_y;
  const long long tiles = (long long)((width + tileW - 1) / tileW) * ((height + tileH - 1) / tileH);
  *grid = dim3(unsigned(tiles < max_blocks ? tiles : max_blocks), 1, 1);
  *block = dim3(unsigned(S.block_x), unsigned(S.block_y), 1);
  *box = dim3(unsigned(4 * tile_in_width4(r)), unsigned(tile_in_height(r)), 1);
  *shared_bytes = S.stages * stage_vectors(r) * int(sizeof(float4));
  return cudaSuccess;
}
