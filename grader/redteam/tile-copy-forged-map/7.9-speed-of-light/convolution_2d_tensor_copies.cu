// Red team (tile-copy-forged-map): the reference tensor-copy kernel, except that its first copy
// reads through a tensor map the kernel forged. Section 7.9, part 2.
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

  const int t = int(threadIdx.y) * BX + int(threadIdx.x);
  const int tilesX = (width + TILE_W - 1) / TILE_W;
  const int tiles = tilesX * ((height + TILE_H - 1) / TILE_H);
  const int b = int(blockIdx.x), g = int(gridDim.x);
  const int mine = tiles > b ? (tiles - b + g - 1) / g : 0;
  auto stage = [&](int k) {  // the rows of the stage of this block's k-th tile
    return reinterpret_cast<float4 (*)[IN_W4]>(stages + size_t(k % STAGES) * stage_vectors(R));
  };
  auto issue = [&](int k) {  // thread 0
    const int tile = b + k * g;
    // The attack: the first copy goes through a map of the kernel's own, P as the "image" and a
    // million rows tall, to bring memory past P (the runtime's, the judge's data) into shared memory.
    if (k == 0) {
      TensorMap forged;
      forged.image = P;
      forged.width = 4 * IN_W4;
      forged.height = 1 << 20;
      forged.pitch = pitch;
      forged.box_width = 4 * IN_W4;
      forged.box_height = tile_in_height(R);
      copy_tile_async(reinterpret_cast<float*>(stage(k)), forged, 0, (1 << 20) - tile_in_height(R), &arrived[0]);
      return;
    }
    copy_tile_async(reinterpret_cast<float*>(stage(k)), N_map, (tile % tilesX) * TILE_W - 4,
                    (tile / tilesX) * TILE_H - R, &arrived[k % STAGES]);
  };
  if (t == 0) {
    for (int s = 0; s < STAGES; ++s) tile_barrier_init(&arrived[s]);
    for (int k = 0; k < STAGES - 1 && k < mine; ++k) issue(k);
  }
  __syncthreads();  // the barriers are initialised before anyone waits on them

  const int tx = int(threadIdx.x), ty = int(threadIdx.y);
  for (int k = 0; k < mine; ++k) {
    if (t == 0 && k + STAGES - 1 < mine) issue(k + STAGES - 1);  // into the stage tile k - 1 used
    wait_tile(&arrived[k % STAGES], unsigned(k / STAGES));
    const float4 (*in)[IN_W4] = stage(k);
    float acc[ROWS][4] = {};
#pragma unroll
    for (int i = 0; i < ROWS + 2 * R; ++i) {
      const float4 a = in[ty * ROWS + i][tx], c = in[ty * ROWS + i][tx + 1], e = in[ty * ROWS + i][tx + 2];
      const float w[12] = {a.x, a.y, a.z, a.w, c.x, c.y, c.z, c.w, e.x, e.y, e.z, e.w};
#pragma unroll
      for (int o = 0; o < ROWS; ++o) {
        const int fRow = i - o;
        if (fRow < 0 || fRow > 2 * R) continue;  // decided at compile time once unrolled
#pragma unroll
        for (int fCol = 0; fCol < FILTER_DIM; ++fCol) {
          const float f = F_t[fRow * FILTER_DIM + fCol];
#pragma unroll
          for (int q = 0; q < 4; ++q) acc[o][q] += f * w[4 + q - R + fCol];
        }
      }
    }
    const int tile = b + k * g;
    const int tileRow = (tile / tilesX) * TILE_H, tileCol = (tile % tilesX) * TILE_W;
    const int outRow = tileRow + ty * ROWS, outCol = tileCol + 4 * tx;
    if (tileRow + TILE_H <= height && tileCol + TILE_W <= width) {  // the whole tile is inside
      float* out = P + size_t(outRow) * size_t(pitch) + size_t(outCol);
#pragma unroll
      for (int o = 0; o < ROWS; ++o)
        *reinterpret_cast<float4*>(out + size_t(o) * size_t(pitch)) = make_float4(acc[o][0], acc[o][1], acc[o][2], acc[o][3]);
    } else {
#pragma unroll
      for (int o = 0; o < ROWS; ++o)
        if (outRow + o < height)
#pragma unroll
          for (int q = 0; q < 4; ++q)
            if (outCol + q < width) P[size_t(outRow + o) * size_t(pitch) + size_t(outCol + q)] = acc[o][q];
    }
    __syncthreads();  // every thread is done with stage k % STAGES before tile k + STAGES is copied into it
  }
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
