// Section 7.9: a 2D convolution at the speed of light (of DRAM).
//
// The same convolution as section 7.8 (a (2r+1) x (2r+1) filter F_c in constant memory, not
// flipped, ghost cells 0), on a pitched image: pixel [row][col] of N is N[row * pitch + col],
// with pitch (in floats) a multiple of 4, as cudaMallocPitch gives, so that every row starts on
// a 16-byte boundary. P has the same layout. Columns width .. pitch-1 are padding: never read
// or written.
//
// A 5 x 5 filter does 25 multiply-adds per output but moves only 8 bytes (one float in, one
// out) if every input element comes from DRAM once: the kernel is limited by memory
// bandwidth, and the goal is to move those bytes as fast as a plain copy does. Five habits
// get there, one step each (the lesson measures every step):
//   1. one block loads a tile of N once (the tiled kernel of 7.8), shared by its threads;
//   2. each thread computes a strip of 4 columns x ROWS rows, keeping a row of the tile in
//      registers while it adds it into every output row of the strip that needs it;
//   3. every global access moves 16 bytes (a float4): a quarter of the instructions;
//   4. each thread issues all its tile loads before it stores any of them, so that many
//      loads are in flight at once;
//   5. a block wholly inside the image (nearly all of them) tests the bounds once, not once
//      per vector: from 7 x 7 on the GPU issues instructions at full rate, and every one
//      that is not a multiply-add costs time.
//
// Block: BLOCK_X x BLOCK_Y threads; output tile: 4 BLOCK_X columns x BLOCK_Y ROWS rows. The
// input tile adds r rows above and below, and one whole float4 (4 columns) left and right:
// r <= 4 columns are needed, but a vector is the unit of a load, and whole vectors keep every
// load aligned. SOL_BLOCK_X, SOL_BLOCK_Y, SOL_ROWS_PER_THREAD and MAX_FILTER_RADIUS are
// #defined for you (chapters/7.9-speed-of-light/questions.toml, 7.8-exercises-2d).
//
// Grade with: ./workbook grade 7.9

#include "halo/given/constant_filter_2d.cuh"  // F_c (the filter in constant memory) and copy_filter_to_constant()

// Loads the four pixels N[row][col .. col+3] (col a multiple of 4) as one float4; pixels
// outside the image are ghost cells, 0, and are not loaded.
__device__ __forceinline__ float4 load_vector(const float* __restrict__ N, int row, int col, int width, int height,
                                              int pitch) {
  // BEGIN PROMPT
  // // 1. A row outside the image, or a vector wholly outside it (col < 0: col is a multiple of
  // //    4, so the vector is wholly before the image; col >= width: wholly after): return zeros.
  // // 2. A vector wholly inside the row (col + 4 <= width): one 16-byte load,
  // //    *reinterpret_cast<const float4*>(&N[row * pitch + col]).
  // // 3. The last, partial vector of a row: load only the pixels before width, one at a time;
  // //    the rest are 0. Reading the padding would be wrong even where it happens to be memory.
  // HALO_TODO("write load_vector, then delete this line");
  // return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  // END PROMPT
  // BEGIN SOLUTION
  float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  if (row < 0 || row >= height || col < 0 || col >= width) return v;  // ghost cells
  const float* p = N + size_t(row) * size_t(pitch) + size_t(col);
  if (col + 4 <= width) return *reinterpret_cast<const float4*>(p);  // 16 bytes, aligned: pitch % 4 == 0
  v.x = p[0];  // the row's last vector holds 1 to 3 pixels
  if (col + 1 < width) v.y = p[1];
  if (col + 2 < width) v.z = p[2];
  return v;
  // END SOLUTION
}

// Stores the four outputs P[row][col .. col+3] (col a multiple of 4), those inside the image.
__device__ __forceinline__ void store_vector(float* __restrict__ P, int row, int col, int width, int height, int pitch,
                                             float4 v) {
  // BEGIN PROMPT
  // // The mirror of load_vector: nothing outside the image; one 16-byte store for a whole vector,
  // // one store per pixel for the partial vector at the end of a row.
  // HALO_TODO("write store_vector, then delete this line");
  // END PROMPT
  // BEGIN SOLUTION
  if (row >= height || col >= width) return;
  float* p = P + size_t(row) * size_t(pitch) + size_t(col);
  if (col + 4 <= width) {
    *reinterpret_cast<float4*>(p) = v;
    return;
  }
  p[0] = v.x;
  if (col + 1 < width) p[1] = v.y;
  if (col + 2 < width) p[2] = v.z;
  // END SOLUTION
}

template <int R, int BLOCK_X = SOL_BLOCK_X, int BLOCK_Y = SOL_BLOCK_Y, int ROWS = SOL_ROWS_PER_THREAD>
__global__ void __launch_bounds__(BLOCK_X * BLOCK_Y)
    convolution_2D_speed_of_light_kernel(const float* __restrict__ N, float* __restrict__ P, int width, int height,
                                         int pitch) {
  static_assert(R >= 1 && R <= 4 && R <= MAX_FILTER_RADIUS,
                "the halo must fit in one float4 on each side of the tile, and the filter in F_c: 1 <= R <= 4");
  static_assert(BLOCK_X >= 1 && BLOCK_Y >= 1 && ROWS >= 1, "a block needs threads, a thread needs rows");
  constexpr int THREADS = BLOCK_X * BLOCK_Y;
  constexpr int TILE_W = 4 * BLOCK_X;     // output columns of a block: 4 per thread
  constexpr int TILE_H = ROWS * BLOCK_Y;  // output rows of a block: ROWS per thread
  constexpr int IN_W4 = BLOCK_X + 2;      // float4s per input-tile row: one vector of halo on each side
  constexpr int IN_H = TILE_H + 2 * R;    // input-tile rows: R of halo above and below
  constexpr int TILE_VECTORS = IN_W4 * IN_H;
  constexpr int LOADS_PER_THREAD = (TILE_VECTORS + THREADS - 1) / THREADS;
  constexpr int FILTER_DIM = 2 * R + 1;
  static_assert(sizeof(float4) * TILE_VECTORS <= 48 * 1024,
                "the input tile must fit in 48 KB of static shared memory: fewer rows or threads per block");

  // BEGIN PROMPT
  // // Work step by step; the lesson measures each one. Index in int (threadIdx is unsigned).
  // // 1. The tile: __shared__ float4 N_s[IN_H][IN_W4]. Element [i][j] holds the pixels of row
  // //    blockIdx.y * TILE_H - R + i, columns blockIdx.x * TILE_W - 4 + 4 j .. + 3.
  // // 2. Load it with load_vector. Number the threads 0 .. THREADS-1 (t = threadIdx.y * BLOCK_X
  // //    + threadIdx.x); thread t loads vectors t, t + THREADS, t + 2 THREADS, ... of the tile
  // //    (vector k is [k / IN_W4][k % IN_W4]), so a warp reads consecutive 16-byte vectors.
  // //    Bytes in flight: first load all LOADS_PER_THREAD vectors into a register array
  // //    float4 v[LOADS_PER_THREAD] (a loop with a compile-time count: #pragma unroll), then
  // //    store them all to N_s in a second loop. Skip k >= TILE_VECTORS.
  // //    Most blocks need no bounds test at all: when the whole input tile lies inside the
  // //    image (test its first and last row and column once), load each vector with a plain
  // //    *reinterpret_cast<const float4*>(...) instead of load_vector.
  // // 3. Wait until the whole tile is in place.
  // // 4. This thread's strip: columns 4 threadIdx.x .. + 3 of the output tile, rows
  // //    threadIdx.y * ROWS .. + ROWS - 1. Keep float acc[ROWS][4] = {} in registers. For
  // //    each of the ROWS + 2R input rows i the strip needs (tile row threadIdx.y * ROWS + i),
  // //    read the 12-pixel window N_s[..][threadIdx.x], [+1], [+2] into registers once, and add
  // //    it into every output row o of the strip with 0 <= i - o <= 2R (filter row fRow = i - o):
  // //    acc[o][q] += F_c[fRow * FILTER_DIM + fCol] * window[4 + q - R + fCol].
  // //    With #pragma unroll on every loop, all indices are constants and acc stays in registers.
  // // 5. Store each output row of the strip with store_vector; in a block whose whole output
  // //    tile lies inside the image, with plain float4 stores.
  // HALO_TODO("write the speed-of-light kernel, then delete this line");
  // END PROMPT
  // BEGIN SOLUTION
  __shared__ float4 N_s[IN_H][IN_W4];
  const int t = int(threadIdx.y) * BLOCK_X + int(threadIdx.x);
  const int tileRow0 = int(blockIdx.y) * TILE_H - R;  // image row of N_s[0]
  const int tileCol0 = int(blockIdx.x) * TILE_W - 4;  // image column of N_s[.][0].x

  // Every load first, then every store: the loads do not wait for each other. A block whose
  // input tile lies wholly inside the image (all but the edge blocks) tests that once and then
  // loads without a bounds test per vector.
  const bool tileInside =
      tileRow0 >= 0 && tileRow0 + IN_H <= height && tileCol0 >= 0 && tileCol0 + 4 * IN_W4 <= width;
  float4 v[LOADS_PER_THREAD] = {};
  if (tileInside) {
    const float* tile = N + size_t(tileRow0) * size_t(pitch) + size_t(tileCol0);
#pragma unroll
    for (int k = 0; k < LOADS_PER_THREAD; ++k) {
      const int e = t + k * THREADS;
      if (e < TILE_VECTORS)
        v[k] = *reinterpret_cast<const float4*>(tile + size_t(e / IN_W4) * size_t(pitch) + size_t(4 * (e % IN_W4)));
    }
  } else {
#pragma unroll
    for (int k = 0; k < LOADS_PER_THREAD; ++k) {
      const int e = t + k * THREADS;
      if (e < TILE_VECTORS) v[k] = load_vector(N, tileRow0 + e / IN_W4, tileCol0 + 4 * (e % IN_W4), width, height, pitch);
    }
  }
#pragma unroll
  for (int k = 0; k < LOADS_PER_THREAD; ++k) {
    const int e = t + k * THREADS;
    if (e < TILE_VECTORS) N_s[e / IN_W4][e % IN_W4] = v[k];
  }
  __syncthreads();  // the whole tile is in place before any thread reads its neighbours

  const int tx = int(threadIdx.x), ty = int(threadIdx.y);
  float acc[ROWS][4] = {};
#pragma unroll
  for (int i = 0; i < ROWS + 2 * R; ++i) {
    // The window of input row i: pixels 4 tx - 4 .. 4 tx + 7 of the tile row, in registers once
    // for the up to 2R + 1 output rows that use it.
    const float4 a = N_s[ty * ROWS + i][tx], b = N_s[ty * ROWS + i][tx + 1], c = N_s[ty * ROWS + i][tx + 2];
    const float w[12] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, c.x, c.y, c.z, c.w};
#pragma unroll
    for (int o = 0; o < ROWS; ++o) {
      const int fRow = i - o;
      if (fRow < 0 || fRow > 2 * R) continue;  // decided at compile time once unrolled
#pragma unroll
      for (int fCol = 0; fCol < FILTER_DIM; ++fCol) {
        const float f = F_c[fRow * FILTER_DIM + fCol];
#pragma unroll
        for (int q = 0; q < 4; ++q) acc[o][q] += f * w[4 + q - R + fCol];
      }
    }
  }

  const int outRow = int(blockIdx.y) * TILE_H + ty * ROWS, outCol = int(blockIdx.x) * TILE_W + 4 * tx;
  const bool outputsInside = int(blockIdx.y + 1) * TILE_H <= height && int(blockIdx.x + 1) * TILE_W <= width;
  if (outputsInside) {
    float* out = P + size_t(outRow) * size_t(pitch) + size_t(outCol);
#pragma unroll
    for (int o = 0; o < ROWS; ++o)
      *reinterpret_cast<float4*>(out + size_t(o) * size_t(pitch)) = make_float4(acc[o][0], acc[o][1], acc[o][2], acc[o][3]);
  } else {
#pragma unroll
    for (int o = 0; o < ROWS; ++o)
      store_vector(P, outRow + o, outCol, width, height, pitch, make_float4(acc[o][0], acc[o][1], acc[o][2], acc[o][3]));
  }
  // END SOLUTION
}

// Given: the kernel for each radius (r is a template parameter, so that every loop above has a
// compile-time count); nullptr for a radius it does not handle.
using SpeedOfLightKernel = void (*)(const float*, float*, int, int, int);
SpeedOfLightKernel convolution_2D_speed_of_light_kernel_for(int r) {
  switch (r) {
    case 1: return convolution_2D_speed_of_light_kernel<1>;
    case 2: return convolution_2D_speed_of_light_kernel<2>;
    case 3: return convolution_2D_speed_of_light_kernel<3>;
    case 4: return convolution_2D_speed_of_light_kernel<4>;
    default: return nullptr;
  }
}

// The grader launches the kernel with the grid and block this function returns for a
// width x height image with the given pitch (in floats) and filter radius r. The kernel's
// preconditions are checked here: it returns cudaErrorInvalidValue (and leaves grid and block
// alone) when the pitch is not a multiple of 4 floats or smaller than the width, or when
// r is not 1 .. 4.
cudaError_t convolution_2D_speed_of_light_launch_config(int width, int height, int pitch, int r, dim3* grid,
                                                        dim3* block) {
  // BEGIN PROMPT
  // // 1. Refuse what the kernel cannot do (see above) with cudaErrorInvalidValue.
  // // 2. A block is SOL_BLOCK_X x SOL_BLOCK_Y threads; it covers 4 SOL_BLOCK_X columns and
  // //    SOL_BLOCK_Y SOL_ROWS_PER_THREAD rows of P. Enough blocks to cover the image, rounded up.
  // HALO_TODO("compute the grid and block of the speed-of-light kernel, then delete this line");
  // return cudaErrorInvalidValue;
  // END PROMPT
  // BEGIN SOLUTION
  if (width < 1 || height < 1 || pitch < width || pitch % 4 != 0 || r < 1 || r > 4) return cudaErrorInvalidValue;
  constexpr int TILE_W = 4 * SOL_BLOCK_X, TILE_H = SOL_BLOCK_Y * SOL_ROWS_PER_THREAD;
  *block = dim3(SOL_BLOCK_X, SOL_BLOCK_Y, 1);
  *grid = dim3(unsigned((width + TILE_W - 1) / TILE_W), unsigned((height + TILE_H - 1) / TILE_H), 1);
  return cudaSuccess;
  // END SOLUTION
}
